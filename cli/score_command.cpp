#include "cli/score_command.hpp"

#include "cli/exit_code.hpp"
#include "cli/problem_options.hpp"
#include "eval/baselines.hpp"
#include "eval/report_format.hpp"
#include "eval/text_table.hpp"
#include "ir/plural.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"
#include "models/static_check.hpp"

#include <fmt/format.h>
#include <memory>

namespace tv {

namespace {

struct ScoreOptions {
  std::string program_path;
  ProblemSpec spec;
  bool json = false;
};

void run_score(const ScoreOptions& o) {
  const Program prog = load_program_file(o.program_path);
  auto p = load_problem(o.spec);
  warn_if_few_test_shapes(*p);
  const auto issues = p->static_issues(prog);
  const Program simple = simplify(prog);

  MethodResult m;
  m.key = "program";
  m.label = o.program_path;
  m.program = prog;
  m.cost_note = "a heuristic needs no tuning runs of its own";
  if (issues.empty()) {
    m.train = p->train->score(prog);
    m.test = p->test->score(prog);
  } else {
    m.train.problem = m.test.problem = "rejected by the static check";
  }
  MethodResult e;
  e.key = "expert";
  e.label = "expert";
  e.program = p->expert;
  e.train = p->train->score(p->expert);
  e.test = p->test->score(p->expert);
  MethodResult orc;
  orc.key = "oracle";
  orc.label = "per-shape oracle";
  orc.train = p->train->oracle();
  orc.test = p->test->oracle();
  orc.kernel_runs = (long long)p->table->configs().size() * (long long)p->table->shapes().size();
  // The vendor library, when the backend recorded it for every shape of the split.
  const std::optional<MethodResult> vendor = vendor_method(*p->train, *p->test, p->backend.get());

  if (o.json) {
    nlohmann::json j{{"command", "score"}, {"problem", problem_json(*p)}};
    j["program"] = method_json(m);
    j["program"]["rules"] = prog.rules.size();
    j["program"]["simplified_rules"] = simple.rules.size();
    j["program"]["simplified"] = print_program(simple);
    nlohmann::json st = nlohmann::json::array();
    for (const auto& i : issues)
      st.push_back({{"rule", i.rule < 0 ? nlohmann::json("default") : nlohmann::json(i.rule + 1)},
                    {"config", i.config.brief()},
                    {"reason", i.reason}});
    j["program"]["static_check"] = st;
    j["train"] = score_json(m.train);
    j["test"] = score_json(m.test);
    j["methods"]["expert"] = method_json(e);
    if (vendor) j["methods"]["vendor"] = method_json(*vendor);
    j["methods"]["oracle"] = method_json(orc);
    fmt::print("{}\n", j.dump(2));
  } else {
    fmt::print("tilevolve score {}\n{}\n", o.program_path, problem_header(*p));
    fmt::print("{}", print_program(prog));
    fmt::print("{}; {} after removing dead and redundant rules\n\n",
               counted(long(prog.rules.size()), "rule", "rules"), simple.rules.size());
    if (!issues.empty()) {
      fmt::print("Static check: REJECTED, some branches cannot launch on {}:\n{}", p->gpu.name,
                 format_static_issues(issues));
    } else {
      fmt::print("Static check: every reachable branch launches on {}\n\n", p->gpu.name);
      TextTable t(
          {"shape", "split", "config", "time (us)", "oracle (us)", "of oracle", "vs expert"});
      auto add_rows = [&](const Scorer& s, const char* name) {
        const auto times = s.program_times(prog);
        for (std::size_t i = 0; i < s.rows().size(); ++i) {
          const Shape& sh = p->shape(s.rows()[i]);
          t.add({sh.label(), name, prog.choose(sh).brief(), fmt::format("{:.1f}", times[i] * 1e6),
                 fmt::format("{:.1f}", s.oracle_times()[i] * 1e6),
                 fmt::format("{:.1f}%", 100 * s.oracle_times()[i] / times[i]),
                 fmt::format("{:.2f}x", s.expert_times()[i] / times[i])});
        }
      };
      add_rows(*p->train, "train");
      add_rows(*p->test, "test");
      fmt::print("{}\n", t.str());
    }
    std::vector<MethodResult> rows = {e, m};
    if (vendor) rows.push_back(*vendor);
    rows.push_back(orc);
    fmt::print("{}", methods_table(rows));
  }
  if (!issues.empty()) throw ExitCode{kExitCheckFailed};
}

} // namespace

void add_score_command(CLI::App& app) {
  auto o = std::make_shared<ScoreOptions>();
  CLI::App* cmd = app.add_subcommand(
      "score", "Score one program: static check, then speedup over the expert and fraction of "
               "the per-shape oracle on train and test");
  cmd->add_option("program", o->program_path, "program file (def choose(M, N, K): ...)")
      ->required()
      ->check(CLI::ExistingFile);
  add_problem_options(*cmd, o->spec);
  cmd->add_flag("--json", o->json, "print one JSON object to stdout instead of the report");
  cmd->callback([o] { run_score(*o); });
}

} // namespace tv
