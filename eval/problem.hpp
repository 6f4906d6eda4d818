#pragma once
/// A tuning problem: GPU, shapes, train/test split, expert program and the time table.
#include "eval/controller/pool_options.hpp"
#include "eval/score.hpp"
#include "eval/timing_backend.hpp"
#include "ir/program.hpp"
#include "models/gpu.hpp"
#include "models/static_check.hpp"
#include "models/time_table.hpp"
#include "models/workloads/workload.hpp"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tv {

/// The largest leaf limit the decision-tree baseline takes.
inline constexpr int kMaxTreeLeaves = 64;

/// What the user asked for; empty paths mean the embedded defaults.
struct ProblemSpec {
  std::string gpu = "h100";
  /// `gpu` is only a default: a replay backend whose file names its device picks the profile
  /// that matches it instead (the CLI sets this unless --gpu is given).
  bool gpu_is_default = false;
  /// Shape sources, at most one (see workload.hpp). With none: the keys of a replay file, or
  /// data/shapes/lecture.csv.
  std::string shapes;       ///< CSV
  std::string workload_log; ///< hipBLASLt log (HIPBLASLT_LOG_MASK=64)
  std::string model;        ///< model preset, with tp (0 = not given) and tokens ("" = default)
  int tp = 0;
  std::string tokens;
  std::vector<std::string> inline_shapes; ///< "M,N,K[,dtype]" each
  /// Keep threshold: keep the shapes that make up this share of the estimated time (none =
  /// keep all).
  std::optional<double> keep;
  std::string test_shapes; ///< optional CSV: train on all of the shapes, test on this
  std::string split = "random";
  /// Program file; default data/experts/lecture.py (lecture_amd.py on AMD GPUs, h100_inductor.py
  /// with AutoHeuristic replay data).
  std::string expert;
  std::uint64_t seed = 0;           ///< seed of the random split
  std::string backend = "analytic"; ///< timing backend spec (see backend_factory.hpp)
  /// Programs may return "vendor" (the vendor library) where the backend times it; the table
  /// then has a vendor column, so the oracle is the best of the tile configs and the library.
  bool vendor_dispatch = false;
  int tree_leaves = 8; ///< leaf limit of the decision-tree baseline (1 to kMaxTreeLeaves)
  PoolOptions workers; ///< backend "measured": how the workers are started
  std::string cache;   ///< backend "measured": the measurement file (read, then appended)

  /// The shape sources as a WorkloadSpec.
  WorkloadSpec workload() const;
};

/// The spec as JSON (gpu, shapes, test_shapes, split, split_seed, expert, backend, and the
/// other shape sources and keep only when given, so older run configurations stay the same).
nlohmann::json problem_spec_json(const ProblemSpec& s);
/// The inverse of problem_spec_json (missing keys take their defaults; gpu_is_default false).
/// Throws InputError naming `source` for a value of the wrong type.
ProblemSpec problem_spec_from_json(const nlohmann::json& j, const std::string& source);

/// Everything needed to score programs; the table covers train and test shapes.
struct Problem {
  ProblemSpec spec;
  /// Where the shapes came from (a file, "model llama3-70b (tp 8)", "--inline", "the keys of
  /// FILE"), the test shape file, and the expert file.
  std::string shapes_path, test_shapes_path, expert_path;
  Gpu gpu;
  Program expert;
  std::string split_description;
  /// What loading did beyond reading files: where the GPU profile, shapes or expert came from,
  /// a workload reader's summary, the keep threshold's result. One sentence each.
  std::vector<std::string> notes;
  /// Shared with the problems sub_problem() makes of this one (folds of the training shapes).
  std::shared_ptr<TimingBackend> backend;
  std::shared_ptr<TimeTable> table;
  std::vector<std::size_t> train_rows, test_rows;
  std::unique_ptr<Scorer> train, test;
  /// The shapes as their source listed them (after --keep), before the split: what resplit()
  /// splits again. Empty when a test file gives the test shapes.
  std::vector<Shape> source_shapes;

  /// Dtypes present in the shapes (filled once by load_problem).
  const std::vector<DType>& dtypes() const { return dtypes_; }
  /// Stage-0 check: every reachable branch must launch on the GPU and be timeable by the
  /// backend (a "vendor" branch only with vendor dispatch on); empty when the program passes.
  std::vector<StaticIssue> static_issues(const Program& p) const;
  /// The shape of table row `r`.
  const Shape& shape(std::size_t r) const { return table->shapes()[r]; }

private:
  friend std::unique_ptr<Problem> load_problem(const ProblemSpec& spec);
  friend std::unique_ptr<Problem> sub_problem(const Problem& p, std::vector<std::size_t> train_rows,
                                              std::vector<std::size_t> test_rows);
  friend std::unique_ptr<Problem> resplit(const Problem& p, const std::string& split,
                                          std::uint64_t seed);
  std::vector<DType> dtypes_;
};

/// Loads files, applies the split, makes the backend, checks the expert statically and
/// builds the table from the backend. For a backend whose table holds only what it measured
/// (complete_table() false), the expert is measured on every shape first. Throws InputError
/// for any bad input (naming the file and what was wrong), including an expert that does not
/// time on some shape.
std::unique_ptr<Problem> load_problem(const ProblemSpec& spec);
/// For a backend whose table holds only what it measured: times what each of `programs`
/// chooses on every shape (train and test) and, with `full`, every legal config of the
/// profile on every shape, then rebuilds the table and the train/test scorers from the
/// backend. Scorers and evaluators built on the old table must not be used afterwards.
/// Does nothing for a complete backend.
void refresh_table(Problem& p, const std::vector<Program>& programs, bool full = false);
/// A problem on the same table, backend, GPU and expert as `p` whose training and test shapes
/// are the table rows given (e.g. a fold of p's training shapes and the rest of them): what
/// model selection evolves on. Throws InputError when either list is empty or holds a row
/// outside the table.
std::unique_ptr<Problem> sub_problem(const Problem& p, std::vector<std::size_t> train_rows,
                                     std::vector<std::size_t> test_rows);
/// `p` under another split of its source shapes (spec.split and spec.seed replaced): the same
/// table, backend, GPU and expert, so nothing is read or timed again. What a study over split
/// seeds, or a second split of the same shapes, needs. The table keeps p's row order (a
/// checkpoint's row numbers refer to it). Throws InputError for a bad split or a half without
/// weight, as load_problem does; std::invalid_argument when p has a test file or a backend whose
/// table holds only what it measured (complete_table() false).
std::unique_ptr<Problem> resplit(const Problem& p, const std::string& split, std::uint64_t seed);
/// Whether resplit() takes `p`: no test file, a backend with a complete table.
bool can_resplit(const Problem& p);
/// The (shape, config) pairs a full table of `p` has: legal configs x shapes.
long long full_table_pairs(const Problem& p);

} // namespace tv
