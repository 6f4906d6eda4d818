#pragma once
/// The mock LLM's edit operators: each builds one edit of the proposal's parent (an Edit) or
/// nullopt when it cannot apply; apply_op dispatches on Op. Every random draw comes from x.rng.
#include "evolve/mutators/mock/context.hpp"

#include <optional>

namespace tv::mock {

/// One field of one config (the shape feedback picks the position 40% of the time) moved to a
/// neighbouring value (tweak_config); nullopt when no field can move.
std::optional<Edit> op_tweak(Ctx& x);
/// A coherent retune of one config: a design for its region, a bigger or smaller tile, a
/// deeper pipeline or other warps (the first variant drawn with weights, the rest tried in a
/// shuffled order), repaired to launch; nullopt when no variant changes the config.
std::optional<Edit> op_targeted(Ctx& x);
/// One comparison of one rule moved to the next natural value up or down (sometimes to a
/// value in between); nullopt when no rule has a comparison.
std::optional<Edit> op_threshold(Ctx& x);
/// A new rule above a position (mostly the one deciding a slow shape): its condition cut once
/// more on M (or an allowed N or K), its config measured best on a shape it takes over, designed
/// for its region, or a tweak; nullopt at kMaxRules rules or when nothing can be cut.
std::optional<Edit> op_split(Ctx& x);
/// One rule, drawn at random, removed; nullopt for a program without rules.
std::optional<Edit> op_delete(Ctx& x);
/// A rule from an inspiration program: its config given to the parent's rule with the same
/// condition, else the rule inserted at a random position; nullopt without inspirations.
std::optional<Edit> op_crossover(Ctx& x);
/// Regroups the training shapes from the run's measurements (see refit.hpp): a tree of a few
/// leaves on M and the derived features, each leaf the config that measured best on its shapes.
std::optional<Edit> op_refit(Ctx& x);
/// What a kernel engineer does when a shape's grid does not fill the GPU: a new rule, above the
/// one that decides it, for the shapes whose grid of that rule's tiles is under a wave (or whose
/// output is as small), with a smaller tile (the fastest smaller one measured on the shape, or
/// the block halved along its longer side).
std::optional<Edit> op_waves(Ctx& x);

/// The edit operator `op` builds (op_tweak for Op::tweak, ...); nullopt when it cannot apply.
std::optional<Edit> apply_op(Ctx& x, Op op);

} // namespace tv::mock
