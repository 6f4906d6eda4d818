#include "cli/baselines_command.hpp"

#include "cli/problem_options.hpp"
#include "eval/baselines.hpp"
#include "eval/report_format.hpp"
#include "eval/text_table.hpp"
#include "ir/text.hpp"

#include <fmt/format.h>
#include <memory>

namespace tv {

namespace {

struct BaselinesOptions {
  ProblemSpec spec;
  bool json = false;
};

void run_baselines(const BaselinesOptions& o) {
  auto p = load_problem(o.spec);
  warn_if_few_test_shapes(*p);
  const auto methods =
      compute_baselines(*p->train, *p->test, p->expert, p->backend.get(), p->spec.tree_leaves);

  // Per-shape view: oracle config and time, and how much slower the expert is.
  std::vector<std::string> split_of(p->table->shapes().size(), "");
  for (auto r : p->train_rows)
    split_of[r] = "train";
  for (auto r : p->test_rows)
    split_of[r] = split_of[r].empty() ? "test" : split_of[r] + "+test";
  nlohmann::json per_shape = nlohmann::json::array();
  TextTable shapes_table(
      {"shape", "M", "N", "K", "split", "oracle config", "time (us)", "TFLOP/s", "expert slower"});
  const auto expert_all = [&] {
    std::vector<double> t;
    for (std::size_t r = 0; r < p->table->shapes().size(); ++r) {
      const int c = p->table->config_index(p->expert.choose(p->shape(r)));
      t.push_back(p->table->time(r, std::size_t(c)));
    }
    return t;
  }();
  for (std::size_t r = 0; r < p->table->shapes().size(); ++r) {
    const Shape& s = p->shape(r);
    const int oc = p->table->oracle_config(r);
    const double to = p->table->oracle_time(r);
    const Config& cfg = p->table->configs()[std::size_t(oc)];
    const double slow = expert_all[r] / to;
    shapes_table.add({s.label(), fmt::format("{}", s.M), fmt::format("{}", s.N),
                      fmt::format("{}", s.K), split_of[r], cfg.brief(),
                      fmt::format("{:.1f}", to * 1e6), fmt::format("{:.0f}", s.flops() / to / 1e12),
                      fmt::format("{:.2f}x", slow)});
    per_shape.push_back({{"shape", s.label()},
                         {"M", s.M},
                         {"N", s.N},
                         {"K", s.K},
                         {"split", split_of[r]},
                         {"weight", s.weight},
                         {"oracle_config", cfg.brief()},
                         {"oracle_time_s", to},
                         {"oracle_tflops", s.flops() / to / 1e12},
                         {"expert_time_s", expert_all[r]},
                         {"expert_slowdown", slow}});
    if (!s.layout.empty()) per_shape.back()["layout"] = s.layout;
    if (const auto v = p->backend->vendor_time(s)) per_shape.back()["vendor_time_s"] = *v;
  }

  if (o.json) {
    nlohmann::json j{{"command", "baselines"}, {"problem", problem_json(*p)}};
    j["per_shape"] = per_shape;
    for (const auto& m : methods)
      j["methods"][m.key] = method_json(m);
    fmt::print("{}\n", j.dump(2));
    return;
  }
  fmt::print("tilevolve baselines\n{}\n", problem_header(*p));
  fmt::print("Per-shape oracle (fastest legal config by {}):\n{}\n", p->backend->name(),
             shapes_table.str());
  fmt::print("Expert program ({}):\n{}\n", p->expert_path, print_program(p->expert));
  fmt::print("Methods (geometric means; 'of oracle' = oracle time / method time):\n{}\n",
             methods_table(methods));
  for (const auto& m : methods)
    if (m.key == "per_m_table")
      fmt::print("Per-M table, simplified:\n{}", print_program(*m.program));
}

} // namespace

void add_baselines_command(CLI::App& app) {
  auto o = std::make_shared<BaselinesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "baselines", "Lay out the problem: per-shape oracle configs, expert slowdowns, and the "
                   "expert / best single config / per-M table / oracle on train and test");
  add_problem_options(*cmd, o->spec);
  cmd->add_flag("--json", o->json, "print one JSON object to stdout instead of the report");
  cmd->callback([o] { run_baselines(*o); });
}

} // namespace tv
