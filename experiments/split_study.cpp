#include "experiments/split_study.hpp"

#include "eval/shape_gaps.hpp"
#include "experiments/spread.hpp"
#include "experiments/study_problem.hpp"
#include "ir/error.hpp"
#include "models/split.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <fmt/format.h>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <omp.h>

namespace tv {

namespace {

double mean(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

/// Sum of squared deviations from the mean.
double sum_of_squares(const std::vector<double>& v) {
  const double m = mean(v);
  double ss = 0;
  for (double x : v)
    ss += (x - m) * (x - m);
  return ss;
}

/// Words for the mean gap against twice its standard error (no figures: those are cited).
std::string verdict(double mean_gap, double se) {
  if (!std::isfinite(se))
    return " With one split there is no estimate of how much the mean would move on others.";
  if (std::abs(mean_gap) <= 2 * se)
    return " The mean is within two standard errors of zero: over these splits the two "
           "generalize equally well as far as this study can tell.";
  return mean_gap > 0 ? " The mean is more than two standard errors above zero: the evolved "
                        "heuristics generalize better."
                      : " The mean is more than two standard errors below zero: the per-M "
                        "table generalizes better.";
}

/// Words for the train gap next to the test gap.
std::string train_words(double train_gap, double test_gap) {
  if (train_gap > test_gap)
    return ", larger than on test: part of what the evolved programs fit on the training shapes "
           "does not carry over to unseen ones.";
  return ", no larger than on test: what the evolved programs fit on the training shapes carries "
         "over to unseen ones at least as well as the per-M table's fit does.";
}

} // namespace

SplitStudyResult run_split_study(const SplitStudyOptions& options) {
  if (options.splits < 1)
    throw InputError(fmt::format("--splits must be at least 1, got {}", options.splits));
  check_seeds_and_budget(options.seeds, options.run.budget);
  const bool fixed = !options.problem.test_shapes.empty();
  if (options.first_split < 0)
    throw InputError(
        fmt::format("--first-split must not be negative, got {}", options.first_split));
  if (fixed && options.first_split != 0)
    throw InputError("--test-shapes names one fixed train/test pair: it has no split seeds, so "
                     "--first-split does not apply");
  if (fixed && options.splits != 1)
    throw InputError(fmt::format("--test-shapes names one fixed train/test pair: --splits must "
                                 "be 1 with it, got {}",
                                 options.splits));
  if (!fixed && options.problem.split != "random" && options.problem.split != "random-mnk" &&
      options.problem.split != "range")
    throw InputError(fmt::format(
        "--split must be random, random-mnk or range for a study over split seeds, got '{}'",
        options.problem.split));
  if (!fixed && options.problem.split == "range" && options.splits > kRangeSplits)
    throw InputError(fmt::format("--split range has {} distinct train/test pairs (split seeds 0 "
                                 "to {}); --splits {} would count some twice",
                                 kRangeSplits, kRangeSplits - 1, options.splits));
  SplitStudyResult r;
  r.options = options;

  // The first split is loaded; the others split the same shapes again on its table (nothing
  // read or timed again) where the backend's table is complete, and get their baselines side
  // by side.
  std::vector<StudyProblem> problems(std::size_t(options.splits));
  ProblemSpec first = options.problem;
  const auto split_seed = [&](int sp) { return std::uint64_t(options.first_split + sp); };
  if (!fixed) first.seed = split_seed(0); // split seeds first_split to first_split + splits - 1
  problems[0] = load_study_problem(first);
  {
    // The stops every run takes (the backend's defaults where not given), resolved once: the
    // runs and the report read them from r.options. (The rule penalty and the switches the
    // analytic model turns off are resolved per run, as each run does.)
    const EvolutionOptions o = with_backend_defaults(options.run, *problems[0].problem);
    r.options.run.stagnation = o.stagnation;
    r.options.run.kernel_runs = o.kernel_runs;
    r.options.run.sampled_sizes = o.sampled_sizes;
  }
  std::vector<std::unique_ptr<Problem>> others;
  for (int sp = 1; sp < options.splits; ++sp) {
    ProblemSpec spec = options.problem;
    spec.seed = split_seed(sp);
    others.push_back(can_resplit(*problems[0].problem)
                         ? resplit(*problems[0].problem, spec.split, spec.seed)
                         : load_problem(spec));
  }
  std::vector<std::exception_ptr> failed(others.size());
  const int nthreads = options.threads > 0 ? options.threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(nthreads) if (others.size() > 1)
  for (std::size_t i = 0; i < others.size(); ++i) {
    try {
      problems[i + 1] = study_problem(std::move(others[i]));
    } catch (...) {
      failed[i] = std::current_exception();
    }
  }
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
  std::vector<RunSpec> specs;
  for (const StudyProblem& p : problems)
    for (int s = 0; s < options.seeds; ++s) {
      RunSpec spec;
      spec.problem = p.problem.get();
      spec.options = r.options.run;
      spec.options.seed = std::uint64_t(s);
      spec.mutator = mock_options_for(*p.problem, options.mutator);
      specs.push_back(spec);
    }
  std::vector<EvolutionResult> results = run_all(specs, options.threads);

  const std::size_t n = std::size_t(options.seeds);
  std::vector<double> gaps, train_gaps, run_gaps, tree_gaps, cost_tree_gaps;
  std::map<std::string, int> one_shape; // runs each test shape alone puts below their tree
  for (std::size_t i = 0; i < problems.size(); ++i) {
    SplitRow row;
    row.split_seed = fixed ? 0 : split_seed(int(i));
    const MethodResult& pm = problems[i].baseline("per_m_table");
    row.per_m_train = pm.train;
    row.per_m_test = pm.test;
    row.best_single_test = problems[i].baseline("best_single").test;
    for (const MethodResult& m : problems[i].baselines)
      if (m.key == "vendor") {
        row.vendor_test = m.test;
        row.vendor_train = m.train;
      }
    const MethodResult& tree = problems[i].baseline("tree");
    row.tree_train = tree.train;
    row.tree_test = tree.test;
    row.evolved = summarize_runs(
        fmt::format("split {}", i),
        std::vector<EvolutionResult>(std::make_move_iterator(results.begin() + long(i * n)),
                                     std::make_move_iterator(results.begin() + long((i + 1) * n))));
    row.gap = row.evolved.test_fraction.median - pm.test.fraction_of_oracle;
    row.tree_gap = row.evolved.test_fraction.median - tree.test.fraction_of_oracle;
    std::vector<double> cost_tree;
    for (const auto& run : row.evolved.runs)
      cost_tree.push_back(
          problems[i].problem->test->score(run.cost_matched_tree).fraction_of_oracle);
    row.cost_tree_test = spread(std::move(cost_tree)).median;
    row.cost_tree_gap = row.evolved.test_fraction.median - row.cost_tree_test;
    cost_tree_gaps.push_back(row.cost_tree_gap);
    for (const auto& run : row.evolved.runs)
      if (run.exhaustive_train_runs > 0)
        row.max_kernel_fraction =
            std::max(row.max_kernel_fraction,
                     double(run.counters.kernel_runs) / double(run.exhaustive_train_runs));
    r.max_kernel_fraction = std::max(r.max_kernel_fraction, row.max_kernel_fraction);
    gaps.push_back(row.gap);
    tree_gaps.push_back(row.tree_gap);
    train_gaps.push_back(row.evolved.train_fraction.median - pm.train.fraction_of_oracle);
    for (const auto& run : row.evolved.runs) {
      run_gaps.push_back(run.best_test.fraction_of_oracle - pm.test.fraction_of_oracle);
      const double run_tree_gap = run.best_test.fraction_of_oracle - tree.test.fraction_of_oracle;
      r.worst_run_tree_gap =
          r.runs == 0 ? run_tree_gap : std::min(r.worst_run_tree_gap, run_tree_gap);
      r.runs_below_tree_by_1pt += run_tree_gap < -0.01;
      ++r.runs;
      if (run_tree_gap < 0 && tree.program) {
        ++r.runs_below_tree;
        const ShapeGaps g =
            shape_gaps(*problems[i].problem->test, run.best.program, *tree.program, 1);
        if (g.lost_to_one_shape()) {
          ++r.runs_below_tree_by_one_shape;
          ++one_shape[g.losses[0].shape.label()];
        }
      }
    }
    const double single = row.best_single_test.fraction_of_oracle;
    r.splits_at_least_best_single += row.evolved.test_fraction.median >= single;
    r.tree_splits_at_least_best_single += row.tree_test.fraction_of_oracle >= single;
    r.rows.push_back(std::move(row));
  }
  r.one_shape_losses.assign(one_shape.begin(), one_shape.end());
  std::stable_sort(r.one_shape_losses.begin(), r.one_shape_losses.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  r.splits_at_least = int(std::count_if(gaps.begin(), gaps.end(), [](double g) { return g >= 0; }));
  r.mean_gap = mean(gaps);
  r.mean_tree_gap = mean(tree_gaps);
  r.splits_at_least_tree =
      int(std::count_if(tree_gaps.begin(), tree_gaps.end(), [](double g) { return g >= 0; }));
  r.mean_tree_gap_se = tree_gaps.size() >= 2
                           ? std::sqrt(sum_of_squares(tree_gaps) / double(tree_gaps.size() - 1) /
                                       double(tree_gaps.size()))
                           : std::numeric_limits<double>::quiet_NaN();
  r.mean_train_gap = mean(train_gaps);
  r.mean_cost_tree_gap = mean(cost_tree_gaps);
  r.splits_at_least_cost_tree = int(
      std::count_if(cost_tree_gaps.begin(), cost_tree_gaps.end(), [](double g) { return g >= 0; }));
  r.run_gap_sd = std::sqrt(sum_of_squares(run_gaps) / double(run_gaps.size()));
  r.mean_gap_se =
      gaps.size() >= 2
          ? std::sqrt(sum_of_squares(gaps) / double(gaps.size() - 1) / double(gaps.size()))
          : std::numeric_limits<double>::quiet_NaN();

  // The report.
  const Problem& p0 = *problems.front().problem;
  r.gpu = p0.gpu.name;
  Report& rep = r.report;
  rep.title =
      fixed ? std::string("tilevolve splits: evolution against the per-M table on one "
                          "fixed train/test pair")
            : fmt::format("tilevolve splits: evolution against the per-M table over {} "
                          "{} splits",
                          options.splits, options.problem.split == "range" ? "range" : "random");
  rep.intro = fmt::format(
      "GPU {} ({}), backend {}, {} shapes from {} {}; on each "
      "split, {} evolution runs (seeds 0 to {}, {} programs each{}{}, {}{}) and the per-M table "
      "built from the same training half.{} Every number is computed in this run.",
      p0.gpu.name, p0.gpu.full_name, p0.backend->name(),
      fixed ? p0.train_rows.size() : p0.train_rows.size() + p0.test_rows.size(), p0.shapes_path,
      fixed ? fmt::format("(all of them for training; tested on {}, one fixed split)",
                          p0.test_shapes_path)
            : fmt::format("split {} with split seeds {} to {}",
                          options.problem.split == "random" ? "random half/half"
                          : options.problem.split == "range"
                              ? "at one end of a feature (range: training on the smallest or "
                                "the largest M*N*K, M, N or K until it holds half of the shapes, "
                                "testing on the other end; no size on both sides)"
                              : "half/half by (M, N, K) (no size on both sides)",
                          options.first_split, options.first_split + options.splits - 1),
      options.seeds, options.seeds - 1, options.run.budget,
      r.options.run.stagnation > 0
          ? fmt::format(" or fewer: a run stops after {} programs without a new best",
                        r.options.run.stagnation)
          : std::string(),
      r.options.run.kernel_runs.any() ? ", " + r.options.run.kernel_runs.describe() : std::string(),
      MockLlm::name_for(options.mutator), options_difference(r.options.run),
      options.problem.vendor_dispatch
          ? " Programs may return the vendor library (--vendor-dispatch), and every fraction is "
            "of min(oracle, vendor library) per shape."
          : "");
  Section d;
  d.title = "Generalization over splits";
  d.paragraph("Fractions of the per-shape oracle; 'evolved' is the median over the seeds, the gap "
              "is evolved test minus per-M test.");
  ReportTable t{{"split seed", "per-M train", "per-M test", "evolved train", "evolved test",
                 "evolved test range", "test gap", "best single config test", "tree test",
                 "gap to tree", "cost-matched tree test", "gap to cost-matched tree",
                 "kernel runs (max)"},
                {}};
  const bool vendor = std::all_of(r.rows.begin(), r.rows.end(),
                                  [](const SplitRow& row) { return row.vendor_test.has_value(); });
  if (vendor) t.header.push_back("vendor library test");
  for (const auto& row : r.rows) {
    t.rows.push_back(
        {std::to_string(row.split_seed), format_percent(row.per_m_train.fraction_of_oracle),
         format_percent(row.per_m_test.fraction_of_oracle),
         format_percent(row.evolved.train_fraction.median),
         format_percent(row.evolved.test_fraction.median),
         format_range(format_percent(row.evolved.test_fraction.min),
                      format_percent(row.evolved.test_fraction.max)),
         format_points(row.gap), format_percent(row.best_single_test.fraction_of_oracle),
         format_percent(row.tree_test.fraction_of_oracle), format_points(row.tree_gap),
         format_percent(row.cost_tree_test), format_points(row.cost_tree_gap),
         fmt::format("{:.1f}%", 100 * row.max_kernel_fraction)});
    if (vendor) t.rows.back().push_back(format_percent(row.vendor_test->fraction_of_oracle));
  }
  const std::size_t tt = d.table(std::move(t));
  ReportTable s{
      {"summary", "value"},
      {{"mean test gap over splits", format_points(r.mean_gap)},
       {"standard error of the mean test gap", std::isfinite(r.mean_gap_se)
                                                   ? fmt::format("{:.1f} pts", 100 * r.mean_gap_se)
                                                   : std::string("n/a")},
       {"splits where the evolved median is at least the per-M table",
        fmt::format("{} of {}", r.splits_at_least, options.splits)},
       {"sd of single-run test gaps", fmt::format("{:.1f} pts", 100 * r.run_gap_sd)},
       {"mean train gap over splits", format_points(r.mean_train_gap)},
       {"mean test gap to the decision tree", format_points(r.mean_tree_gap)},
       {"standard error of the gap to the tree",
        std::isfinite(r.mean_tree_gap_se) ? fmt::format("{:.1f} pts", 100 * r.mean_tree_gap_se)
                                          : std::string("n/a")},
       {"splits where the evolved median is at least the tree",
        fmt::format("{} of {}", r.splits_at_least_tree, options.splits)},
       {"most kernel runs of a run, of exhaustive tuning",
        fmt::format("{:.1f}%", 100 * r.max_kernel_fraction)},
       {"mean test gap to the cost-matched tree", format_points(r.mean_cost_tree_gap)},
       {"splits where the evolved median is at least the cost-matched tree",
        fmt::format("{} of {}", r.splits_at_least_cost_tree, options.splits)},
       {"splits where the evolved median is at least the best single config",
        fmt::format("{} of {}", r.splits_at_least_best_single, options.splits)},
       {"splits where the tree is at least the best single config",
        fmt::format("{} of {}", r.tree_splits_at_least_best_single, options.splits)},
       {"single runs more than 1 point below their split's tree",
        fmt::format("{} of {} (the lowest {})", r.runs_below_tree_by_1pt, r.runs,
                    format_points(r.worst_run_tree_gap))},
       {"single runs below their split's tree by one test shape alone",
        fmt::format("{} of {}{}", r.runs_below_tree_by_one_shape, r.runs_below_tree,
                    r.one_shape_losses.empty()
                        ? std::string()
                        : fmt::format(" (most often {}, in {})", r.one_shape_losses[0].first,
                                      r.one_shape_losses[0].second))}}};
  const std::size_t ts = d.table(std::move(s));
  auto c = [](std::size_t table, std::size_t row, std::size_t col) {
    return CellRef{table, row, col};
  };
  std::vector<Observation> obs;
  obs.push_back(d.observe({"The evolved median test figure minus the per-M table's averages ",
                           c(ts, 0, 1), " over the splits (standard error ", c(ts, 1, 1),
                           ") and is at least the per-M table's on ", c(ts, 2, 1), " splits.",
                           verdict(r.mean_gap, r.mean_gap_se)}));
  obs.push_back(d.observe({"On the training half the mean gap to the per-M table is ", c(ts, 4, 1),
                           train_words(r.mean_train_gap, r.mean_gap)}));
  obs.push_back(d.observe(
      {"Single runs scatter around the per-M table with a standard deviation of ", c(ts, 3, 1),
       ", and the per-M table itself moves from split to split (", c(tt, 0, 2),
       fmt::format(" on split {}, ", r.rows.front().split_seed), c(tt, r.rows.size() - 1, 2),
       " on the last), so a comparison on one split with a few seeds decides little unless "
       "the gap is larger than that scatter."}));
  if (r.rows.front().split_seed == 0)
    obs.push_back(d.observe(
        {"On split 0 (the split of the README's results table) the gap is ", c(tt, 0, 6), "."}));
  obs.push_back(d.observe(
      {"Against the decision tree fitted on the same training half with every config timed on "
       "every training shape, the evolved median's mean gap is ",
       c(ts, 5, 1), " (standard error ", c(ts, 6, 1), "), at least the tree's on ", c(ts, 7, 1),
       " splits; no run used more than ", c(ts, 8, 1), " of the kernel runs the tree needs."}));
  obs.push_back(d.observe(
      {"Against a tree of the same leaf limit fitted only on the pairs each run timed (the same "
       "kernel runs), the mean gap is ",
       c(ts, 9, 1), ", at least that tree's on ", c(ts, 10, 1), " splits."}));
  obs.push_back(
      d.observe({"The evolved median is at least the best single config of the training half on ",
                 c(ts, 11, 1), " splits, the tree on ", c(ts, 12, 1),
                 " (a single config has no threshold to misplace between sizes: the bar where test "
                 "sizes are unseen)."}));
  obs.push_back(d.observe({"One run is what a user gets: single runs more than a point below their "
                           "split's tree are ",
                           c(ts, 13, 1), "."}));
  if (r.runs_below_tree_by_one_shape > 0)
    obs.push_back(d.observe(
        {"One test shape alone accounts for the whole loss of ", c(ts, 14, 1),
         " runs below their split's tree (without it they would be at or above the tree): a "
         "config that collapses there or a threshold on the wrong side of it, not a worse fit; "
         "`tilevolve evolve` with the same split and seed lists where a run and the tree part."}));
  d.observations(std::move(obs));
  rep.sections.push_back(std::move(d));
  return r;
}

} // namespace tv
