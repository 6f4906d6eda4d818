#pragma once
/// A subcommand's request to end the process with a status other than success.

namespace tv {

/// Thrown by a subcommand after it has printed its result; main returns `code`.
struct ExitCode {
  int code = 1;
};

} // namespace tv
