#pragma once
/// A tuning problem: GPU, shapes, train/test split, expert program and the time table.
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
  /// Programs may return "vendor" (the vendor library) where the backend times it; the table
  /// then has a vendor column, so the oracle is the best of the tile configs and the library.
  bool vendor_dispatch = false;
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
  /// backend (a "vendor" branch only with vendor dispatch on); empty when the program passes.
  std::vector<StaticIssue> static_issues(const Program& p) const;
  /// The shape of table row `r`.
  const Shape& shape(std::size_t r) const { return table->shapes()[r]; }

private:
  friend std::unique_ptr<Problem> load_problem(const ProblemSpec& spec);
  std::vector<DType> dtypes_;
};

/// Loads files, applies the split, makes the backend, checks the expert statically and
/// builds the table from the backend. Throws InputError for any bad input (naming the file and what
/// was wrong).
std::unique_ptr<Problem> load_problem(const ProblemSpec& spec);

} // namespace tv
