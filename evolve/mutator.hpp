#pragma once
/// What proposes children: a mock LLM or a real one. Both answer a request with reply text
/// holding SEARCH/REPLACE blocks; the IR's diff engine turns that into the child.
#include "eval/measured_configs.hpp"
#include "ir/config.hpp"
#include "ir/program.hpp"
#include "ir/shape.hpp"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tv {

/// How the parent did on one training shape (what an LLM is told about its parent).
struct ShapeFeedback {
  Shape shape;
  Config config;           ///< the parent's choice for this shape
  double seconds = 0;      ///< the parent's time
  double best_seconds = 0; ///< best time seen for this shape so far in the run (<= seconds)
  std::optional<Config> best_config; ///< the config that ran in best_seconds, when known
  double expert_seconds = 0;         ///< the expert's time for this shape (0 when unknown)
  /// The fastest configs timed on this shape so far in the run (seconds, config), fastest
  /// first: what the run has measured, as a prompt would show it (may be empty).
  MeasuredConfigs measured{};
};

/// An earlier child of the same parent and how it ended (fed back into the next prompt).
struct PreviousAttempt {
  std::string op;      ///< operator (or prompt kind) that made it
  std::string stage;   ///< how far it got: a stage name ("diff_failed", "full", ...)
  std::string outcome; ///< one line: block outcomes, parse error line:col, reason or score
};

/// Everything a mutator may use to propose one child.
struct MutationRequest {
  std::string parent_text; ///< the parent's printed program
  /// The parent as a value, when the caller has it: parse_program(parent_text) gives exactly
  /// this program. Valid only while the request is being answered (the evolution points it at
  /// its sampled parent); in-process mutators may read it instead of parsing parent_text.
  const Program* parent_program = nullptr;
  std::vector<std::string> inspiration_texts; ///< other good programs (for crossover)
  double parent_score = 0;                    ///< train speedup over the expert
  std::vector<ShapeFeedback> feedback;        ///< per-shape results of the parent (may be empty)
  std::string previous_outcome;           ///< e.g. "block 1: not_found" for a retry; may be empty
  std::uint64_t seed = 0;                 ///< all randomness of this proposal comes from here
  std::vector<double> inspiration_scores; ///< train speedups of inspiration_texts, same order
  std::string best_text; ///< the best program of the run so far (may equal the parent)
  double best_score = 0; ///< its train speedup over the expert
  std::vector<PreviousAttempt> previous_attempts; ///< this parent's earlier children, oldest first
  int candidate = 0;  ///< index of this proposal among those made for one parent (0-based)
  int candidates = 1; ///< proposals made for this parent in this step (--candidates)
  /// Whether refits of the run's measurements may lean on the device's analytic model
  /// (EvolutionOptions::model_prior; refit.hpp). A language model ignores it.
  bool model_prior = false;
};

/// A mutator's answer.
struct MutationReply {
  std::string op;   ///< operator for accounting: "tweak", "targeted", ..., or "llm"
  std::string text; ///< raw reply: prose and/or fences around SEARCH/REPLACE blocks
  bool ok = true;   ///< false when no reply could be had (transport error, budget spent)
  std::string error;
  long long prompt_tokens = 0, completion_tokens = 0; ///< cost accounting (0 for the mock)
  std::string model;    ///< the model that answered (empty for the mock)
  double latency_s = 0; ///< time spent waiting for the answer, all attempts
  int attempts = 0;     ///< HTTP attempts (0 for the mock)
  /// The child as a value, when the mutator made it as one (the mock): applying `text` to the
  /// request's parent_text and parsing the result gives exactly this program, so the evolution
  /// skips both. Empty for a language model, whose text is always applied and parsed.
  std::optional<Program> child;
};

/// Proposes children. Implementations must be deterministic given the request (the mock)
/// or record their exchanges (a real LLM).
class Mutator {
public:
  virtual ~Mutator() = default;
  /// Short name, e.g. "mock-llm" or "mock-llm (one-field)".
  virtual std::string name() const = 0;
  /// Operator names this mutator can report, in a fixed order (for per-operator counters).
  virtual std::vector<std::string> operators() const = 0;
  /// One proposal; never throws for a bad parent (returns ok=false with an error instead).
  virtual MutationReply propose(const MutationRequest& request) = 0;
  /// Proposals for several requests, replies in request order (a real LLM may have several
  /// requests in flight; what it answered, not when, decides the replies). The default asks
  /// propose() for each in turn.
  virtual std::vector<MutationReply> propose_all(const std::vector<MutationRequest>& requests) {
    std::vector<MutationReply> out;
    out.reserve(requests.size());
    for (const auto& r : requests)
      out.push_back(propose(r));
    return out;
  }
  /// Why this mutator can make no more proposals (a spent budget, a dead server), or "".
  virtual std::string exhausted() const { return ""; }
  /// True when exhausted() means a failure (a server that keeps failing), not a budget spent
  /// as planned: the run did not get what it asked for.
  virtual bool gave_out() const { return false; }
  /// Proposals it may still make (-1 = no limit).
  virtual long long remaining_requests() const { return -1; }
  /// Settings that define its proposals, for the run's config.json (null = none beyond the
  /// name).
  virtual nlohmann::json settings() const { return nullptr; }
  /// State to keep in checkpoints (null = stateless).
  virtual nlohmann::json state() const { return nullptr; }
  /// Restores state() from a checkpoint; throws InputError on a bad state.
  virtual void restore(const nlohmann::json& /*state*/) {}
  /// Cost statistics for the summary and the end event (null = none).
  virtual nlohmann::json stats() const { return nullptr; }
  /// A fresh mutator of the same kind and settings for another search (a cross-validation
  /// fold), or nullptr when this one cannot be copied cheaply (a language model).
  virtual std::unique_ptr<Mutator> fork() const { return nullptr; }
};

} // namespace tv
