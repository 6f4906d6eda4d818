#pragma once
/// One program made of two: `inside` decides the shapes in a box of (M, N, K), `outside` the
/// others. Refit validation uses it to send shapes past the training shapes' box to a tree the
/// folds at the extremes chose, and those inside it to the tree the random folds chose.
#include "ir/condition.hpp"
#include "ir/program.hpp"

namespace tv {

/// A program that returns inside.choose(s) for every shape s in `box` (a 3-dimensional box) and
/// outside.choose(s) for every other shape. Of its two spellings, the one with fewer comparisons
/// (ties: the first): each face of the box (M below its low end, M above its high end, ... ; a
/// face at the end of the feature's range is left out) with outside's rules and default, then
/// inside unchanged; or inside's rules and default, each with the box's bounds added, then
/// outside unchanged.
Program box_split(const Box& box, const Program& inside, const Program& outside);

} // namespace tv
