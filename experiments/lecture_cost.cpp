// Demo 4 of the lecture: cost accounting of demo 2's run.
#include "experiments/lecture_sections.hpp"

#include <cmath>
#include <fmt/format.h>

namespace tv {

Section lecture_cost_section(const LectureResult& r, const Catalogue& cat) {
  Section d;
  d.title = cat.text("demo4.title");
  const Counters& c = r.cost.counters;
  const long long other =
      c.noop + c.mutator_failed + c.diff_failed + c.parse_failed + c.timing_failed + c.over_budget +
      c.race_reject; // racing needs a kernel-run cap, which the lecture never sets
  const double E = double(r.cost.exhaustive_train);
  ReportTable t{
      {cat.text("demo4.col.item"), cat.text("demo4.col.count"), cat.text("demo4.col.share")}, {}};
  const std::string sub = "  "; // a stage of "programs proposed"
  t.rows = {
      {cat.text("demo4.row.proposed"), format_thousands(c.proposed), ""},
      {sub + cat.text("demo4.row.static"), format_thousands(c.static_reject), ""},
      {sub + cat.text("demo4.row.probe"), format_thousands(c.probe_reject), ""},
      {sub + cat.text("demo4.row.full"), format_thousands(c.full), ""},
      {sub + cat.text("demo4.row.other"), format_thousands(other), ""},
      {cat.text("demo4.row.kernel_runs"), format_thousands(c.kernel_runs),
       format_share(double(c.kernel_runs) / E)},
      {sub + cat.text("demo4.row.cache"), format_thousands(c.cache_hits), ""},
      {cat.text("demo4.row.exhaustive_train"), format_thousands(r.cost.exhaustive_train),
       format_percent(1.0)},
      {cat.text("demo4.row.exhaustive_all"), format_thousands(r.cost.exhaustive_all),
       format_percent(double(r.cost.exhaustive_all) / E)},
      {cat.text("demo4.row.new_shape_heuristic"), "0", ""},
      {cat.text("demo4.row.new_shape_exhaustive"), format_thousands(r.cost.configs), ""},
  };
  const std::size_t t0 = d.table(std::move(t));

  d.paragraph(cat.text("demo4.seeds.intro"));
  ReportTable s{{cat.text("demo3.col.split"), cat.text("demo4.col.runs_median"),
                 cat.text("demo4.col.range"), cat.text("demo4.col.full_median"),
                 cat.text("demo4.col.range"), cat.text("demo4.col.share_median")},
                {}};
  for (const auto& sp : r.splits) {
    const auto& e = sp.evolved;
    const double ex = double(sp.train_shapes) * double(r.configs);
    s.rows.push_back({split_name(cat, sp.spec),
                      format_thousands(std::llround(e.kernel_runs.median)),
                      format_range(format_thousands(std::llround(e.kernel_runs.min)),
                                   format_thousands(std::llround(e.kernel_runs.max))),
                      format_thousands(std::llround(e.full.median)),
                      format_range(format_thousands(std::llround(e.full.min)),
                                   format_thousands(std::llround(e.full.max))),
                      format_share(e.kernel_runs.median / ex)});
  }
  const std::size_t t1 = d.table(std::move(s));
  d.figure("kernel_runs.svg", cat.text("demo4.figure"));
  d.paragraph(cat.text("demo4.alphaevolve"));

  auto c0 = [&](std::size_t row, std::size_t col) { return Part(CellRef{t0, row, col}); };
  std::vector<Observation> obs;
  obs.push_back(d.observe(cat.parts(
      "demo4.obs.cascade",
      {{"proposed", c0(0, 1)}, {"static", c0(1, 1)}, {"probe", c0(2, 1)}, {"full", c0(3, 1)}})));
  std::vector<Part> p2 =
      cat.parts("demo4.obs.kernel_runs",
                {{"kernel_runs", c0(5, 1)}, {"share", c0(5, 2)}, {"exhaustive_train", c0(7, 1)}});
  if (!r.splits.empty()) {
    auto more =
        cat.parts("demo4.obs.kernel_runs.seeds", {{"random_runs_median", CellRef{t1, 0, 1}},
                                                  {"random_share_median", CellRef{t1, 0, 5}}});
    p2.insert(p2.end(), more.begin(), more.end());
  }
  auto end = cat.parts("demo4.obs.kernel_runs.end", {});
  p2.insert(p2.end(), end.begin(), end.end());
  obs.push_back(d.observe(p2));
  obs.push_back(d.observe(
      cat.parts("demo4.obs.new_shape", {{"heuristic", c0(9, 1)}, {"exhaustive", c0(10, 1)}})));
  d.observations(std::move(obs));
  return d;
}

} // namespace tv
