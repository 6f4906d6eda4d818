#pragma once
/// The exit statuses of tilevolve, and a subcommand's request to end the process with one.

namespace tv {

/// A check the command made failed (score: a branch cannot launch; devices: a worker is not
/// healthy).
inline constexpr int kExitCheckFailed = 1;
/// Bad input: a file, a flag; the message names it.
inline constexpr int kExitBadInput = 2;
/// A bug (or no memory): an internal error.
inline constexpr int kExitInternal = 3;
/// A run stopped because what it depends on gave out: its LLM server failed too many requests
/// in a row, or no worker is left to measure with. What it did so far is printed and kept
/// (resume the run directory to continue).
inline constexpr int kExitGaveOut = 4;

/// A run stopped by a signal it handles (evolve: SIGINT or SIGTERM, checkpointed between two
/// batches) exits with this plus the signal's number, as a shell reports a process the signal
/// ended: 130 for SIGINT, 143 for SIGTERM.
inline constexpr int kExitInterruptedBase = 128;

/// The exit statuses as --help lists them.
inline constexpr const char* kExitStatusHelp =
    "Exit status: 0 success; 1 a check failed (score: a branch cannot launch; devices: a worker "
    "is not healthy); 2 bad input (a file or flag; the message names it); 3 internal error; 4 a "
    "run stopped because its LLM server failed --llm-max-failures requests in a row or no worker "
    "was left to measure with (the report so far is printed and the run directory kept: "
    "--resume continues it); 130 or 143 evolve stopped by SIGINT or SIGTERM (with --out the run "
    "is checkpointed where the search stood: --resume continues it; a second signal ends it at "
    "once).";

/// Thrown by a subcommand after it has printed its result; main returns `code`.
struct ExitCode {
  int code = 1;
};

} // namespace tv
