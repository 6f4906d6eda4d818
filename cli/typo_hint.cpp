#include "cli/typo_hint.hpp"

#include "ir/nearest_word.hpp"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tv {

namespace {

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; }))
    names.push_back(sub->get_name());
  return names;
}

std::vector<std::string> option_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::Option* opt : app.get_options()) {
    for (const auto& l : opt->get_lnames())
      names.push_back("--" + l);
    for (const auto& s : opt->get_snames())
      names.push_back("-" + s);
  }
  return names;
}

} // namespace

std::string unknown_subcommand_message(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2 || argv[1][0] == '-' || argv[1][0] == '\0') return "";
  const std::string word = argv[1];
  const auto names = subcommand_names(app);
  if (std::find(names.begin(), names.end(), word) != names.end()) return "";
  const std::string near = nearest_word(word, names);
  return fmt::format("unknown subcommand '{}'{} (the subcommands: {})", word,
                     near.empty() ? "" : fmt::format("; did you mean '{}'?", near),
                     fmt::join(names, ", "));
}

std::string unexpected_arguments_message(const CLI::App& app) {
  // The innermost parsed subcommand knows the options that were meant.
  const CLI::App* where = &app;
  while (!where->get_subcommands().empty())
    where = where->get_subcommands().front();
  std::vector<std::string> extras = app.remaining(true);
  const auto names = option_names(*where);
  std::vector<std::string> parts;
  for (const auto& e : extras) {
    if (e.size() < 2 || e[0] != '-' || e == "--") continue;
    const std::string flag = e.substr(0, e.find('='));
    if (std::find(names.begin(), names.end(), flag) != names.end()) continue;
    const std::string near = nearest_word(flag, names);
    parts.push_back(fmt::format("unknown option '{}'{}", flag,
                                near.empty() ? "" : fmt::format("; did you mean {}?", near)));
  }
  if (parts.empty()) return "";
  const std::string cmd = where == &app ? "tilevolve" : "tilevolve " + where->get_name();
  return fmt::format("{} (run {} --help for its options)", fmt::join(parts, "; "), cmd);
}

} // namespace tv
