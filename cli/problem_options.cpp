#include "cli/problem_options.hpp"

#include "cli/number_checks.hpp"

#include "models/gpu.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tv {

namespace {

/// "GPU profile: a name from data/gpus (the profiles there) or a path to a .json profile"; the
/// folder is listed once per process, not once per subcommand.
const std::string& gpu_help() {
  static const std::string text = [] {
    const std::vector<std::string> known = known_gpus();
    return fmt::format("GPU profile, a name from data/gpus ({}) or a path to a .json profile",
                       known.empty() ? std::string("none found")
                                     : fmt::format("{}", fmt::join(known, ", ")));
  }();
  return text;
}

} // namespace

void add_gpu_option(CLI::App& cmd, std::string& gpu) {
  const std::string unusual =
      gpu == kDefaultGpu
          ? ""
          : fmt::format(" (this command's default; the other commands default to {})", kDefaultGpu);
  cmd.add_option("--gpu", gpu, gpu_help() + unusual)->capture_default_str();
}

void warn_if_few_test_shapes(const Problem& p) {
  const std::size_t n = p.test_rows.size();
  if (p.spec.split == "none" || n >= kFewTestShapes) return;
  fmt::print(stderr,
             "tilevolve: warning: the test half holds {} shape{}: a test score on fewer than {} "
             "shapes decides nothing about unseen shapes (give more shapes, or --split none)\n",
             n, n == 1 ? "" : "s", kFewTestShapes);
}

void add_problem_options(CLI::App& cmd, ProblemSpec& spec, ProblemOptionSet which,
                         bool /*model_alias*/) {
  const bool all = which == ProblemOptionSet::all;
  // Without --gpu, a replay file that says what it was measured on picks the profile.
  spec.gpu = kDefaultGpu;
  spec.gpu_is_default = true;
  cmd.add_option_function<std::string>(
         "--gpu",
         [&spec](const std::string& g) {
           spec.gpu = g;
           spec.gpu_is_default = false;
         },
         gpu_help() +
             "; with --backend replay:FILE the default is the profile that matches the device "
             "the file records (a profile that contradicts the file is refused)")
      ->default_str(spec.gpu);
  cmd.add_option("--shapes", spec.shapes,
                 "shape CSV (name,M,N,K[,dtype][,weight][,layout]). Give at most one of "
                 "--shapes, --workload-log, --preset, --inline; with none, the keys of a "
                 "replay file, else data/shapes/lecture.csv");
  cmd.add_option("--workload-log", spec.workload_log,
                 "hipBLASLt log captured with HIPBLASLT_LOG_MASK=64: identical GEMMs merged, "
                 "weight = call_count x batch_count, other types and functions skipped and "
                 "counted (see data/workloads/README.md)");
  cmd.add_option("--preset", spec.model,
                 "model preset from data/models/models.json (llama3-8b, llama3-70b, "
                 "llama3-405b, qwen2.5-7b, qwen2.5-72b, mixtral-8x7b, deepseek-v3, "
                 "gemma2-27b): the GEMMs of one forward pass per token count");
  cmd.add_option("--tp", spec.tp, "tensor parallelism of --preset (shards N or K; default 1)")
      ->check(integer_in(1, 1 << 16));
  cmd.add_option("--tokens", spec.tokens,
                 "token counts M of --preset, e.g. 1,16,128 (default "
                 "1,16,32,64,128,256,512,1024,2048,4096,8192)");
  cmd.add_option("--inline", spec.inline_shapes,
                 "one shape M,N,K[,dtype] (dtype default bf16); repeat for more")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option_function<double>(
         "--keep", [&spec](double share) { spec.keep = share; },
         "keep the shapes that make up this share of the estimated total time (weight x the "
         "analytic model's time on the GPU), e.g. 0.99; default: all shapes")
      ->check(number_in(0, 1));
  cmd.add_option("--test-shapes", spec.test_shapes,
                 all ? "test on this shape CSV and train on all of the shapes (overrides --split)"
                     : "test on this shape CSV and train on all of the shapes: one fixed split, "
                       "the runs differ by seed (overrides --split; --splits must be 1)");
  cmd.add_option("--split", spec.split,
                 all ? "train/test split: random (half/half), random-mnk (half/half keeping each "
                       "(M, N, K) on one side), range (train on one end of a feature, test on "
                       "the other: split seeds 0-7 take M*N*K, M, N, K, smallest then largest "
                       "in training), model:NAME (train on NAME:*), none"
                     : "kind of split: random (half/half), random-mnk (half/half keeping each "
                       "(M, N, K) on one side) or range (train on one end of a feature, test on "
                       "the other: split seeds 0-7 take M*N*K, M, N, K, smallest then largest "
                       "in training, seed 8 as 0 again)")
      ->capture_default_str();
  if (all)
    cmd.add_option("--split-seed", spec.seed, "seed of the random split")
        ->check(integer_in(0, UINT64_MAX))
        ->capture_default_str();
  cmd.add_option("--backend", spec.backend,
                 all ? "timing backend: analytic (the GPU model), replay:FILE (recorded "
                       "measurements; a measured run's file repeats that run), table:FILE (a "
                       "file tilevolve measure wrote, read as a table: the configs it timed on "
                       "every shape), or measured (workers timing a Triton matmul on GPUs; "
                       "evolve only, see --worker-cmd)"
                     : "timing backend: analytic (the GPU model), replay:FILE (recorded "
                       "measurements; a measured run's file repeats that run) or table:FILE (a "
                       "file tilevolve measure wrote, read as a table: the configs it timed on "
                       "every shape)")
      ->capture_default_str();
  cmd.add_flag("--vendor-dispatch", spec.vendor_dispatch,
               "let programs return \"vendor\" (cuBLAS/hipBLASLt) where the backend times the "
               "vendor library (replay data with vendor rows); the oracle becomes the best of the "
               "tile configs and the library");
  cmd.add_option("--tree-leaves", spec.tree_leaves,
                 "leaf limit of the decision-tree baseline (fitted on the exhaustive training "
                 "table on M, N, K, M*N and tile counts)")
      ->check(integer_in(1, kMaxTreeLeaves))
      ->capture_default_str();
  cmd.add_option("--expert", spec.expert,
                 "expert program file (the reference); default data/experts/lecture.py "
                 "(lecture_amd.py on AMD GPUs, h100_inductor.py with AutoHeuristic replay data)");
}

} // namespace tv
