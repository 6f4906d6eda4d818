#include "cli/lecture_command.hpp"

#include "cli/experiment_options.hpp"
#include "cli/number_checks.hpp"
#include "cli/problem_options.hpp"
#include "experiments/lecture.hpp"

#include <fmt/format.h>
#include <memory>

namespace tv {

namespace {

struct LectureCommandOptions {
  LectureOptions lecture;
  std::string out;
};

void run_lecture_command(const LectureCommandOptions& o) {
  check_report_dir(o.out);
  const LectureResult r = run_lecture(o.lecture);
  fmt::print("{}", r.report.text());
  if (!o.out.empty()) {
    r.report.write(o.out);
    fmt::print("\nReport written to {}/report.md with {} plots (", o.out, r.report.files.size());
    bool first = true;
    for (const auto& [name, content] : r.report.files) {
      fmt::print("{}{}", first ? "" : ", ", name);
      first = false;
    }
    fmt::print(").\n");
  }
}

} // namespace

void add_lecture_command(CLI::App& app) {
  auto o = std::make_shared<LectureCommandOptions>();
  CLI::App* cmd = app.add_subcommand(
      "lecture", "The lecture demos on the analytic model: the problem and its baselines, one "
                 "evolution run, generalization over two splits and seeds, cost accounting");
  add_gpu_option(*cmd, o->lecture.gpu);
  cmd->add_option("--budget", o->lecture.budget, "programs proposed per evolution run")
      ->check(integer_in(0, kMaxCount))
      ->capture_default_str();
  cmd->add_option("--seeds", o->lecture.seeds, "seeds per split in the generalization demo")
      ->check(integer_in(1, 10000))
      ->capture_default_str();
  add_threads_option(*cmd, o->lecture.threads);
  cmd->add_option("--out", o->out, "write report.md and the SVG plots into this directory");
  cmd->callback([o] { run_lecture_command(*o); });
}

} // namespace tv
