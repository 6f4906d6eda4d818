#pragma once
/// The mock LLM: a deterministic mutator that makes the edits a kernel engineer would (one-field
/// tweaks, coherent register- and shared-memory-aware retunes, threshold moves, rule splits,
/// deletions, crossover from inspirations) and writes them as a chatty reply with a
/// SEARCH/REPLACE block, so the evolution loop drives the same path as with a real LLM.
#include "eval/problem.hpp"
#include "evolve/mutator.hpp"
#include "ir/condition.hpp"
#include "ir/program.hpp"
#include "models/gpu.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// Knobs of the mock LLM.
struct MockLlmOptions {
  /// The "small LLM" ablation: only one config field or one constant changes per proposal.
  bool one_field_only = false;
  /// A closed config space, e.g. the configs a replay backend has recordings for. When not
  /// empty, every config the mock writes is one of these (of those that launch for the
  /// feedback's dtype): the nearest to what it would write otherwise, and tweaks move to a
  /// neighbouring one. Empty: any launchable config of the GPU's space.
  std::vector<Config> space{};
  /// The features a split may add to a condition. M alone by default: a rule bounded in M is
  /// supported by every layer at those token counts, while N and K bounds single out a few
  /// layers and, with a few dozen training shapes, often fit them at the cost of unseen ones
  /// (`tilevolve splits` measures this; see README). Never empty.
  std::vector<Feature> split_features{Feature::M};
  /// Weight of the refit operator (regroup the shapes from the run's measurements; 0 = off).
  double refit_weight = 0.12;
  /// Weight of the waves operator (a rule for shapes whose grid is under a wave, smaller tile).
  double waves_weight = 0.25;
  int refit_min_leaves = 1, refit_max_leaves = 10; ///< leaves of a refit tree (drawn uniformly)
  /// With many training shapes, up to one leaf per this many of them when that is more than
  /// refit_max_leaves (0 = never more than refit_max_leaves).
  int refit_shapes_per_leaf = 80;
  double refit_min_penalty = 1.1, refit_max_penalty = 1.6; ///< assumed unmeasured slowdown
  double refit_bootstrap = 0.5; ///< chance a refit fits on a random 80% of the shapes
  /// The features every refit may split on (drawing a subset per refit, as an earlier knob did,
  /// generalized worse: docs/notebook, "Refit features: all of them"). The order breaks ties: where
  /// two features split the training shapes the same way, the tree takes the earlier one, so the
  /// output size and the tile counts (how the grid fills the GPU, what decides an unseen shape's
  /// config) come before M.
  std::vector<Comparison> refit_features{
      Comparison{Feature::MN}, Comparison{Feature::tiles, CmpOp::le, 0, 64, 64},
      Comparison{Feature::tiles, CmpOp::le, 0, 128, 128}, Comparison{Feature::M}};
};

/// `options` with `space` set to the configs the problem's backend has recordings for when it
/// replays a complete recorded table (those are all it can time); unchanged for the analytic
/// model and measured backends, which time any launchable config, and for replays of a
/// measured run's file, which must propose what that run proposed.
MockLlmOptions mock_options_for(const Problem& problem, MockLlmOptions options);

/// Parses split features written as letters ("M", "MN", "MNK", in any order); throws
/// InputError for an empty text, a letter other than M, N, K, or a repeated one.
std::vector<Feature> parse_split_features(std::string_view text);
/// The letters of `features` in M, N, K order ("MNK").
std::string split_features_text(const std::vector<Feature>& features);

/// A reply together with the program its diff is meant to produce (for self-checks).
struct MockProposal {
  MutationReply reply;
  std::optional<Program> child; ///< nullopt when the reply holds no edit
};

/// Deterministic mutator: the same request gives a byte-identical reply.
class MockLlm : public Mutator {
public:
  /// A mock that proposes configs from `gpu`'s config space (launchability checked on `gpu`);
  /// throws std::invalid_argument when options.split_features is empty.
  explicit MockLlm(Gpu gpu, MockLlmOptions options = {});
  /// The name a mock with `options` reports (as recorded in a run's config.json): "mock-llm",
  /// "mock-llm (one-field)", or with other split features "mock-llm (splits on M, N, K)".
  static std::string name_for(const MockLlmOptions& options);
  /// The options (one-field mode, split features) of a name written by name_for; nullopt for
  /// a name no mock writes. The closed config space is not part of the name.
  static std::optional<MockLlmOptions> options_for(std::string_view name);
  /// "mock-llm", or "mock-llm (one-field)" in one-field mode.
  std::string name() const override;
  /// "tweak", "targeted", "threshold", "split", "delete", "crossover" (only "tweak" and
  /// "threshold" in one-field mode).
  std::vector<std::string> operators() const override;
  /// One edit of the parent as reply text; ok=false (never a throw) when the parent does not
  /// parse.
  MutationReply propose(const MutationRequest& request) override;
  /// As propose(), also returning the intended child (applying the reply's diff to the parent
  /// text and parsing the result gives exactly this program).
  MockProposal propose_detailed(const MutationRequest& request) const;
  /// A mock with the same device and options.
  std::unique_ptr<Mutator> fork() const override;

private:
  Gpu gpu_; ///< the device, with its config-space lists sorted ascending
  MockLlmOptions options_;
};

} // namespace tv
