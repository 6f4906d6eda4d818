#include "experiments/ablation.hpp"

#include "eval/report_format.hpp"
#include "experiments/figures.hpp"
#include "experiments/study_problem.hpp"
#include "ir/error.hpp"

#include <cmath>
#include <fmt/format.h>

namespace tv {

namespace {

constexpr std::pair<AblationKind, std::string_view> kNames[] = {
    {AblationKind::operators, "operators"},
    {AblationKind::cascade, "cascade"},
    {AblationKind::database, "database"},
    {AblationKind::features, "features"}};

/// The two arms of an ablation: the full system first, then the variant without the part.
std::vector<AblationArm> arms_of(AblationKind kind) {
  AblationArm full, without;
  switch (kind) {
  case AblationKind::operators:
    full.label = "full mock LLM (all operators)";
    without.label = "one-field edits only";
    without.mutator.one_field_only = true;
    break;
  case AblationKind::cascade:
    full.label = "cascade on (probe stage)";
    without.label = "cascade off";
    without.options.cascade.enabled = false;
    break;
  case AblationKind::database:
    full.label = fmt::format("database with {} islands", full.options.database.islands);
    without.options.database.islands = 1;
    without.label = "database with 1 island";
    break;
  case AblationKind::features:
    full.label = "splits bound M";
    without.label = "splits bound M, N or K";
    without.mutator.split_features = {Feature::M, Feature::N, Feature::K};
    break;
  }
  return {full, without};
}

std::string what_is_ablated(AblationKind kind) {
  switch (kind) {
  case AblationKind::operators:
    return "Mutation operators: the full mock LLM (one-field tweaks, coherent register- and "
           "shared-memory-aware retunes, threshold moves, rule splits, deletions, crossover) "
           "against a mock that changes only one config field or one constant per proposal, "
           "the 'small LLM' of the lecture.";
  case AblationKind::cascade:
    return "The cascaded evaluator: with the probe stage, a child that clearly loses to its "
           "parent on a few probe shapes is stopped before it is timed on all training shapes; "
           "without it, every launchable child is fully timed.";
  case AblationKind::database:
    return "The program database: several islands evolving apart with periodic migration, "
           "against a single population.";
  case AblationKind::features:
    return "What a rule split may bound: the token count M only (the default), against M, N and "
           "K, which lets rules single out layers by their output width or reduction depth.";
  }
  return "";
}

std::string range_cell(const Spread& s, bool fraction) {
  if (fraction) return format_range(format_percent(s.min), format_percent(s.max));
  return format_range(format_thousands(std::llround(s.min)), format_thousands(std::llround(s.max)));
}

/// The sentence that interprets the differences; words chosen from their signs, no numbers.
std::string interpretation(AblationKind kind, const SeedStudy& a, const SeedStudy& b) {
  const double dtest = b.test_fraction.median - a.test_fraction.median;
  const double dtrain = b.train_fraction.median - a.train_fraction.median;
  const double druns = b.kernel_runs.median - a.kernel_runs.median;
  const bool kept = std::abs(dtest) < 0.01;
  switch (kind) {
  case AblationKind::operators:
    if (dtrain < -0.005)
      return " One-field edits climb less far on the training shapes: many good moves need "
             "several fields changed together (a bigger tile needs more warps to stay "
             "launchable), which is what a stronger LLM brings.";
    if (dtrain > 0.005)
      return " Here one-field edits climbed as far or further: with this budget the search "
             "was not limited by the kind of edit.";
    return " The kind of edit made little difference to the training score here.";
  case AblationKind::cascade:
    if (druns > 0)
      return kept ? " The probe stage saves kernel runs and the quality on test stays within "
                    "one point: cheap stages first pay off."
                  : " The probe stage saves kernel runs, but the test quality moved by more than "
                    "one point: some stopped children would have led somewhere.";
    return " The probe stage saved no kernel runs here.";
  case AblationKind::database:
    if (dtrain < -0.005)
      return " A single population climbs less far: islands keep several lineages alive "
             "instead of converging on one.";
    if (dtrain > 0.005)
      return " A single population climbed further on the training shapes with this budget: "
             "islands spread the programs over separate lineages, which costs early progress.";
    return " The number of islands made little difference to the training score here.";
  case AblationKind::features:
    if (dtrain > 0.005 && dtest < 0.005)
      return " Bounds on N and K fit the training shapes more closely without the same gain on "
             "the unseen ones: they single out layers the training half happens to hold.";
    if (dtest > 0.005) return " Here bounds on N and K also paid off on the unseen shapes.";
    return " Bounds on N and K made little difference here.";
  }
  return "";
}

/// Whether the seeds separate the two arms on test, in words.
std::string overlap(const SeedStudy& a, const SeedStudy& b) {
  const bool overlap = std::max(a.test_fraction.min, b.test_fraction.min) <=
                       std::min(a.test_fraction.max, b.test_fraction.max);
  return overlap ? " The test ranges over the seeds overlap, so on test the seeds do not "
                   "separate the two variants."
                 : " The test ranges over the seeds do not overlap.";
}

} // namespace

std::string_view ablation_name(AblationKind k) {
  for (const auto& [kind, name] : kNames)
    if (kind == k) return name;
  return "operators";
}

std::optional<AblationKind> parse_ablation(std::string_view name) {
  for (const auto& [kind, n] : kNames)
    if (n == name) return kind;
  return std::nullopt;
}

AblationResult run_ablation(AblationKind kind, const AblationOptions& options) {
  check_seeds_and_budget(options.seeds, options.budget);
  AblationResult r;
  r.kind = kind;
  r.options = options;
  const StudyProblem sp = load_study_problem(options.gpu, options.split);
  const Problem& p = *sp.problem;
  r.split_description = p.split_description;
  r.baselines = sp.baselines;
  r.exhaustive_train = (long long)p.table->configs().size() * (long long)p.train_rows.size();
  r.exhaustive_all = (long long)p.table->configs().size() * (long long)p.table->shapes().size();
  r.arms = arms_of(kind);

  std::vector<RunSpec> specs;
  for (const auto& arm : r.arms)
    for (int s = 0; s < options.seeds; ++s) {
      RunSpec spec;
      spec.problem = &p;
      spec.options = arm.options;
      spec.options.seed = std::uint64_t(s);
      spec.options.budget = options.budget;
      spec.mutator = arm.mutator;
      specs.push_back(spec);
    }
  std::vector<EvolutionResult> results = run_all(specs, options.threads);
  const std::size_t n = std::size_t(options.seeds);
  for (std::size_t a = 0; a < r.arms.size(); ++a)
    r.arms[a].study = summarize_runs(
        r.arms[a].label,
        std::vector<EvolutionResult>(std::make_move_iterator(results.begin() + long(a * n)),
                                     std::make_move_iterator(results.begin() + long((a + 1) * n))));

  // The report.
  const std::string name(ablation_name(kind));
  Report& rep = r.report;
  rep.title = fmt::format("tilevolve ablate {}: {} vs {}", name, r.arms[0].label, r.arms[1].label);
  rep.intro = fmt::format("GPU {} ({}), analytic model; split: {}; mock LLM; {} programs per run, "
                          "seeds 0 to {} for each variant. Every number is computed in this run.",
                          p.gpu.name, p.gpu.full_name, p.split_description, options.budget,
                          options.seeds - 1);
  Section d;
  d.title = fmt::format("Ablation: {}", name);
  d.paragraph(what_is_ablated(kind));
  d.paragraph(
      fmt::format("Medians and ranges (min-max) over {} seeds per variant:", options.seeds));
  ReportTable t{{"variant", "train of oracle", "train range", "test of oracle", "test range",
                 "kernel runs", "kernel runs range", "fully evaluated", "fully evaluated range"},
                {}};
  for (const auto& arm : r.arms) {
    const SeedStudy& s = arm.study;
    t.rows.push_back(
        {arm.label, format_percent(s.train_fraction.median), range_cell(s.train_fraction, true),
         format_percent(s.test_fraction.median), range_cell(s.test_fraction, true),
         format_thousands(std::llround(s.kernel_runs.median)), range_cell(s.kernel_runs, false),
         format_thousands(std::llround(s.full.median)), range_cell(s.full, false)});
  }
  const SeedStudy& A = r.arms[0].study;
  const SeedStudy& B = r.arms[1].study;
  t.rows.push_back(
      {"difference (second - first)",
       format_points(B.train_fraction.median - A.train_fraction.median), "",
       format_points(B.test_fraction.median - A.test_fraction.median), "",
       format_signed(std::llround(B.kernel_runs.median) - std::llround(A.kernel_runs.median)), "",
       format_signed(std::llround(B.full.median) - std::llround(A.full.median)), ""});
  const auto& pm = sp.baseline("per_m_table");
  const auto& orc = sp.baseline("oracle");
  t.rows.push_back({pm.label, fmt_fraction(pm.train), "-", fmt_fraction(pm.test), "-",
                    format_thousands(pm.kernel_runs), "-", "-", "-"});
  t.rows.push_back({"per-shape oracle (bound)", fmt_fraction(orc.train), "-",
                    fmt_fraction(orc.test), "-", format_thousands(orc.kernel_runs), "-", "-", "-"});
  const std::size_t tt = d.table(std::move(t));
  d.figure("best_score_vs_programs.svg", "Best train score against programs proposed, per variant");
  d.figure("speedup_per_test_shape.svg",
           "Speedup over the expert per test shape (seed 0 of each variant)");
  d.figure("kernel_runs.svg", "Kernel runs (median over seeds) vs exhaustive tuning");
  auto c = [&](std::size_t row, std::size_t col) { return CellRef{tt, row, col}; };
  d.observations({d.observe({"From ",
                             c(0, 0),
                             " to ",
                             c(1, 0),
                             " (medians over the seeds)",
                             ": test fraction of the oracle ",
                             c(0, 3),
                             " to ",
                             c(1, 3),
                             " (",
                             c(2, 3),
                             "), train ",
                             c(0, 1),
                             " to ",
                             c(1, 1),
                             " (",
                             c(2, 1),
                             "), kernel runs ",
                             c(0, 5),
                             " to ",
                             c(1, 5),
                             " (",
                             c(2, 5),
                             "), programs fully evaluated ",
                             c(0, 7),
                             " to ",
                             c(1, 7),
                             " (",
                             c(2, 7),
                             ").",
                             interpretation(kind, A, B),
                             overlap(A, B)}),
                  d.observe({"For reference, the per-M table reaches ", c(3, 3),
                             " of the oracle on test and needs ", c(3, 5), " kernel runs."})});
  rep.sections.push_back(std::move(d));

  // Plots.
  std::vector<CurveGroup> groups;
  for (const auto& arm : r.arms) {
    CurveGroup g{arm.label, {}};
    for (const auto& run : arm.study.runs)
      g.runs.push_back(&run);
    groups.push_back(std::move(g));
  }
  rep.files["best_score_vs_programs.svg"] = score_curve_svg(
      fmt::format("Ablation {} ({}): best train score vs programs", name, p.gpu.name), groups,
      {{"per-M table", pm.train.speedup_vs_expert},
       {"per-shape oracle", orc.train.speedup_vs_expert}},
      options.budget);
  std::vector<std::pair<std::string, Program>> programs{{"per-M table", *pm.program}};
  for (const auto& arm : r.arms)
    programs.push_back({arm.label + " (seed 0)", arm.study.runs.front().best.program});
  rep.files["speedup_per_test_shape.svg"] = shape_speedup_svg(
      fmt::format("Ablation {} ({}): speedup over the expert per test shape", name, p.gpu.name),
      *p.test, programs);
  std::vector<std::pair<std::string, double>> bars;
  for (const auto& arm : r.arms)
    bars.push_back({arm.label, arm.study.kernel_runs.median});
  bars.push_back({"exhaustive, training shapes", double(r.exhaustive_train)});
  bars.push_back({"exhaustive, all shapes", double(r.exhaustive_all)});
  rep.files["kernel_runs.svg"] =
      cost_svg(fmt::format("Ablation {} ({}): kernel runs", name, p.gpu.name), bars);
  return r;
}

} // namespace tv
