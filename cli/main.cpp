// tilevolve: synthesizes GEMM tiling heuristics. This file only wires the subcommands; each
// lives in its own file and calls the libraries.
#include "cli/ablation_command.hpp"
#include "cli/allocator.hpp"
#include "cli/baselines_command.hpp"
#include "cli/devices_command.hpp"
#include "cli/error_message.hpp"
#include "cli/evolve_command.hpp"
#include "cli/exit_code.hpp"
#include "cli/export_command.hpp"
#include "cli/help_formatter.hpp"
#include "cli/import_command.hpp"
#include "cli/lecture_command.hpp"
#include "cli/measure_command.hpp"
#include "cli/progress_bar.hpp"
#include "cli/retired_options.hpp"
#include "cli/score_command.hpp"
#include "cli/serve_command.hpp"
#include "cli/splits_command.hpp"
#include "cli/typo_hint.hpp"
#include "ir/error.hpp"
#include "ir/version.hpp"

#include <CLI/CLI.hpp>
#include <fmt/format.h>

int main(int argc, char** argv) {
  CLI::App app{"tilevolve: evolve GEMM tiling heuristics (rule programs that pick BM, BN, BK, "
               "warps, stages, group per shape) and compare them with baselines"};
  app.require_subcommand(1);
  // Set before the subcommands are added: each takes its parent's formatter.
  app.formatter(std::make_shared<tv::WrappingFormatter>(tv::help_width()));
  app.footer(tv::kExitStatusHelp);
  app.set_version_flag("--version", [] {
    return "tilevolve " + std::string(tv::version()) + "\nallocator: " + tv::allocator_text();
  });
  tv::add_evolve_command(app);
  tv::add_baselines_command(app);
  tv::add_score_command(app);
  tv::add_lecture_command(app);
  tv::add_ablation_command(app);
  tv::add_splits_command(app);
  tv::add_devices_command(app);
  tv::add_measure_command(app);
  tv::add_export_command(app);
  tv::add_import_command(app);
  tv::add_serve_command(app);
  tv::remove_retired_options(app); // refused below with what to give instead
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; }))
    sub->footer(tv::kExitStatusHelp);
  const tv::TerminalProgressBar progress; // long computations show a bar on a terminal
  try {
    // A mistyped subcommand: name it and the nearest one (CLI11 would only say that a
    // subcommand is required).
    if (const std::string typo = tv::unknown_subcommand_message(app, argc, argv); !typo.empty())
      throw tv::InputError(typo);
    if (const std::string retired = tv::retired_option_message(argc, argv); !retired.empty())
      throw tv::InputError(retired);
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // --help and --version are "errors" with exit code 0; a bad flag is bad input like any
    // other: one message, exit status 2.
    if (e.get_exit_code() == 0) return app.exit(e);
    std::string what = e.what();
    if (dynamic_cast<const CLI::ExtrasError*>(&e))
      if (const std::string typo = tv::unexpected_arguments_message(app); !typo.empty())
        what = typo;
    fmt::print(stderr, "tilevolve: error: {}\nRun with --help for more information.\n",
               tv::printable_error(what));
    return tv::kExitBadInput;
  } catch (const tv::ExitCode& e) {
    return e.code;
  } catch (const tv::GaveOutError& e) {
    fmt::print(stderr, "tilevolve: error: {}\n", tv::printable_error(e.what()));
    return tv::kExitGaveOut;
  } catch (const tv::InputError& e) {
    fmt::print(stderr, "tilevolve: error: {}\n", tv::printable_error(e.what()));
    return tv::kExitBadInput;
  } catch (const std::exception& e) {
    // Not bad input but a bug (or no memory): say so instead of aborting without a word.
    fmt::print(stderr, "tilevolve: internal error: {}\n", tv::printable_error(e.what()));
    return tv::kExitInternal;
  }
  return 0;
}
