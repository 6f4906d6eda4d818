#pragma once
/// The rule-program IR: an ordered list of rules and a default config.
///
/// Map of ir/: shape.hpp and config.hpp are the input and output types; condition.hpp holds
/// comparisons and their boxes; program.hpp (this file) joins them; text.hpp prints and parses
/// the Python-like text form; diff.hpp applies SEARCH/REPLACE edits to that text;
/// simplify.hpp removes dead and redundant rules exactly; training_range.hpp says where a
/// program's training shapes were (the exports' in_training_range); rng.hpp is the deterministic
/// random source every stochastic part uses. Values are immutable in spirit: edits build new
/// programs, nothing mutates a program another piece holds.
#include "ir/condition.hpp"
#include "ir/config.hpp"

#include <cstddef>
#include <vector>

namespace tv {

/// `if condition: return config`.
struct Rule {
  Condition condition;
  Config config;
  friend bool operator==(const Rule&, const Rule&) = default;
};

/// A tiling heuristic: the first matching rule's config, otherwise the default.
struct Program {
  std::vector<Rule> rules;
  Config default_config;

  /// The config this program returns for `s`.
  const Config& choose(const Shape& s) const;
  /// Index of the rule that decides `s`, or -1 for the default.
  int deciding_rule(const Shape& s) const;
  friend bool operator==(const Program&, const Program&) = default;
};

/// Structural hash: equal programs hash equal; stable across runs and platforms.
std::size_t hash_value(const Program& p);

} // namespace tv

template <> struct std::hash<tv::Program> {
  std::size_t operator()(const tv::Program& p) const noexcept { return tv::hash_value(p); }
};
