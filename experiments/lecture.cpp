#include "experiments/lecture.hpp"

#include "experiments/catalogue.hpp"
#include "experiments/figures.hpp"
#include "experiments/lecture_sections.hpp"
#include "experiments/study_problem.hpp"
#include "ir/error.hpp"
#include "ir/simplify.hpp"

#include <exception>
#include <limits>
#include <string>

namespace tv {

namespace {

double time_of(const Problem& p, std::size_t row, const Config& c) {
  const int col = p.table->config_index(c);
  return col < 0 ? std::numeric_limits<double>::infinity() : p.table->time(row, std::size_t(col));
}

/// The plots' words in the catalogue's language.
FigureWords figure_words(const Catalogue& cat) {
  FigureWords w;
  w.programs_proposed = cat.text("plot.programs_proposed");
  w.best_train_speedup = cat.text("plot.best_train_speedup");
  // The legend's named arguments stay for figures.cpp to fill.
  w.median_band = cat.text("plot.median_band", {{"name", "{name}"}, {"seeds", "{seeds}"}});
  w.speedup = cat.text("plot.speedup");
  w.expert = cat.text("method.expert");
  w.oracle = cat.text("method.oracle");
  w.kernel_runs_log = cat.text("plot.kernel_runs_log");
  w.kernel_runs = cat.text("plot.kernel_runs");
  w.no_data = cat.text("plot.no_data");
  return w;
}

} // namespace

LectureResult run_lecture(const LectureOptions& options) {
  check_seeds_and_budget(options.seeds, options.budget);
  const Catalogue cat = load_catalogue(options.lang);
  LectureResult r;
  r.options = options;
  // The two splits share one table (built once, on every thread); their baselines are
  // computed side by side.
  ProblemSpec spec;
  spec.gpu = options.gpu;
  spec.split = "random";
  std::unique_ptr<Problem> problems[2];
  problems[0] = load_problem(spec);
  problems[1] = resplit(*problems[0], options.model_split, 0);
  StudyProblem loaded[2];
  std::exception_ptr failed[2];
#pragma omp parallel for schedule(static, 1) num_threads(2) if (options.threads != 1)
  for (int i = 0; i < 2; ++i) {
    try {
      loaded[i] = study_problem(std::move(problems[i]));
    } catch (...) {
      failed[i] = std::current_exception();
    }
  }
  for (const auto& e : failed)
    if (e) std::rethrow_exception(e);
  const StudyProblem random = std::move(loaded[0]);
  const StudyProblem by_model = std::move(loaded[1]);
  const Problem& p = *random.problem;
  r.gpu_name = p.gpu.name;
  r.shapes = p.table->shapes().size();
  r.configs = p.table->configs().size();
  r.baselines = random.baselines;

  // Demo 1: oracle rows for a few shapes (those present in the shape set).
  for (const char* label :
       {"llama3-8b:gate_up:M1", "llama3-8b:gate_up:M16", "llama3-8b:gate_up:M128",
        "llama3-8b:gate_up:M1024", "llama3-8b:gate_up:M8192", "llama3-70b-tp8:qkv:M128",
        "llama3-70b-tp8:qkv:M8192"}) {
    const int row = p.table->shape_index(label);
    if (row < 0) continue;
    const auto rr = std::size_t(row);
    OracleRow o;
    o.shape = p.shape(rr);
    const int oc = p.table->oracle_config(rr);
    if (oc < 0) continue;
    o.oracle = p.table->configs()[std::size_t(oc)];
    o.oracle_seconds = p.table->oracle_time(rr);
    o.expert = p.expert.choose(o.shape);
    o.expert_seconds = time_of(p, rr, o.expert);
    for (std::size_t c = 0; c < p.table->configs().size(); ++c)
      if (p.table->time(rr, c) <= o.oracle_seconds * 1.01) ++o.near_ties;
    r.oracle_rows.push_back(o);
  }

  // Demos 2 and 3: every (split, seed) run, in parallel; demo 2 is (random, seed 0).
  std::vector<RunSpec> specs;
  for (const Problem* prob : {random.problem.get(), by_model.problem.get()})
    for (int s = 0; s < options.seeds; ++s) {
      RunSpec spec;
      spec.problem = prob;
      spec.options.seed = std::uint64_t(s);
      spec.options.budget = options.budget;
      specs.push_back(spec);
    }
  std::vector<EvolutionResult> results = run_all(specs, options.threads);
  r.run = results.front();
  r.simplified_equivalent = equivalent(r.run.best.program, r.run.best_simplified);
  r.simplified_train = p.train->score(r.run.best_simplified);
  r.simplified_test = p.test->score(r.run.best_simplified);

  const std::size_t n = std::size_t(options.seeds);
  const std::pair<const StudyProblem*, std::string> splits[] = {{&random, "random"},
                                                                {&by_model, options.model_split}};
  for (std::size_t i = 0; i < 2; ++i) {
    SplitOutcome so;
    so.spec = splits[i].second;
    so.label = split_name(cat, so.spec);
    so.split_seed = splits[i].first->problem->spec.seed;
    so.description = splits[i].first->problem->split_description;
    so.train_shapes = splits[i].first->problem->train_rows.size();
    so.test_shapes = splits[i].first->problem->test_rows.size();
    so.baselines = splits[i].first->baselines;
    std::vector<EvolutionResult> runs(std::make_move_iterator(results.begin() + long(i * n)),
                                      std::make_move_iterator(results.begin() + long((i + 1) * n)));
    so.evolved = summarize_runs("evolved", std::move(runs));
    r.splits.push_back(std::move(so));
  }

  r.cost.counters = r.run.counters;
  r.cost.exhaustive_train = r.run.exhaustive_train_runs;
  r.cost.configs = (long long)r.configs;
  r.cost.exhaustive_all = r.cost.configs * (long long)r.shapes;

  // The report.
  Report& rep = r.report;
  rep.title = cat.text("report.title");
  rep.observations_label = cat.text("report.observations");
  rep.intro = cat.text("report.intro", {{"gpu", p.gpu.name},
                                        {"gpu_full", p.gpu.full_name},
                                        {"budget", std::to_string(options.budget)},
                                        {"seeds", std::to_string(options.seeds)}});
  rep.sections.push_back(lecture_problem_section(r, p, cat));
  rep.sections.push_back(lecture_run_section(r, p, cat));
  rep.sections.push_back(lecture_generalization_section(r, cat));
  rep.sections.push_back(lecture_cost_section(r, cat));

  // Plots.
  const FigureWords words = figure_words(cat);
  const auto& pm = find_baseline(r.baselines, "per_m_table");
  const auto& orc = find_baseline(r.baselines, "oracle");
  const std::string pm_name = cat.text("plot.per_m_table");
  CurveGroup g{cat.text("plot.evolved_random"), {}};
  for (const auto& run : r.splits[0].evolved.runs)
    g.runs.push_back(&run);
  const CatalogueArgs gpu{{"gpu", p.gpu.name}};
  rep.files["best_score_vs_programs.svg"] = score_curve_svg(
      cat.text("plot.score.title", gpu), {g},
      {{pm_name, pm.train.speedup_vs_expert}, {words.oracle, orc.train.speedup_vs_expert}},
      options.budget, words);
  rep.files["speedup_per_test_shape.svg"] = shape_speedup_svg(
      cat.text("plot.shapes.title", gpu), *p.test,
      {{pm_name, *pm.program}, {cat.text("plot.evolved_seed0"), r.run.best.program}}, words);
  rep.files["kernel_runs.svg"] =
      cost_svg(cat.text("plot.cost.title", gpu),
               {{cat.text("plot.cost.evolution"), double(r.cost.counters.kernel_runs)},
                {cat.text("plot.cost.exhaustive_train"), double(r.cost.exhaustive_train)},
                {cat.text("plot.cost.exhaustive_all"), double(r.cost.exhaustive_all)}},
               words);
  return r;
}

} // namespace tv
