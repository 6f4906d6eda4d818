// Demo 2 of the lecture: one evolution run.
#include "eval/report_format.hpp"
#include "evolve/evolution.hpp"
#include "experiments/lecture_sections.hpp"
#include "experiments/study_problem.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <limits>

namespace tv {

namespace {

/// An operator's row in the operator table and its success rate.
struct OpRate {
  std::size_t row;
  double rate;
  std::string op;
};

/// The observation on the operators: which beat their parent most and least often.
Observation operator_observation(const std::vector<OpRate>& rates, const Section& d,
                                 std::size_t t_ops, const Catalogue& cat) {
  auto best = rates.front(), worst = rates.front();
  for (const auto& x : rates) {
    if (x.rate > best.rate) best = x;
    if (x.rate < worst.rate) worst = x;
  }
  auto c = [&](std::size_t row, std::size_t col) { return Part(CellRef{t_ops, row, col}); };
  std::vector<Part> parts = best.rate == worst.rate
                                ? cat.parts("demo2.obs.ops_equal", {{"success", c(best.row, 5)}})
                                : cat.parts("demo2.obs.ops", {{"best_op", c(best.row, 0)},
                                                              {"best_success", c(best.row, 5)},
                                                              {"worst_op", c(worst.row, 0)},
                                                              {"worst_success", c(worst.row, 5)}});
  const auto tweak =
      std::find_if(rates.begin(), rates.end(), [](auto& x) { return x.op == "tweak"; });
  const auto targeted =
      std::find_if(rates.begin(), rates.end(), [](auto& x) { return x.op == "targeted"; });
  if (tweak != rates.end() && targeted != rates.end() && targeted->rate > tweak->rate) {
    auto more = cat.parts("demo2.obs.targeted", {{"targeted_success", c(targeted->row, 5)},
                                                 {"tweak_success", c(tweak->row, 5)}});
    parts.insert(parts.end(), more.begin(), more.end());
  }
  return d.observe(parts);
}

} // namespace

Section lecture_run_section(const LectureResult& r, const Problem& p, const Catalogue& cat) {
  const EvolutionResult& run = r.run;
  const double expert_frac = find_baseline(r.baselines, "expert").train.fraction_of_oracle;
  const auto& oracle = find_baseline(r.baselines, "oracle");
  Section d;
  d.title = cat.text("demo2.title", {{"budget", std::to_string(r.options.budget)}});
  d.paragraph(cat.text("demo2.intro",
                       {{"probes", std::to_string(EvolutionOptions{}.cascade.probe_count)},
                        {"train", std::to_string(p.train_rows.size())},
                        {"split", split_description(cat, "random", p.spec.seed, p.train_rows.size(),
                                                    p.test_rows.size(), p.split_description)}}));

  d.paragraph(cat.text("demo2.improvements.intro"));
  ReportTable it{{cat.text("demo2.col.program"), cat.text("demo2.col.best_train_vs_expert"),
                  cat.text("col.train_of_oracle"), cat.text("demo2.col.operator")},
                 {}};
  const auto& imps = run.improvements;
  auto imp_row = [&](const Improvement& i) {
    return std::vector<std::string>{std::to_string(i.program), format_ratio(i.score),
                                    format_percent(i.score * expert_frac), i.op};
  };
  std::size_t last_imp_row = 0;
  for (std::size_t i = 0; i < imps.size(); ++i) {
    if (imps.size() > 12 && i == 8) it.rows.push_back({"...", "", "", ""});
    if (imps.size() > 12 && i >= 8 && i + 4 < imps.size()) continue;
    it.rows.push_back(imp_row(imps[i]));
    last_imp_row = it.rows.size() - 1;
  }
  const std::size_t t_imp = d.table(std::move(it));

  ReportTable pt{{cat.text("demo2.col.after_programs"), cat.text("demo2.col.best_train_vs_expert"),
                  cat.text("col.train_of_oracle")},
                 {}};
  std::vector<long long> marks{0, r.options.budget / 10, r.options.budget / 4, r.options.budget / 2,
                               run.programs};
  std::sort(marks.begin(), marks.end());
  marks.erase(std::unique(marks.begin(), marks.end()), marks.end());
  std::size_t row_quarter = 0;
  for (long long m : marks) {
    const double best = [&] {
      double b = std::numeric_limits<double>::quiet_NaN();
      for (const auto& i : imps)
        if (i.program <= m && !(i.score <= b)) b = i.score;
      return b;
    }();
    if (m == r.options.budget / 4) row_quarter = pt.rows.size();
    pt.rows.push_back({std::to_string(m), format_ratio(best), format_percent(best * expert_frac)});
  }
  const std::size_t row_end = pt.rows.size() - 1;
  pt.rows.push_back(
      {cat.text("row.oracle_bound"), fmt_speedup(oracle.train), fmt_fraction(oracle.train)});
  const std::size_t row_bound = pt.rows.size() - 1;
  d.paragraph(cat.text("demo2.progress.intro"));
  const std::size_t t_prog = d.table(std::move(pt));
  d.figure("best_score_vs_programs.svg", cat.text("demo2.figure"));

  d.paragraph(cat.text("demo2.operators.intro"));
  ReportTable opt{{cat.text("demo2.col.operator"), cat.text("demo2.col.proposed"),
                   cat.text("demo2.col.full"), cat.text("demo2.col.better"),
                   cat.text("demo2.col.new_best"), cat.text("demo2.col.success")},
                  {}};
  std::vector<OpRate> rates;
  for (const auto& [op, c] : run.per_operator) {
    if (is_run_step(op)) continue; // not operators of the mutator
    const double rate = c.proposed ? double(c.improved) / double(c.proposed) : 0.0;
    if (c.proposed > 0) rates.push_back({opt.rows.size(), rate, op});
    opt.rows.push_back({op, format_thousands(c.proposed), format_thousands(c.full),
                        format_thousands(c.improved), format_thousands(c.new_best),
                        format_percent(rate)});
  }
  const std::size_t t_ops = d.table(std::move(opt));

  d.paragraph(cat.text("demo2.best.intro"));
  ReportTable bt{{cat.text("demo2.col.program"), cat.text("demo2.col.rules"),
                  cat.text("col.train_vs_expert"), cat.text("col.train_of_oracle"),
                  cat.text("col.test_vs_expert"), cat.text("col.test_of_oracle"),
                  cat.text("demo2.col.same_config")},
                 {}};
  bt.rows.push_back({cat.text("demo2.row.evolved"), std::to_string(run.best.program.rules.size()),
                     fmt_speedup(run.best_train), fmt_fraction(run.best_train),
                     fmt_speedup(run.best_test), fmt_fraction(run.best_test), "-"});
  bt.rows.push_back({cat.text("demo2.row.simplified"),
                     std::to_string(run.best_simplified.rules.size()),
                     fmt_speedup(r.simplified_train), fmt_fraction(r.simplified_train),
                     fmt_speedup(r.simplified_test), fmt_fraction(r.simplified_test),
                     cat.text(r.simplified_equivalent ? "word.yes" : "word.no")});
  const std::size_t t_best = d.table(std::move(bt));
  d.code(print_program(run.best_simplified));
  if (!run.best_diff.empty()) {
    d.paragraph(cat.text("demo2.diff.intro", {{"op", run.best_op}}));
    d.code(run.best_diff);
  }

  std::vector<Observation> obs;
  {
    const double s0 = imps.empty() ? 1.0 : imps.front().score;
    const double send = run.best.score;
    double sq = s0;
    for (const auto& i : imps)
      if (i.program <= r.options.budget / 4) sq = std::max(sq, i.score);
    const char* tail = !(send > s0)                   ? "demo2.obs.progress.none"
                       : sq - s0 >= 0.5 * (send - s0) ? "demo2.obs.progress.early"
                                                      : "demo2.obs.progress.steady";
    auto c = [&](std::size_t row, std::size_t col) { return Part(CellRef{t_prog, row, col}); };
    std::vector<Part> parts =
        cat.parts("demo2.obs.progress", {{"start", c(0, 1)},
                                         {"quarter_score", c(row_quarter, 1)},
                                         {"quarter_programs", c(row_quarter, 0)},
                                         {"end_score", c(row_end, 1)},
                                         {"end_programs", c(row_end, 0)},
                                         {"end_of_oracle", c(row_end, 2)},
                                         {"oracle_train_vs_expert", c(row_bound, 1)}});
    auto more = cat.parts(tail, {});
    parts.insert(parts.end(), more.begin(), more.end());
    obs.push_back(d.observe(parts));
  }
  if (!rates.empty()) obs.push_back(operator_observation(rates, d, t_ops, cat));
  obs.push_back(d.observe(
      cat.parts(r.simplified_equivalent ? "demo2.obs.simplified" : "demo2.obs.simplified_changed",
                {{"rules", CellRef{t_best, 0, 1}},
                 {"simplified_rules", CellRef{t_best, 1, 1}},
                 {"simplified_test_of_oracle", CellRef{t_best, 1, 5}}})));
  if (imps.size() > 1 && !run.best_diff.empty())
    obs.push_back(
        d.observe(cat.parts("demo2.obs.diff", {{"op", CellRef{t_imp, last_imp_row, 3}},
                                               {"program", CellRef{t_imp, last_imp_row, 0}}})));
  d.observations(std::move(obs));
  return d;
}

} // namespace tv
