#pragma once
/// What one proposal of the mock LLM works with: its operators, the edit an operator builds, the
/// proposal's context, and positions in the parent program.
#include "evolve/mock_llm.hpp"
#include "evolve/mutator.hpp"
#include "ir/condition.hpp"
#include "ir/config.hpp"
#include "ir/program.hpp"
#include "ir/rng.hpp"
#include "ir/shape.hpp"
#include "models/gpu.hpp"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace tv::mock {

/// Rules beyond which split and crossover stop adding rules (engineers keep heuristics short).
inline constexpr std::size_t kMaxRules = 12;

/// The mock's edit operators (MockLlm::operators() lists their names).
enum class Op { tweak, targeted, threshold, split, del, crossover, refit, waves };
/// Every operator, in the order MockLlm::operators() lists them.
inline constexpr std::array<Op, 8> kAllOps{Op::tweak, Op::targeted,  Op::threshold, Op::split,
                                           Op::del,   Op::crossover, Op::refit,     Op::waves};

/// The operator's name as a reply reports it ("tweak", ..., "delete" for Op::del, ...).
std::string_view op_name(Op op);

/// A built edit: the child and a few words on what changed.
struct Edit {
  Program child;
  std::string note;
  const ShapeFeedback* focus = nullptr; ///< the feedback shape that motivated it, if any
};

/// Everything one proposal needs.
struct Ctx {
  const Gpu& gpu;
  const MockLlmOptions& options;
  Rng& rng;
  DType dtype;
  const Program& parent;
  const MutationRequest& request;
  std::vector<const ShapeFeedback*> hot; ///< feedback shapes with a loss, worst first
  /// The allowed configs (MockLlmOptions::space) that launch for `dtype`, in the options'
  /// order; empty when the mock may write any config of the GPU's space.
  std::vector<Config> space;
};

/// Rule `i` of `p`'s config, or the default when i == rules.size().
Config& config_at(Program& p, std::size_t i);
const Config& config_at(const Program& p, std::size_t i);
/// Human name of position `i`: "the `if M <= 16` rule" or "the default config".
std::string where(const Program& p, std::size_t i);
/// A bounding box of the shapes that reach position `i` (rule i, or the default when
/// i == rules.size()): its own condition's box, trimmed by earlier rules that cut off a whole
/// end of it along one dimension. Never smaller than the true region.
Box effective_box(const Program& p, std::size_t i);
/// Time lost against the best known time (1 = on par).
double loss(const ShapeFeedback& f);
/// A position to edit (0..rules.size(), the latter meaning the default), guided by the
/// feedback when there is some; `focus` gets the shape that guided it.
std::size_t pick_target(Ctx& x, const ShapeFeedback** focus, double guided = 0.6);

} // namespace tv::mock
