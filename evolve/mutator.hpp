#pragma once
/// What proposes children: a mock LLM or a real one. Both answer a request with reply text
/// holding SEARCH/REPLACE blocks; the IR's diff engine turns that into the child.
#include "ir/config.hpp"
#include "ir/shape.hpp"

#include <cstdint>
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
  /// The fastest configs timed on this shape so far in the run (seconds, config), fastest
  /// first: what the run has measured, as a prompt would show it (may be empty).
  std::vector<std::pair<double, Config>> measured;
};

/// Everything a mutator may use to propose one child.
struct MutationRequest {
  std::string parent_text;                    ///< the parent's printed program
  std::vector<std::string> inspiration_texts; ///< other good programs (for crossover)
  double parent_score = 0;                    ///< train speedup over the expert
  std::vector<ShapeFeedback> feedback;        ///< per-shape results of the parent (may be empty)
  std::string previous_outcome; ///< e.g. "block 1: not_found" for a retry; may be empty
  std::uint64_t seed = 0;       ///< all randomness of this proposal comes from here
};

/// A mutator's answer.
struct MutationReply {
  std::string op;   ///< operator for accounting: "tweak", "targeted", ..., or "llm"
  std::string text; ///< raw reply: prose and/or fences around SEARCH/REPLACE blocks
  bool ok = true;   ///< false when no reply could be had (transport error, budget spent)
  std::string error;
  long long prompt_tokens = 0, completion_tokens = 0; ///< cost accounting (0 for the mock)
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
};

} // namespace tv
