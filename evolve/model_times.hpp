#pragma once
/// What the analytic model predicts for the configs a run may try, per training shape: the
/// prior of leaf exploration and the table the analytic seed's tree is fitted on.
#include "eval/problem.hpp"
#include "ir/program.hpp"

#include <vector>

namespace tv {

/// The configs polish and exploration may try: the table's on recorded timings, the GPU's
/// launchable space otherwise.
std::vector<Config> config_space(const Problem& problem);

/// Per training shape i (table row problem.train_rows[i] of `train_shapes`), the analytic
/// model's time in seconds of each config of config_space(problem), in its order; +infinity
/// where the pair cannot run (a complete table has no finite time for it; without one, the
/// config does not launch for the shape's dtype) and where the model predicts no finite
/// positive time. The model does not know the vendor library: vendor_config() is priced as the
/// tile its placeholder fields name (128x128x64 w4 s3), a rough stand-in that leaf
/// exploration's prior keeps (without it the H100 vendor-dispatch splits lost 0.02 to 0.07
/// points in each of 6 windows of 20 splits x 5 seeds); a caller that wants only tile configs
/// skips it.
std::vector<std::vector<double>> model_times(const Problem& problem,
                                             const std::vector<Shape>& train_shapes);

} // namespace tv
