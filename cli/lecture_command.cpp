#include "cli/lecture_command.hpp"

#include "cli/experiment_options.hpp"
#include "cli/number_checks.hpp"
#include "cli/problem_options.hpp"
#include "cli/progress_bar.hpp"
#include "experiments/catalogue.hpp"
#include "experiments/lecture.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <memory>

namespace tv {

namespace {

struct LectureCommandOptions {
  LectureOptions lecture;
  std::string out;
};

void run_lecture_command(const LectureCommandOptions& o) {
  check_report_dir(o.out);
  // The lecture's output is its slides, shown in a second: no bar line above the first one.
  TerminalProgressBar::silence();
  const Catalogue cat = load_catalogue(o.lecture.lang);
  const LectureResult r = run_lecture(o.lecture);
  fmt::print("{}", r.report.text());
  if (!o.out.empty()) {
    r.report.write(o.out);
    std::vector<std::string> names;
    for (const auto& file : r.report.files)
      names.push_back(file.first);
    fmt::print("\n{}\n",
               cat.text("cli.written", {{"dir", o.out},
                                        {"count", std::to_string(names.size())},
                                        {"files", fmt::format("{}", fmt::join(names, ", "))}}));
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
  cmd->add_option("--lang", o->lecture.lang,
                  "language of everything the lecture prints and writes (a catalogue "
                  "data/lang/LANG.json)")
      ->check(CLI::IsMember(catalogue_languages()))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "write report.md and the SVG plots into this directory");
  cmd->callback([o] { run_lecture_command(*o); });
}

} // namespace tv
