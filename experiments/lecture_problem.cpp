// Demo 1 of the lecture: the problem and its baselines.
#include "eval/report_format.hpp"
#include "experiments/lecture_sections.hpp"
#include "experiments/study_problem.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <map>

namespace tv {

namespace {

/// A layer projection: shapes with the same name prefix (before the last ':'), N and K.
struct Layer {
  std::string name;
  std::int64_t N = 0, K = 0;
  std::vector<std::int64_t> Ms;
};

std::vector<Layer> layers_of(const std::vector<Shape>& shapes) {
  std::vector<Layer> out;
  for (const auto& s : shapes) {
    const std::string label = s.label();
    const auto colon = label.rfind(':');
    const std::string name =
        colon == std::string::npos ? fmt::format("N={} K={}", s.N, s.K) : label.substr(0, colon);
    auto it = std::find_if(out.begin(), out.end(), [&](const Layer& l) {
      return l.name == name && l.N == s.N && l.K == s.K;
    });
    if (it == out.end()) {
      out.push_back({name, s.N, s.K, {}});
      it = out.end() - 1;
    }
    it->Ms.push_back(s.M);
  }
  for (auto& l : out) {
    std::sort(l.Ms.begin(), l.Ms.end());
    l.Ms.erase(std::unique(l.Ms.begin(), l.Ms.end()), l.Ms.end());
  }
  return out;
}

std::string join_ints(const std::vector<std::int64_t>& v) {
  std::string s;
  for (auto x : v)
    s += (s.empty() ? "" : ", ") + std::to_string(x);
  return s;
}

/// The observation on the oracle table: the smallest and largest M, and where the expert
/// loses most.
Observation oracle_observation(const LectureResult& r, const Section& d, std::size_t t_oracle,
                               const Catalogue& cat) {
  std::size_t lo = 0, hi = 0, worst = 0;
  for (std::size_t i = 0; i < r.oracle_rows.size(); ++i) {
    const auto& o = r.oracle_rows[i];
    if (o.shape.M < r.oracle_rows[lo].shape.M) lo = i;
    if (o.shape.M > r.oracle_rows[hi].shape.M) hi = i;
    const auto& w = r.oracle_rows[worst];
    if (o.expert_seconds / o.oracle_seconds > w.expert_seconds / w.oracle_seconds) worst = i;
  }
  auto c = [&](std::size_t row, std::size_t col) { return Part(CellRef{t_oracle, row, col}); };
  std::vector<Part> parts =
      cat.parts(r.oracle_rows[lo].near_ties >= 10 ? "demo1.obs.small_m_ties" : "demo1.obs.small_m",
                {{"shape", c(lo, 0)}, {"ties", c(lo, 4)}, {"expert_ratio", c(lo, 6)}});
  if (worst != lo && worst != hi) {
    auto more =
        cat.parts("demo1.obs.worst", {{"shape", c(worst, 0)}, {"expert_ratio", c(worst, 6)}});
    parts.insert(parts.end(), more.begin(), more.end());
  }
  auto last =
      cat.parts("demo1.obs.large_m",
                {{"shape", c(hi, 0)}, {"oracle_config", c(hi, 1)}, {"expert_ratio", c(hi, 6)}});
  parts.insert(parts.end(), last.begin(), last.end());
  return d.observe(parts);
}

} // namespace

Section lecture_problem_section(const LectureResult& r, const Problem& p, const Catalogue& cat) {
  Section d;
  d.title = cat.text("demo1.title");
  const auto layers = layers_of(p.table->shapes());
  std::vector<std::int64_t> all_m;
  for (const auto& l : layers)
    all_m.insert(all_m.end(), l.Ms.begin(), l.Ms.end());
  std::sort(all_m.begin(), all_m.end());
  all_m.erase(std::unique(all_m.begin(), all_m.end()), all_m.end());
  d.paragraph(cat.text("demo1.intro",
                       {{"shapes", std::to_string(r.shapes)},
                        {"layers", std::to_string(layers.size())},
                        {"ms", join_ints(all_m)},
                        {"split", split_description(cat, "random", p.spec.seed, p.train_rows.size(),
                                                    p.test_rows.size(), p.split_description)},
                        {"train", std::to_string(p.train_rows.size())},
                        {"test", std::to_string(p.test_rows.size())},
                        {"configs", format_thousands((long long)r.configs)},
                        {"gpu", p.gpu.name},
                        {"gpu_full", p.gpu.full_name}}));
  ReportTable lt{{cat.text("demo1.layers.layer"), "N", "K", cat.text("demo1.layers.ms")}, {}};
  for (const auto& l : layers)
    lt.rows.push_back({l.name, std::to_string(l.N), std::to_string(l.K), join_ints(l.Ms)});
  d.table(std::move(lt));

  d.paragraph(cat.text("demo1.oracle.intro"));
  ReportTable ot{{cat.text("demo1.oracle.shape"), cat.text("demo1.oracle.config"),
                  cat.text("demo1.oracle.time"), "TFLOP/s", cat.text("demo1.oracle.ties"),
                  cat.text("demo1.oracle.expert_config"), cat.text("demo1.oracle.expert_ratio")},
                 {}};
  for (const auto& o : r.oracle_rows)
    ot.rows.push_back({o.shape.label(), o.oracle.brief(),
                       fmt::format("{:.1f}", o.oracle_seconds * 1e6),
                       fmt::format("{:.0f}", o.shape.flops() / o.oracle_seconds / 1e12),
                       std::to_string(o.near_ties), o.expert.brief(),
                       fmt::format("{:.2f}x", o.expert_seconds / o.oracle_seconds)});
  const std::size_t t_oracle = d.table(std::move(ot));

  d.paragraph(cat.text("demo1.expert.intro",
                       {{"file", std::filesystem::path(p.expert_path).filename().string()}}));
  d.code(print_program(p.expert));

  d.paragraph(cat.text("demo1.baselines.intro"));
  ReportTable bt{{cat.text("demo1.baselines.method"), cat.text("col.train_vs_expert"),
                  cat.text("col.train_of_oracle"), cat.text("col.test_vs_expert"),
                  cat.text("col.test_of_oracle"), cat.text("demo1.baselines.runs")},
                 {}};
  std::string notes;
  std::map<std::string, std::size_t> row_of; // method key -> row: observations cite by name
  for (const auto& m : r.baselines) {
    row_of[m.key] = bt.rows.size();
    bt.rows.push_back({method_name(cat, m), fmt_speedup(m.train), fmt_fraction(m.train),
                       fmt_speedup(m.test), fmt_fraction(m.test), format_thousands(m.kernel_runs)});
    notes += (notes.empty() ? "" : cat.text("list.separator")) +
             cat.text("demo1.baselines.note",
                      {{"method", method_name(cat, m)},
                       {"note", method_cost_note(cat, m, r.configs, p.train_rows.size())}});
  }
  const std::size_t t_base = d.table(std::move(bt));
  d.paragraph(cat.text("demo1.baselines.notes", {{"notes", notes}}));
  const auto& pm = find_baseline(r.baselines, "per_m_table");
  d.paragraph(cat.text("demo1.per_m.intro"));
  d.code(print_program(*pm.program));

  std::vector<Observation> obs;
  if (!r.oracle_rows.empty()) obs.push_back(oracle_observation(r, d, t_oracle, cat));
  auto cell = [&](const char* method, std::size_t col) {
    return Part(CellRef{t_base, row_of.at(method), col});
  };
  obs.push_back(d.observe(
      cat.parts("demo1.obs.baselines", {{"oracle_test_vs_expert", cell("oracle", 3)},
                                        {"oracle_runs", cell("oracle", 5)},
                                        {"per_m_table_runs", cell("per_m_table", 5)},
                                        {"per_m_table_test_of_oracle", cell("per_m_table", 4)},
                                        {"best_single_test_of_oracle", cell("best_single", 4)}})));
  obs.push_back(d.observe(cat.parts("demo1.obs.program", {})));
  d.observations(std::move(obs));
  return d;
}

} // namespace tv
