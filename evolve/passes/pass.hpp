#pragma once
/// The steps between "the search ended" and "the run returns a program" are passes, as TVM's
/// meta_schedule post-processors are: each has a name, runs on the program the passes before it
/// handed on, may time pairs (the ledger counts them under its name, within the run's cap) and
/// returns a report. The pipeline (pipeline.hpp) lists them in the order they run.
///
/// Map: this file is the interface (PassReport, ReturnedProgram, PassContext, Pass); the
/// ledger is kernel_ledger.hpp; the list and the loop are pipeline.hpp; each pass is one file
/// of this folder named after it (sampled_sizes.cpp, ..., floor.cpp), wrapping the algorithm it
/// runs (evolve/leaf_explore.hpp and the like), which knows nothing of passes.
#include "eval/cascade.hpp"
#include "eval/problem.hpp"
#include "evolve/database.hpp"
#include "evolve/lineage.hpp"
#include "evolve/passes/kernel_ledger.hpp"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

struct EvolutionOptions;

/// What one pass did: the one shape summary.json, the events stream, the checkpoint and the
/// dashboard read.
struct PassReport {
  std::string name;               ///< the pass's name, as --skip-pass takes it
  bool ran = false;               ///< false: skipped (--skip-pass) or not for this run (`why`)
  std::string why;                ///< why it did not run (empty when it ran)
  bool changed = false;           ///< the returned program changed
  long long kernel_runs = 0;      ///< pairs it timed (what the ledger counted under its name)
  double seconds = 0;             ///< its wall time
  std::string summary;            ///< one line for people (empty: nothing to say)
  std::vector<std::string> lines; ///< details, one line each (e.g. each change it made)
  nlohmann::json data = nlohmann::json::object(); ///< its own figures (each pass documents them)

  /// As JSON (`seconds` left out with `with_seconds` false, as checkpoints compare).
  nlohmann::json to_json(bool with_seconds = true) const;
  /// Reads what to_json wrote; throws InputError naming `where` on a bad field.
  static PassReport from_json(const nlohmann::json& j, const char* where = "pass report");
};

/// The program a run returns, as each pass hands it on to the next.
struct ReturnedProgram {
  Candidate best;    ///< the program, its database id (0: not one of the database's) and score
  std::string reply; ///< the mutator reply that produced it (empty: none, or not a search's)
  std::string diff;  ///< its SEARCH/REPLACE blocks, re-formatted
  std::string op;    ///< the operator (or pass) it came from
  /// "front": the searched best; "sampled sizes": another program of the database; "tree N":
  /// a tree of N leaves refitted on the run's measurements.
  std::string selected_from = "front";
};

/// What a pass may read and use: the problem, the run's options, its evaluator (the pairs it
/// timed; timing more goes through the ledger), the search's database and lineage, and the
/// reports of the passes that ran before it.
struct PassContext {
  const Problem& problem;
  const EvolutionOptions& options;
  CascadeEvaluator& eval;
  KernelLedger& ledger;
  const std::vector<Shape>& train_shapes; ///< in problem.train_rows order
  const ProgramDatabase& db;
  const Lineage& lineage;
  /// The reports of the passes before this one (run_pipeline sets it).
  const std::vector<PassReport>* done = nullptr;

  /// The report of the pass `name` that ran before this one, or nullptr.
  const PassReport* report(std::string_view name) const;
  /// A decision tree of at most `leaves` leaves fitted on the pairs the run timed so far, no
  /// others (measured_tree.hpp), leaning on the model where the options let refits do so.
  Program measured_tree(int leaves, int lookahead = 0) const;
  /// The refits' leaf limit: twice the baseline tree's, at most kMaxTreeLeaves.
  int refit_leaves() const;
  /// Times `c` on the training shapes `which` (indices into train_shapes) within `limit` kernel
  /// runs (and the cap), charging what it timed to `pass`.
  Evaluation time_config(const std::string& pass, const Config& c,
                         const std::vector<std::size_t>& which, long long limit);
};

/// One step after the search.
class Pass {
public:
  virtual ~Pass() = default;
  /// Its name: lower case words joined by '-' (what --skip-pass takes).
  virtual const char* name() const = 0;
  /// One line for --help: what it does to the program.
  virtual const char* help() const = 0;
  /// Empty when it runs for this run, else why not (e.g. "no kernel-run cap").
  virtual std::string not_for(const PassContext& ctx) const = 0;
  /// Runs on `result`, changing it or not, and says what it did in a report whose name,
  /// kernel runs, seconds and `changed` the pipeline fills in.
  virtual PassReport run(PassContext& ctx, ReturnedProgram& result) const = 0;
};

} // namespace tv
