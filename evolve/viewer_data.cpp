#include "evolve/viewer_data.hpp"

#include "eval/report_format.hpp"
#include "eval/training_coverage.hpp"
#include "evolve/run_dir.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"

#include <cmath>

namespace tv {

namespace {

/// A finite time, or null (JSON has no infinity).
nlohmann::json time_json(double t) {
  return std::isfinite(t) ? nlohmann::json(t) : nlohmann::json();
}

/// A figure of a score, or null when the score is invalid.
nlohmann::json figure(const SetScore& s, double v) {
  return s.valid ? nlohmann::json(v) : nlohmann::json();
}

/// Time of table row `r` with `c` (+inf when the table lacks the config).
double row_time(const TimeTable& t, std::size_t r, const Config& c) {
  const int col = t.config_index(c);
  return col < 0 ? INFINITY : t.time(r, std::size_t(col));
}

} // namespace

ViewerData::ViewerData(const Problem& problem)
    : problem_(&problem),
      baselines_(compute_baselines(*problem.train, *problem.test, problem.expert,
                                   problem.backend.get(), problem.spec.tree_leaves)) {}

ViewerData::ViewerData(const Problem& problem, std::vector<MethodResult> baselines)
    : problem_(&problem), baselines_(std::move(baselines)) {}

nlohmann::json ViewerData::best_fields(const Program& best) const {
  const SetScore train = problem_->train->score(best);
  const SetScore test = problem_->test->score(best);
  return {{"program", print_program(best)},
          {"test", figure(test, test.speedup_vs_expert)},
          {"train_of_oracle", figure(train, train.fraction_of_oracle)},
          {"test_of_oracle", figure(test, test.fraction_of_oracle)}};
}

nlohmann::json ViewerData::per_shape(std::uint64_t id, const Program& best) const {
  const Problem& p = *problem_;
  const TimeTable& table = *p.table;
  nlohmann::json methods = nlohmann::json::array();
  for (const MethodResult& m : baselines_)
    methods.push_back({{"key", m.key},
                       {"label", m.label},
                       {"train", score_json(m.train)},
                       {"test", score_json(m.test)}});
  methods.push_back({{"key", "best"},
                     {"label", "best program #" + std::to_string(id)},
                     {"train", score_json(p.train->score(best))},
                     {"test", score_json(p.test->score(best))}});

  std::vector<std::string> split(table.shapes().size());
  for (auto r : p.train_rows)
    split[r] = "train";
  for (auto r : p.test_rows)
    split[r] = split[r].empty() ? "test" : split[r] + "+test";
  // The training range the exports ship: that of the simplified program (same decisions).
  const Program shipped = simplify(best);
  const TrainingRange range = problem_training_range(p, shipped);
  nlohmann::json shapes = nlohmann::json::array();
  for (std::size_t r = 0; r < table.shapes().size(); ++r) {
    if (split[r].empty()) continue;
    const Shape& s = table.shapes()[r];
    nlohmann::json times = nlohmann::json::object(), configs = nlohmann::json::object();
    const auto add = [&](const std::string& key, const Config& c) {
      configs[key] = c.brief();
      times[key] = time_json(row_time(table, r, c));
    };
    add("best", best.choose(s));
    for (const MethodResult& m : baselines_)
      if (m.program) add(m.key, m.program->choose(s));
    if (const int oc = table.oracle_config(r); oc >= 0) {
      configs["oracle"] = table.configs()[std::size_t(oc)].brief();
      times["oracle"] = time_json(table.oracle_time(r));
    }
    if (const auto v = p.backend->vendor_time(s)) {
      configs["vendor"] = "vendor";
      times["vendor"] = time_json(*v);
    }
    nlohmann::json row{{"shape", s.label()},
                       {"M", s.M},
                       {"N", s.N},
                       {"K", s.K},
                       {"dtype", dtype_name(s.dtype)},
                       {"weight", s.weight},
                       {"split", split[r]},
                       {"in_training_range", range.contains(shipped, s)},
                       {"configs", configs},
                       {"times", times}};
    if (!s.layout.empty()) row["layout"] = s.layout;
    shapes.push_back(std::move(row));
  }
  return {
      {"format", "tilevolve-per-shape"},
      {"version", 1},
      {"best_id", id},
      {"best_program", print_program(best)},
      {"vendor_dispatch", p.spec.vendor_dispatch},
      {"exhaustive_train_runs", (long long)table.configs().size() * (long long)p.train_rows.size()},
      {"methods", methods},
      {"shapes", shapes}};
}

void ViewerData::write_per_shape(const std::string& dir, std::uint64_t id, const Program& best) {
  if (id == written_id_ && best == written_program_) return;
  atomic_write(dir + "/per_shape.json", per_shape(id, best).dump() + "\n");
  written_id_ = id;
  written_program_ = best;
}

} // namespace tv
