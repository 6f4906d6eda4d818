// Demo 3 of the lecture: generalization over two splits and seeds.
#include "eval/report_format.hpp"
#include "experiments/lecture_sections.hpp"
#include "experiments/study_problem.hpp"

#include <fmt/format.h>

namespace tv {

namespace {

std::string spread_percent_range(const Spread& s) {
  return format_range(format_percent(s.min), format_percent(s.max));
}

/// Rows of one split in the generalization table.
struct SplitRows {
  std::size_t evolved, per_m;
};

} // namespace

Section lecture_generalization_section(const LectureResult& r, const Catalogue& cat) {
  // "+1.4 pts" with the catalogue's unit.
  auto format_points = [&](double difference) {
    std::string s = tv::format_points(difference);
    const std::string unit = " pts";
    if (s.size() > unit.size() && s.compare(s.size() - unit.size(), unit.size(), unit) == 0)
      s = cat.text("unit.points", {{"value", s.substr(0, s.size() - unit.size())}});
    return s;
  };
  Section d;
  d.title = cat.text("demo3.title", {{"seeds", std::to_string(r.options.seeds)}});
  std::string desc;
  for (const auto& s : r.splits)
    desc +=
        (desc.empty() ? "" : cat.text("list.separator")) +
        split_description(cat, s.spec, s.split_seed, s.train_shapes, s.test_shapes, s.description);
  d.paragraph(cat.text("demo3.intro", {{"last_seed", std::to_string(r.options.seeds - 1)},
                                       {"budget", std::to_string(r.options.budget)},
                                       {"splits", desc}}));
  ReportTable t{{cat.text("demo3.col.split"), cat.text("demo1.baselines.method"),
                 cat.text("col.train_of_oracle"), cat.text("demo3.col.train_range"),
                 cat.text("col.test_of_oracle"), cat.text("demo3.col.test_range"),
                 cat.text("col.test_vs_expert"), cat.text("demo3.col.gap"),
                 cat.text("demo3.col.vs_per_m")},
                {}};
  std::vector<SplitRows> rows;
  for (const auto& s : r.splits) {
    const auto& pm = find_baseline(s.baselines, "per_m_table");
    const auto& orc = find_baseline(s.baselines, "oracle");
    const auto& e = s.evolved;
    rows.push_back({t.rows.size(), t.rows.size() + 1});
    t.rows.push_back({split_name(cat, s.spec),
                      cat.text("demo3.row.evolved", {{"runs", std::to_string(e.runs.size())}}),
                      format_percent(e.train_fraction.median),
                      spread_percent_range(e.train_fraction),
                      format_percent(e.test_fraction.median), spread_percent_range(e.test_fraction),
                      format_ratio(e.test_speedup.median),
                      format_points(e.train_fraction.median - e.test_fraction.median),
                      format_points(e.test_fraction.median - pm.test.fraction_of_oracle)});
    t.rows.push_back({"", method_name(cat, pm), fmt_fraction(pm.train), "-", fmt_fraction(pm.test),
                      "-", fmt_speedup(pm.test),
                      format_points(pm.train.fraction_of_oracle - pm.test.fraction_of_oracle),
                      "-"});
    t.rows.push_back({"", cat.text("row.oracle_bound"), fmt_fraction(orc.train), "-",
                      fmt_fraction(orc.test), "-", fmt_speedup(orc.test),
                      format_points(orc.train.fraction_of_oracle - orc.test.fraction_of_oracle),
                      "-"});
  }
  const std::size_t tt = d.table(std::move(t));
  d.figure("speedup_per_test_shape.svg", cat.text("demo3.figure"));

  auto c = [&](std::size_t row, std::size_t col) { return Part(CellRef{tt, row, col}); };
  std::vector<Observation> obs;
  if (!r.splits.empty()) {
    const auto& a = rows[0];
    const double a_gap =
        r.splits[0].evolved.train_fraction.median - r.splits[0].evolved.test_fraction.median;
    obs.push_back(
        d.observe(cat.parts(a_gap <= 0.03 ? "demo3.obs.random" : "demo3.obs.random_fitted",
                            {{"split", c(a.evolved, 0)},
                             {"random_evolved_test_of_oracle", c(a.evolved, 4)},
                             {"random_evolved_test_range", c(a.evolved, 5)},
                             {"random_evolved_train_of_oracle", c(a.evolved, 2)},
                             {"random_per_m_table_test_of_oracle", c(a.per_m, 4)}})));
  }
  if (r.splits.size() > 1) {
    const auto& a = rows[0];
    const auto& b = rows[1];
    const auto& ra = r.splits[0].evolved;
    const auto& rb = r.splits[1].evolved;
    const double gap_a = ra.train_fraction.median - ra.test_fraction.median;
    const double gap_b = rb.train_fraction.median - rb.test_fraction.median;
    obs.push_back(d.observe(cat.parts(gap_b > gap_a ? "demo3.obs.model" : "demo3.obs.model_easy",
                                      {{"split", c(b.evolved, 0)},
                                       {"model_evolved_test_of_oracle", c(b.evolved, 4)},
                                       {"model_evolved_train_of_oracle", c(b.evolved, 2)},
                                       {"model_per_m_table_test_of_oracle", c(b.per_m, 4)},
                                       {"model_evolved_gap", c(b.evolved, 7)},
                                       {"random_evolved_gap", c(a.evolved, 7)}})));
    const double da = ra.test_fraction.median -
                      find_baseline(r.splits[0].baselines, "per_m_table").test.fraction_of_oracle;
    const double db = rb.test_fraction.median -
                      find_baseline(r.splits[1].baselines, "per_m_table").test.fraction_of_oracle;
    // Within half a tenth of a point counts as level (the cells show one decimal).
    auto sign = [](double x) { return x > 0.0005 ? 1 : x < -0.0005 ? -1 : 0; };
    const int sa = sign(da), sb = sign(db);
    obs.push_back(d.observe(cat.parts(sa <= 0 && sb <= 0   ? "demo3.obs.vs_per_m.behind"
                                      : sa >= 0 && sb >= 0 ? "demo3.obs.vs_per_m.ahead"
                                                           : "demo3.obs.vs_per_m.mixed",
                                      {{"random_evolved_vs_per_m", c(a.evolved, 8)},
                                       {"model_evolved_vs_per_m", c(b.evolved, 8)}})));
  }
  d.observations(std::move(obs));
  return d;
}

} // namespace tv
