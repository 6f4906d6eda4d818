#include "cli/problem_options.hpp"

namespace tv {

void add_gpu_option(CLI::App& cmd, std::string& gpu) {
  cmd.add_option("--gpu", gpu,
                 "GPU profile: a name from data/gpus (h100, h200, mi300x, mi325x, mi355x) or a "
                 "path to a .json profile")
      ->capture_default_str();
}

void add_problem_options(CLI::App& cmd, ProblemSpec& spec, ProblemOptionSet which) {
  const bool all = which == ProblemOptionSet::all;
  add_gpu_option(cmd, spec.gpu);
  cmd.add_option("--shapes", spec.shapes,
                 "shape CSV (name,M,N,K[,dtype][,weight][,layout]); default "
                 "data/shapes/lecture.csv");
  if (all)
    cmd.add_option("--test-shapes", spec.test_shapes,
                   "test on this shape CSV and train on all of --shapes (overrides --split)");
  cmd.add_option("--split", spec.split,
                 all ? "train/test split: random (half/half), random-mnk (half/half keeping each "
                       "(M, N, K) on one side), model:NAME (train on NAME:*), none"
                     : "kind of split: random (half/half) or random-mnk (half/half keeping each "
                       "(M, N, K) on one side)")
      ->capture_default_str();
  if (all)
    cmd.add_option("--split-seed", spec.seed, "seed of the random split")->capture_default_str();
  cmd.add_option("--backend", spec.backend,
                 all ? "timing backend: analytic (the GPU model), replay:FILE (recorded "
                       "measurements), or measured (workers timing a Triton matmul on GPUs; "
                       "evolve only, see --worker-cmd)"
                     : "timing backend: analytic (the GPU model) or replay:FILE (recorded "
                       "measurements)")
      ->capture_default_str();
  cmd.add_option("--expert", spec.expert,
                 "expert program file (the reference); default data/experts/lecture.py, or "
                 "lecture_amd.py on AMD GPUs");
}

} // namespace tv
