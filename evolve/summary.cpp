#include "evolve/summary.hpp"
#include "ir/number_text.hpp"

#include "eval/analytic_backend.hpp"
#include "eval/report_format.hpp"
#include "eval/shape_gaps.hpp"
#include "eval/text_table.hpp"
#include "eval/training_coverage.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mutators/llm_stats.hpp"
#include "evolve/sampled_sizes.hpp"
#include "ir/exporters/export_info.hpp"
#include "ir/plural.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <optional>

namespace tv {

MethodResult cost_matched_method(const Problem& problem, const EvolutionResult& r) {
  MethodResult m;
  m.key = "tree_cost_matched";
  m.label = fmt::format("decision tree on the run's pairs ({} leaves)",
                        r.cost_matched_tree.rules.size() + 1);
  m.program = r.cost_matched_tree;
  m.train = problem.train->score(r.cost_matched_tree);
  m.test = problem.test->score(r.cost_matched_tree);
  m.kernel_runs = r.counters.kernel_runs;
  m.cost_note = "the evolution's own kernel runs, no more";
  return m;
}

namespace {

/// The decision-tree baseline among `baselines`, or nullptr.
const MethodResult* tree_baseline(const std::vector<MethodResult>& baselines) {
  for (const MethodResult& m : baselines)
    if (m.key == "tree" && m.program) return &m;
  return nullptr;
}

/// The result against the tree on the test shapes; nullopt without test shapes of their own
/// (split "none" tests on the training shapes), a tree, or a valid test score of either.
std::optional<ShapeGaps> test_gaps(const Problem& problem, const EvolutionResult& r,
                                   const std::vector<MethodResult>& baselines) {
  const MethodResult* tree = tree_baseline(baselines);
  if (!tree || !problem.test || problem.test_rows == problem.train_rows || !r.best_test.valid ||
      !tree->test.valid)
    return std::nullopt;
  return shape_gaps(*problem.test, r.best.program, *tree->program, kTestGapShapes);
}

nlohmann::json gap_json(const ShapeGap& g) {
  return {{"shape", g.shape.label()},
          {"M", g.shape.M},
          {"N", g.shape.N},
          {"K", g.shape.K},
          {"config", g.a.brief()},
          {"of_oracle", g.a_of_oracle},
          {"tree_config", g.b.brief()},
          {"tree_of_oracle", g.b_of_oracle},
          {"points", g.points}};
}

/// The report of pass `name` when it ran, else nullptr.
const PassReport* ran(const EvolutionResult& r, std::string_view name) {
  const PassReport* p = r.pass(name);
  return p && p->ran ? p : nullptr;
}

/// The lines of pass `name` (none when it did not run).
std::vector<std::string> pass_lines(const EvolutionResult& r, std::string_view name) {
  const PassReport* p = ran(r, name);
  return p ? p->lines : std::vector<std::string>{};
}

/// The one-line summary of pass `name` ("" when it did not run).
std::string pass_summary(const EvolutionResult& r, std::string_view name) {
  const PassReport* p = ran(r, name);
  return p ? p->summary : std::string();
}

/// The kernel runs of pass `name` (0 when it did not run).
long long pass_runs(const EvolutionResult& r, std::string_view name) {
  const PassReport* p = ran(r, name);
  return p ? p->kernel_runs : 0;
}

/// True when refit validation made a refitted tree the result.
bool tree_returned(const EvolutionResult& r) {
  return r.selected_from.rfind("tree", 0) == 0;
}

/// The leaf configs polish replaced, as the result keeps them (none when a refitted tree
/// replaced the polished program).
std::vector<std::string> polish_lines(const EvolutionResult& r) {
  return tree_returned(r) ? std::vector<std::string>{} : pass_lines(r, "leaf-polish");
}

/// Sampled sizes' figures, or nullptr when it had no choice to make.
const nlohmann::json* sampled_data(const EvolutionResult& r) {
  const PassReport* p = ran(r, "sampled-sizes");
  return p && p->data.contains("figures") && !p->data["figures"].empty() ? &p->data : nullptr;
}

/// Refit validation's figures, or nullptr when it validated nothing.
const nlohmann::json* refit_data(const EvolutionResult& r) {
  const PassReport* p = ran(r, "refit-validation");
  return p && p->data.value("folds", 0) > 0 ? &p->data : nullptr;
}

} // namespace

std::string test_gaps_text(const Problem& problem, const EvolutionResult& r,
                           const std::vector<MethodResult>& baselines) {
  const std::optional<ShapeGaps> g = test_gaps(problem, r, baselines);
  if (!g) return "";
  if (g->differ == 0)
    return fmt::format("On the {} test shapes the result chooses the decision tree's config on "
                       "every one.\n\n",
                       thousands(g->shapes));
  const std::size_t ties = g->differ - g->gaining - g->losing;
  std::string out = fmt::format(
      "Against the decision tree on the {} test shapes: the result chooses another config on {}; "
      "it is faster on {} ({:+.2f} pts together) and slower on {} ({:+.2f} pts), {:+.2f} pts in "
      "all{}.\n",
      thousands(g->shapes), thousands(g->differ), thousands(g->gaining), g->gained,
      thousands(g->losing), g->lost, g->gap,
      ties > 0
          ? fmt::format("; on the other {} the two configs take the same time", thousands(ties))
          : std::string());
  const auto table = [&](const std::vector<ShapeGap>& side, const char* title) {
    if (side.empty()) return;
    out += title;
    TextTable t(
        {"test shape", "result's config", "of oracle", "tree's config", "of oracle", "pts"});
    for (const ShapeGap& x : side)
      t.add({x.shape.label(), x.a.brief(), fmt::format("{:.1f}%", 100 * x.a_of_oracle), x.b.brief(),
             fmt::format("{:.1f}%", 100 * x.b_of_oracle), fmt::format("{:+.2f}", x.points)});
    out += t.str();
  };
  table(g->losses, "Where it loses most (each shape's share of the gap in points):\n");
  table(g->gains, "Where it gains most:\n");
  return out + "\n";
}

nlohmann::json summary_json(const Problem& problem, const EvolutionResult& r,
                            const std::vector<MethodResult>& baselines) {
  nlohmann::json j{{"command", "evolve"}, {"problem", problem_json(problem)}};
  j["best"] = {{"id", r.best.id},
               {"program", print_program(r.best.program)},
               {"simplified", print_program(r.best_simplified)},
               {"rules", r.best.program.rules.size()},
               {"simplified_rules", r.best_simplified.rules.size()},
               {"op", r.best_op},
               {"diff", r.best_diff},
               {"placed_thresholds", pass_lines(r, "threshold-placement")},
               {"wave_guards", pass_lines(r, "wave-guards")},
               {"guard_validation", pass_summary(r, "guard-validation")},
               {"guard_validation_kernel_runs", pass_runs(r, "guard-validation")},
               {"polish", polish_lines(r)},
               {"polish_kernel_runs", pass_runs(r, "leaf-polish")},
               {"exploration", pass_summary(r, "leaf-exploration")},
               {"exploration_kernel_runs", pass_runs(r, "leaf-exploration")}};
  if (const nlohmann::json* sampled = sampled_data(r)) j["sampled_sizes"] = *sampled;
  j["racing"] = {{"stopped", r.counters.race_reject}};
  if (const nlohmann::json* refit = refit_data(r)) j["refit_validation"] = *refit;
  j["passes"] = nlohmann::json::array();
  for (const PassReport& p : r.passes)
    j["passes"].push_back(p.to_json());
  j["model_prior"] = {{"enabled", r.model_prior},
                      {"tau", r.model_agreement.tau()},
                      {"concordant", r.model_agreement.concordant},
                      {"discordant", r.model_agreement.discordant},
                      {"threshold", kModelPriorTau},
                      {"trusted", r.model_agreement.trusted()}};
  j["train"] = score_json(r.best_train);
  j["test"] = score_json(r.best_test);
  // The training range of the exported (simplified) program, read back by tilevolve export.
  const TrainingRange range = problem_training_range(problem, r.best_simplified);
  j["training_range"] = training_range_json(range);
  j["training_range"]["program_hash"] = program_hash_text(r.best_simplified);
  const TestCoverage coverage = test_coverage(problem, r.best_simplified, range);
  j["test_outside_training_range"] = {{"shapes", coverage.shapes}, {"outside", coverage.outside}};
  for (const auto& m : baselines)
    j["baselines"][m.key] = method_json(m);
  const MethodResult cm = cost_matched_method(problem, r);
  j["baselines"][cm.key] = method_json(cm);
  if (const std::optional<ShapeGaps> g = test_gaps(problem, r, baselines)) {
    nlohmann::json& t = j["test_vs_tree"];
    t = {{"shapes", g->shapes},
         {"differ", g->differ},
         {"untimed", g->untimed},
         {"gaining", g->gaining},
         {"losing", g->losing},
         {"gained_points", g->gained},
         {"lost_points", g->lost},
         {"gap_points", g->gap},
         {"lost_to_one_shape", g->lost_to_one_shape()}};
    t["losses"] = t["gains"] = nlohmann::json::array();
    for (const ShapeGap& x : g->losses)
      t["losses"].push_back(gap_json(x));
    for (const ShapeGap& x : g->gains)
      t["gains"].push_back(gap_json(x));
  }
  j["counters"] = r.counters.to_json();
  for (const auto& [op, c] : r.per_operator)
    j["per_operator"][op] = c.to_json();
  j["improvements"] = nlohmann::json::array();
  for (const auto& i : r.improvements)
    j["improvements"].push_back(
        {{"program", i.program}, {"id", i.id}, {"score", i.score}, {"op", i.op}});
  j["programs"] = r.programs;
  j["stop_reason"] = r.stop_reason;
  j["exhaustive_train_runs"] = r.exhaustive_train_runs;
  j["kernel_runs"] = r.counters.kernel_runs;
  j["seconds"] = r.seconds;
  j["resumed"] = r.resumed;
  if (!r.mutator_stats.is_null()) j["llm"] = r.mutator_stats;
  return j;
}

/// How refit validation's cost-complexity chose its charge per leaf (`v`: its report's data).
std::string charge_choice_text(const nlohmann::json& v) {
  const int extreme_folds = v.at("extreme_folds");
  if (extreme_folds == 0)
    return "the charge that did best on the folds, as CART's cost-complexity pruning chooses";
  const int folds_best_leaves = v.at("folds_best_leaves");
  const int off_range = v.value("off_range_leaves", 0);
  return fmt::format(
      "of the {} charges within one standard error of the one that did best on the folds, as "
      "CART's cost-complexity pruning chooses it, the one whose trees did best on {} folds of the "
      "training shapes of the largest and the smallest M, N and K{}; --no-refit-extremes keeps "
      "the best",
      v.at("close_charges").get<int>(), extreme_folds,
      off_range == 0
          ? (folds_best_leaves == v.at("best_leaves").get<int>() // a run before off_range_leaves
                 ? std::string(", the same size")
                 : fmt::format(", where the best alone gives {} leaves", folds_best_leaves))
          : fmt::format(", which gives {}: that tree decides the shapes outside the box of the "
                        "training shapes, the best charge's tree ({}) those inside it",
                        counted(off_range, "leaf", "leaves"),
                        counted(folds_best_leaves, "leaf", "leaves")));
}

std::string model_prior_text(const EvolutionResult& r) {
  const ModelAgreement& a = r.model_agreement;
  const long long pairs = a.concordant + a.discordant;
  if (pairs == 0) return "";
  const std::string agreement = fmt::format(
      "at the end the analytic model orders {:.1f}% of the {} pairs of configs the run timed on "
      "the same training shape as they measured (Kendall's tau {:.2f})",
      100.0 * double(a.concordant) / double(pairs), thousands(pairs), a.tau());
  if (!r.model_prior) return fmt::format("Model prior: off (--no-model-prior); {}.\n\n", agreement);
  return fmt::format(
      "Model prior: each refit of the run's measurements leans on the analytic model where it "
      "orders the timings of the shapes fitted with a Kendall's tau of {:.2f} or more, each leaf "
      "counting one pseudo-shape of the model's log slowdowns; {}, so the result's refits {} "
      "(--no-model-prior refits on the measurements alone).\n\n",
      kModelPriorTau, agreement, a.trusted() ? "leaned on it" : "went by the measurements alone");
}

std::string sampled_text(const EvolutionResult& r) {
  const nlohmann::json* c = sampled_data(r);
  if (!c) return "";
  const auto pct = [](double f) { return fmt::format("{:.1f}%", 100 * f); };
  const std::vector<double> figures = c->at("figures");
  const std::size_t chosen = c->at("chosen");
  std::string out = fmt::format(
      "Sampled sizes: {} programs fit the training shapes within {:g}% of the best; on {} sizes "
      "drawn inside the training shapes' range ({}) and timed ({} kernel runs), ",
      figures.size(), 100 * kSampledTieShare, c->at("sizes").get<int>(),
      c->at("range").get<std::string>(), thousands(c->at("kernel_runs").get<long long>()));
  out += chosen == 0
             ? fmt::format("the searched best was the fastest of them ({} of the fastest "
                           "program's speed on each size, geometric mean)",
                           pct(figures[0]))
             : fmt::format("program #{} was the fastest ({} of the fastest program's speed on "
                           "each size, geometric mean; the searched best {}), so it is the "
                           "result",
                           c->at("candidates").at(chosen).get<std::uint64_t>(),
                           pct(figures[chosen]), pct(figures[0]));
  return out + " (--skip-pass sampled-sizes returns the searched best).\n\n";
}

std::string training_range_summary(const Problem& problem, const EvolutionResult& r) {
  const TrainingRange range = problem_training_range(problem, r.best_simplified);
  const TestCoverage c = test_coverage(problem, r.best_simplified, range);
  if (c.shapes == 0 || problem.test_rows == problem.train_rows) return "";
  return fmt::format(
      "Training range: {} of the {} test shapes lie outside it (the rule that decides them "
      "decided no training shape, or they lie outside the box of M, N and K of the training "
      "shapes it decided); the exports' in_training_range is false there, and the per-shape "
      "view marks them.\n\n",
      thousands(c.outside), thousands(c.shapes));
}

namespace {

/// The methods beside the evolved result, in the order the reports show them: the baselines with
/// the result after the expert and the cost-matched tree before the oracle.
std::vector<MethodResult> method_rows(const Problem& problem, const EvolutionResult& r,
                                      const std::vector<MethodResult>& baselines) {
  MethodResult evo;
  evo.key = "evolved";
  evo.label = fmt::format("evolved (best of {} programs)", r.programs);
  evo.train = r.best_train;
  evo.test = r.best_test;
  evo.kernel_runs = r.counters.kernel_runs;
  std::vector<MethodResult> rows = baselines;
  rows.insert(rows.begin() + std::min<std::ptrdiff_t>(1, std::ptrdiff_t(rows.size())), evo);
  const auto oracle = std::find_if(rows.begin(), rows.end(),
                                   [](const MethodResult& m) { return m.key == "oracle"; });
  rows.insert(oracle, cost_matched_method(problem, r));
  return rows;
}

/// `text` wrapped at `width` columns at spaces.
std::string wrapped(const std::string& text, std::size_t width = 100) {
  std::string out, line;
  std::size_t at = 0;
  while (at < text.size()) {
    std::size_t end = text.find(' ', at);
    if (end == std::string::npos) end = text.size();
    const std::string word = text.substr(at, end - at);
    if (!line.empty() && line.size() + 1 + word.size() > width) {
      out += line + "\n";
      line.clear();
    }
    line += (line.empty() ? "" : " ") + word;
    at = end + 1;
  }
  return out + line + "\n";
}

} // namespace

std::string chosen_line(const EvolutionResult& r) {
  std::string origin;
  if (r.selected_from == "front")
    origin = r.best_op == "seed" || r.best_op.empty()
                 ? "the search's best, a starting program"
                 : fmt::format("the search's best (found by the {} operator)", r.best_op);
  else if (r.selected_from.rfind("tree", 0) == 0)
    origin = fmt::format("a decision tree of {} leaves refitted on the run's measurements, "
                         "which held-out folds preferred to the searched program",
                         r.selected_from.substr(5));
  else if (r.selected_from == "sampled sizes")
    origin = "the database's program fastest on sizes drawn between the training shapes";
  else
    origin = r.selected_from + " (the floor: the result's held-out estimate was lower)";
  std::vector<std::string> changed;
  for (const PassReport& p : r.passes)
    if (p.ran && p.changed && p.name != "floor" && p.name != "refit-validation" &&
        p.name != "sampled-sizes")
      changed.push_back(p.name);
  std::string text = "Chosen: " + origin;
  if (!changed.empty()) {
    text += "; then changed by";
    for (std::size_t i = 0; i < changed.size(); ++i)
      text += (i == 0 ? " " : i + 1 == changed.size() ? " and " : ", ") + changed[i];
  }
  if (const PassReport* f = r.pass("floor");
      f && f->ran && f->data.value("chosen", "") == "the result")
    text += "; the floor kept it";
  return wrapped(text + ".");
}

std::string brief_summary_text(const Problem& problem, const EvolutionResult& r,
                               const std::vector<MethodResult>& baselines) {
  const std::string backend =
      is_analytic(problem.backend.get()) ? std::string("analytic model") : problem.backend->name();
  // The shape file by its name (its directory is in summary.txt); "the keys of FILE" as it is.
  const std::filesystem::path shapes(problem.shapes_path);
  const std::string source =
      std::filesystem::exists(shapes) ? shapes.filename().string() : problem.shapes_path;
  std::string out = wrapped(
      fmt::format("{}, {}, {} shapes of {}; {}: {} train, {} test", problem.gpu.name, backend,
                  thousands((long long)problem.table->shapes().size()), source,
                  problem.split_description, thousands((long long)problem.train_rows.size()),
                  thousands((long long)problem.test_rows.size())));
  out += fmt::format("{} programs in {:.2f} s (stopped: {}); fractions of the per-shape oracle:\n",
                     thousands(r.programs), r.seconds, r.stop_reason);
  const auto fraction = [](const SetScore& s) {
    return s.valid ? fmt::format("{:.1f}%", 100.0 * s.fraction_of_oracle) : std::string("n/a");
  };
  const auto uplift = [](const SetScore& s) {
    return s.valid ? fmt::format("{:.3f}x", s.uplift) : std::string("n/a");
  };
  const std::vector<MethodResult> rows = method_rows(problem, r, baselines);
  // A weighted workload: the fractions are weighted, and the end-to-end uplift beside them.
  const bool weighted = std::any_of(rows.begin(), rows.end(), [](const MethodResult& m) {
    return m.train.weighted || m.test.weighted;
  });
  TextTable t(weighted
                  ? std::vector<std::string>{"method", "train", "train uplift", "test",
                                             "test uplift", "kernel runs to tune"}
                  : std::vector<std::string>{"method", "train", "test", "kernel runs to tune"});
  for (const MethodResult& m : rows)
    t.add(weighted
              ? std::vector<std::string>{m.label, fraction(m.train), uplift(m.train),
                                         fraction(m.test), uplift(m.test), thousands(m.kernel_runs)}
              : std::vector<std::string>{m.label, fraction(m.train), fraction(m.test),
                                         thousands(m.kernel_runs)});
  out += t.str(false);
  out += fmt::format("Best program, {} (simplified; behaviour unchanged):\n{}",
                     counted(long(r.best_simplified.rules.size()), "rule", "rules"),
                     print_program(r.best_simplified));
  out += chosen_line(r);
  if (r.mutator_stats.is_object() && r.mutator_stats.contains("total")) {
    const nlohmann::json& total = r.mutator_stats["total"];
    const auto count = [&](const char* key) {
      return total.contains(key) && total[key].is_number_integer()
                 ? thousands(total[key].get<long long>())
                 : std::string("?");
    };
    out +=
        fmt::format("LLM: {} requests, {} tokens ({} prompt + {} completion).\n", count("requests"),
                    count("tokens"), count("prompt_tokens"), count("completion_tokens"));
  }
  return out;
}

std::string summary_text(const Problem& problem, const EvolutionResult& r,
                         const std::vector<MethodResult>& baselines) {
  std::string out = fmt::format("tilevolve evolve\n{}", problem_header(problem));
  out += fmt::format("{} programs proposed in {:.2f} s (stopped: {}){}\n\n", r.programs, r.seconds,
                     r.stop_reason, r.resumed ? ", resumed from a checkpoint" : "");
  out += methods_table(method_rows(problem, r, baselines)) + "\n";
  out += fmt::format("Best program: {}, {} after simplification (behaviour unchanged):\n{}\n",
                     counted(long(r.best.program.rules.size()), "rule", "rules"),
                     r.best_simplified.rules.size(), print_program(r.best_simplified));
  if (!r.best_diff.empty())
    out += fmt::format("The edit that produced it ({}):\n{}\n", r.best_op, r.best_diff);
  out += chosen_line(r) + "\n";
  out += test_gaps_text(problem, r, baselines);
  out += training_range_summary(problem, r);
  out += sampled_text(r);
  if (const auto a = r.per_operator.find("analytic seed"); a != r.per_operator.end()) {
    const Counters& c = a->second;
    const char* fate = c.full > 0            ? "timed in full, it joined the database"
                       : c.probe_reject > 0  ? "stopped at the probe shapes"
                       : c.race_reject > 0   ? "stopped by the race"
                       : c.over_budget > 0   ? "not timed: its pairs did not fit in the cap"
                       : c.timing_failed > 0 ? "a pair of it failed to time"
                                             : "not timed";
    out += fmt::format(
        "The analytic model's decision tree on the training shapes started the search beside the "
        "expert, raced against it: {} ({}; --no-analytic-seed starts from the expert alone).\n\n",
        fate, counted(c.kernel_runs, "kernel run", "kernel runs"));
  }
  if (const std::string explored = pass_summary(r, "leaf-exploration"); !explored.empty())
    out += fmt::format("Leaf exploration timed configs on the leaves of trees refitted on the "
                       "run's measurements, with what the search left of the kernel-run cap "
                       "(without a cap, at most 1% of exhaustive tuning, never past 4% for the "
                       "run): {} (--skip-pass leaf-exploration times none).\n\n",
                       explored);
  if (const std::vector<std::string> polish = polish_lines(r); !polish.empty()) {
    out += fmt::format("Its leaf configs were polished: each replaced by a config one field away "
                       "that is faster on the training shapes its rule decides ({} kernel runs; "
                       "--skip-pass leaf-polish keeps the searched configs):\n",
                       thousands(pass_runs(r, "leaf-polish")));
    for (const std::string& line : polish)
      out += "  " + line + "\n";
    out += "\n";
  }
  out += model_prior_text(r);
  if (const nlohmann::json* refit = refit_data(r); refit && refit->at("tree_chosen").get<bool>()) {
    const nlohmann::json& v = *refit;
    const double charge = v.at("optimism_charge");
    out += fmt::format(
        "The result is the decision tree of {} leaves refitted on the run's own measurements{}{}, "
        "not the searched program: on held-out folds of the training shapes ({} folds) it gains "
        "{:+.2f}% over the searched program's training figure{} (standard error {:.2f}%; {}"
        "--skip-pass refit-validation keeps the searched program).\n\n",
        v.at("best_leaves").get<int>(),
        v.at("lookahead").get<int>() > 0
            ? " (grown with a two-step lookahead, which did better than greedy growth on the "
              "same folds)"
            : "",
        v.at("complexity").get<bool>()
            ? fmt::format(", as many as a charge of {:.3f}% per leaf gives it ({}; "
                          "--no-refit-complexity takes the folds' best leaf count)",
                          100 * std::expm1(v.at("leaf_charge").get<double>()),
                          charge_choice_text(v))
            : std::string(),
        v.at("folds").get<int>(), 100 * std::expm1(v.at("gain").get<double>()),
        charge > 0 ? fmt::format(" once that figure is lowered by {:.2f}%, the optimism of a "
                                 "refitted tree of as many leaves",
                                 100 * -std::expm1(-charge))
                   : std::string(),
        100 * v.at("standard_error").get<double>(),
        charge > 0 ? "--no-optimism-charge leaves the training figure as it is, " : "");
  }
  if (const std::vector<std::string> placed = pass_lines(r, "threshold-placement");
      !placed.empty()) {
    out += "Its thresholds were moved between the training values they separate (every training "
           "shape keeps its config; --skip-pass threshold-placement keeps them as searched):\n";
    for (const std::string& line : placed)
      out += "  " + line + "\n";
    out += "\n";
  }
  if (const std::vector<std::string> guards = pass_lines(r, "wave-guards"); !guards.empty()) {
    out += "Its rules were kept to the waves of their own tile that their training shapes fill "
           "(an unseen shape whose grid would spill into one more wave, or under a floor fill less "
           "than one, goes on to the later rules, save where a return rule gives it back; every "
           "training shape keeps its config; --skip-pass wave-guards leaves them out, "
           "--no-guard-returns the return rules, --no-wave-floors the floors):\n";
    for (const std::string& line : guards)
      out += "  " + line + "\n";
    out += "\n";
  }
  if (const std::string judged = pass_summary(r, "guard-validation"); !judged.empty()) {
    const long long runs = pass_runs(r, "guard-validation");
    out += fmt::format("Guard validation (guards placed on folds of the training shapes, judged on "
                       "the held-out ones they divert): {}{}.\n\n",
                       judged,
                       runs > 0 ? fmt::format("; {} kernel runs", thousands(runs)) : std::string());
  }
  const Counters& c = r.counters;
  TextTable cost({"cost", "count"});
  cost.add({"programs proposed", thousands(c.proposed)});
  cost.add({"  mutator failed / diff failed / parse failed",
            fmt::format("{} / {} / {}", c.mutator_failed, c.diff_failed, c.parse_failed)});
  cost.add({"  no-op (same as parent or earlier program)", thousands(c.noop)});
  cost.add({"  rejected by the static check", thousands(c.static_reject)});
  cost.add({"  stopped at the probe shapes", thousands(c.probe_reject)});
  if (c.race_reject > 0)
    cost.add({"  stopped by racing on a sample of its new pairs", thousands(c.race_reject)});
  cost.add({"  timing failed", thousands(c.timing_failed)});
  if (c.over_budget > 0)
    cost.add({"  not timed: over the kernel-run budget", thousands(c.over_budget)});
  cost.add({"  fully evaluated", thousands(c.full)});
  cost.add({"kernel runs (timed shape x config pairs)", thousands(c.kernel_runs)});
  cost.add({"cache hits", thousands(c.cache_hits)});
  cost.add(
      {"exhaustive per-shape tuning of the training shapes", thousands(r.exhaustive_train_runs)});
  out += cost.str() + "\n";
  TextTable ops({"operator", "proposed", "full", "better than parent", "new best", "success"});
  for (const auto& [op, oc] : r.per_operator) {
    if (is_run_step(op)) continue;
    ops.add({op, thousands(oc.proposed), thousands(oc.full), thousands(oc.improved),
             thousands(oc.new_best),
             fmt::format("{:.1f}%", oc.proposed ? 100.0 * oc.improved / oc.proposed : 0.0)});
  }
  out += ops.str();
  if (!r.mutator_stats.is_null()) out += "\n" + llm_stats_text(r.mutator_stats);
  return out;
}

} // namespace tv
