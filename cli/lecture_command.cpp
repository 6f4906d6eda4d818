#include "cli/lecture_command.hpp"

#include "experiments/lecture.hpp"
#include "ir/error.hpp"

#include <filesystem>
#include <fmt/format.h>
#include <memory>

namespace tv {

namespace {

struct LectureCommandOptions {
  LectureOptions lecture;
  std::string out;
};

void run_lecture_command(const LectureCommandOptions& o) {
  if (!o.out.empty() && std::filesystem::exists(o.out) && !std::filesystem::is_directory(o.out))
    throw InputError(fmt::format("--out {}: exists and is not a directory", o.out));
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
  cmd->add_option("--gpu", o->lecture.gpu,
                  "GPU profile: a name from data/gpus (h100, h200, mi300x, mi325x, mi355x) or a "
                  "path to a .json profile")
      ->capture_default_str();
  cmd->add_option("--budget", o->lecture.budget, "programs proposed per evolution run")
      ->capture_default_str();
  cmd->add_option("--seeds", o->lecture.seeds, "seeds per split in the generalization demo")
      ->capture_default_str();
  cmd->add_option("--threads", o->lecture.threads,
                  "threads for the independent runs (0 = OpenMP default); results do not depend "
                  "on it")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "write report.md and the SVG plots into this directory");
  cmd->callback([o] { run_lecture_command(*o); });
}

} // namespace tv
