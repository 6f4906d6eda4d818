#pragma once
/// A tuning problem: GPU, shapes, train/test split, expert program and the time table.
#include "eval/controller/pool_options.hpp"
#include "eval/score.hpp"
#include "eval/timing_backend.hpp"
#include "ir/program.hpp"
#include "models/gpu.hpp"
#include "models/static_check.hpp"
#include "models/time_table.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace tv {

/// What the user asked for; empty paths mean the embedded defaults.
struct ProblemSpec {
  std::string gpu = "h100";
  std::string shapes;      ///< CSV; default data/shapes/lecture.csv
  std::string test_shapes; ///< optional CSV: train on all of `shapes`, test on this
  std::string split = "random";
  std::string expert;               ///< program file; default data/experts/lecture.py
  std::uint64_t seed = 0;           ///< seed of the random split
  std::string backend = "analytic"; ///< timing backend spec (see backend_factory.hpp)
  PoolOptions workers;              ///< backend "measured": how the workers are started
  std::string cache; ///< backend "measured": the measurement file (read, then appended)
};

/// Everything needed to score programs; the table covers train and test shapes.
struct Problem {
  ProblemSpec spec;
  std::string shapes_path, test_shapes_path, expert_path;
  Gpu gpu;
  Program expert;
  std::string split_description;
  std::unique_ptr<TimingBackend> backend;
  std::unique_ptr<TimeTable> table;
  std::vector<std::size_t> train_rows, test_rows;
  std::unique_ptr<Scorer> train, test;

  /// Dtypes present in the shapes (filled once by load_problem).
  const std::vector<DType>& dtypes() const { return dtypes_; }
  /// Stage-0 check: every reachable branch must launch on the GPU and be timeable by the
  /// backend; empty when the program passes.
  std::vector<StaticIssue> static_issues(const Program& p) const;
  /// The shape of table row `r`.
  const Shape& shape(std::size_t r) const { return table->shapes()[r]; }

private:
  friend std::unique_ptr<Problem> load_problem(const ProblemSpec& spec);
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
/// The (shape, config) pairs a full table of `p` has: legal configs x shapes.
long long full_table_pairs(const Problem& p);

} // namespace tv
