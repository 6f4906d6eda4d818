#pragma once
/// Where two programs part on a shape set: the shapes on which they choose different configs,
/// each with its share of the gap between the two programs' fractions of the oracle. A gap on
/// unseen shapes often comes from a handful of them (a threshold that fell on the wrong side
/// of a test size, a config that breaks down on one misaligned shape); this names them.
#include "eval/score.hpp"
#include "ir/config.hpp"
#include "ir/program.hpp"
#include "ir/shape.hpp"

#include <cstddef>
#include <vector>

namespace tv {

/// One shape on which the two programs choose differently.
struct ShapeGap {
  Shape shape;
  Config a, b;            ///< what the program and the reference choose
  double a_of_oracle = 0; ///< oracle time / the program's time on this shape
  double b_of_oracle = 0; ///< oracle time / the reference's time on this shape
  /// Its share of the set's gap, in points of the fraction of the oracle (positive: the
  /// program gains here): the gap split over the shapes in proportion to each one's weight
  /// share x log(reference time / program time), the terms the weighted geometric means differ
  /// by, so the shares of all shapes sum to the gap.
  double points = 0;
};

/// What shape_gaps found on one shape set.
struct ShapeGaps {
  std::size_t shapes = 0;  ///< shapes in the set
  std::size_t differ = 0;  ///< shapes where the two choose different configs
  std::size_t untimed = 0; ///< of those, shapes where either choice has no time (left out)
  std::size_t gaining = 0; ///< shapes where the program is faster
  std::size_t losing = 0;  ///< shapes where the reference is faster
  double gained = 0;       ///< summed points of the gaining shapes (>= 0)
  double lost = 0;         ///< summed points of the losing shapes (<= 0)
  /// 100 x (program's - reference's fraction of the oracle); 0 when either has no valid score
  double gap = 0;
  std::vector<ShapeGap> losses; ///< the largest losses, largest first
  std::vector<ShapeGap> gains;  ///< the largest gains, largest first

  /// Whether the program is below the reference by one shape alone: the largest loss's share is
  /// at least the whole gap (to rounding), so without that shape it would be at or above the
  /// reference.
  bool lost_to_one_shape() const {
    return gap < 0 && !losses.empty() && losses.front().points <= gap + 1e-9;
  }
};

/// The shapes of `set` where `program` and `reference` choose differently, with the `top`
/// largest losses and gains of `program` against `reference`. `gap` needs both programs to
/// score valid on `set` (it is 0 otherwise) and the shares a valid reference (they are 0
/// otherwise; the shapes are still counted and listed); shapes without a time for either
/// choice are counted in `untimed` and left out.
ShapeGaps shape_gaps(const Scorer& set, const Program& program, const Program& reference,
                     std::size_t top);

} // namespace tv
