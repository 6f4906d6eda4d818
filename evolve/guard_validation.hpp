#pragma once
/// Guard validation: which of a program's wave guards (ir/wave_guards.hpp) the run's own
/// training shapes support. A guard claims that a shape past the waves a rule's training shapes
/// fill is better served by the later rules. Cross-validation tests that claim where it can be
/// tested: fold by fold, guards placed on the other folds' shapes send some held-out shapes (those
/// past the waves the other folds fill) to a later rule's config. Where the run measured both
/// configs on such a shape, the log of the time the rule's own config took over the diverted
/// config's time is the guard's gain there. A rule keeps its guard unless its diversions lost in
/// sum; a rule without a measured diversion keeps it too (no evidence against the wave model).
/// A rule's floor (ir/wave_guards.hpp) is judged the same way, apart: on the held-out shapes it
/// diverts, those that fill less than a wave of the rule's tile (its guard never diverts them).
#include "ir/program.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

namespace tv {

/// One held-out shape that a fold's guards send to another config.
struct GuardDiversion {
  std::size_t shape = 0; ///< index into the training shapes
  std::size_t rule = 0;  ///< the rule of the unguarded program that decides it
  Config plain;          ///< the unguarded program's config (the rule's)
  Config guarded;        ///< the config the fold's guards send it to
  bool floor = false;    ///< sent by the rule's floor (its tile count under one wave)
};

/// The held-out shapes of `folds` (indices into `shapes`) whose config changes when `p` is
/// guarded on the other folds' shapes (guard_waves with `units`, floors too with `floors`), in
/// fold order. The guards alone, without return rules: the evidence is on each guard's own claim
/// (with them, a rule whose diversions were all given back kept its guard for want of evidence, and
/// sent unseen shapes to tiles no return covers; measured H200 lecture -> six models -0.64 points
/// to the tree against -0.18).
std::vector<GuardDiversion> guard_diversions(const Program& p, const std::vector<Shape>& shapes,
                                             const std::vector<std::vector<std::size_t>>& folds,
                                             int units, bool floors);

/// What the diversions of one rule showed.
struct GuardEvidence {
  int diverted = 0; ///< held-out shapes its fold guards diverted
  int measured = 0; ///< of those, shapes with both configs measured
  double gain = 0;  ///< weighted sum over the measured ones of log(plain time / guarded time)
};

/// Guard validation's verdict on a program.
struct GuardValidation {
  int folds = 0;                     ///< 0: too few shapes, nothing was validated
  std::vector<GuardEvidence> rules;  ///< per rule of the program: its guard's diversions
  std::vector<bool> keep;            ///< per rule: may get a guard (GuardOptions::ceilings)
  std::vector<GuardEvidence> floors; ///< per rule: its floor's diversions
  std::vector<bool> keep_floor;      ///< per rule: may get a floor (GuardOptions::floors)
  /// One line: the diversions tested and the rules whose guards and floors they dropped ("" when
  /// not validated): by their conditions in `program` when given, else by number.
  std::string summary(const Program* program = nullptr) const;
};

/// Judges `diversions` of a program with `rules` rules over `folds` folds: `seconds(d, c)` is
/// the measured time of config `c` on the diversion's shape (+inf or 0 when not measured) and
/// `weight(d)` the shape's weight. A rule's guard (floor) is dropped when the measured gain of
/// the diversions of its guard (floor) is negative.
GuardValidation
judge_guards(std::size_t rules, int folds, const std::vector<GuardDiversion>& diversions,
             const std::function<double(const GuardDiversion&, const Config&)>& seconds,
             const std::function<double(const GuardDiversion&)>& weight);

} // namespace tv
