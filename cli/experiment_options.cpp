#include "cli/experiment_options.hpp"

#include "cli/number_checks.hpp"
#include "ir/error.hpp"

#include <filesystem>
#include <fmt/format.h>

namespace tv {

void add_threads_option(CLI::App& cmd, int& threads) {
  cmd.add_option("--threads", threads,
                 "threads for the independent runs (0 = OpenMP default); results do not depend "
                 "on it")
      ->check(integer_in(0, 4096))
      ->capture_default_str();
}

void check_report_dir(const std::string& out) {
  if (!out.empty() && std::filesystem::exists(out) && !std::filesystem::is_directory(out))
    throw InputError(fmt::format("--out {}: exists and is not a directory", out));
}

} // namespace tv
