#pragma once
/// Refitting a program from what a run has measured: a small decision tree over the training
/// shapes whose leaves are configs, chosen from the configs timed on those shapes so far (as a
/// kernel engineer reading a table of measurements would regroup the shapes). A pair that was
/// never timed is assumed `penalty` times slower than the fastest time seen for its shape, so
/// the fit prefers what was measured and the evaluation of the child measures the rest.
///
/// With a device's analytic model (RefitChoice::model), the model may weigh in on each leaf's
/// config: where its times order the fitted shapes' measured pairs as the measurements do
/// (Kendall's tau at least kModelPriorTau), each leaf counts kModelPriorShapes pseudo-shapes
/// of the model's log slowdowns (TreeOptions::prior_shapes), so a leaf of few shapes whose
/// measured configs nearly tie takes the one the model ranks first. Where the model orders
/// the measurements little better than chance, it is left out.
#include "evolve/mutator.hpp"
#include "ir/condition.hpp"
#include "ir/program.hpp"
#include "models/gpu.hpp"

#include <optional>
#include <vector>

namespace tv {

/// The knobs of one refit (the mock draws them per proposal).
struct RefitChoice {
  int max_leaves = 8;
  int min_leaf_shapes = 1;
  std::vector<Comparison> features; ///< what the tree may split on (ops and values ignored)
  double penalty = 1.25;            ///< assumed slowdown of an unmeasured pair (> 1)
  std::vector<bool> use;            ///< which feedback shapes take part (empty = all)
  int units = 0;     ///< the GPU's SM/CU count: thresholds at round values (see TreeOptions)
  int lookahead = 0; ///< TreeOptions::lookahead (0: greedy)
  /// The device whose analytic model may weigh in on the leaves' configs (see the file
  /// comment); not owned, read during the call only. nullptr: the measurements alone.
  const Gpu* model = nullptr;
  /// TreeOptions::simplified: false for trees that are only evaluated (choose), never shown.
  bool simplified = true;
};

/// The least Kendall tau between the model's and the measured times at which a refit leans on
/// the model. (The measured tables' taus cluster at 0.2-0.3, where the prior lost, and at
/// 0.5, where it gained: README, "A model prior on refitted leaves".)
inline constexpr double kModelPriorTau = 0.4;
/// The pseudo-shapes of the model's log slowdowns each leaf counts when the model is trusted.
inline constexpr double kModelPriorShapes = 1.0;

/// How the analytic model orders the pairs of configs timed on the same shape.
struct ModelAgreement {
  long long concordant = 0; ///< pairs the model orders as the measurements do
  long long discordant = 0; ///< pairs it orders the other way (ties in either: neither)
  /// Kendall's tau: (concordant - discordant) / (concordant + discordant); 0 with no pairs.
  double tau() const;
  /// Whether a refit leans on the model: some pairs, and tau() >= kModelPriorTau.
  bool trusted() const;
};

/// The agreement of `gpu`'s analytic model with the times in `feedback` (each shape's timed
/// configs, compared pairwise; configs the model cannot launch left out).
ModelAgreement model_agreement(const std::vector<ShapeFeedback>& feedback, const Gpu& gpu);

/// The refitted program, or nullopt when the feedback holds no measurement to fit.
std::optional<Program> refit_program(const std::vector<ShapeFeedback>& feedback,
                                     const RefitChoice& choice);
/// The refitted programs of 1, 2, ..., choice.max_leaves leaves from one fit (element L - 1 is
/// refit_program with max_leaves L); empty when the feedback holds no measurement to fit.
std::vector<Program> refit_sequence(const std::vector<ShapeFeedback>& feedback,
                                    const RefitChoice& choice);
} // namespace tv
