#pragma once
/// The one exception type for bad user input (files, flags, program text).
///
/// Library code reports expected failures as data (statuses, ParseResult); InputError is for
/// input that cannot be used at all. The CLI converts it to a message and exit code 2.
#include <stdexcept>
#include <string>

namespace tv {

/// Bad input: the message names the source, position and what was expected. A NUL byte in the
/// message (quoted from a binary file) is kept as the text "\x00", since what() ends at the
/// first NUL.
struct InputError : std::runtime_error {
  explicit InputError(const std::string& what) : std::runtime_error(without_nul(what)) {}
  explicit InputError(const char* what) : std::runtime_error(what) {}

private:
  static std::string without_nul(const std::string& s) {
    if (s.find('\0') == std::string::npos) return s;
    std::string out;
    for (const char c : s)
      out += c == '\0' ? std::string("\\x00") : std::string(1, c);
    return out;
  }
};

/// Not bad input but a resource that gave out mid-run (no worker left to measure with): the
/// run cannot go on, and what it did so far is kept. An InputError, so every boundary that
/// reports one reports it; the CLI exits with status 4 for it instead of 2.
struct GaveOutError : InputError {
  using InputError::InputError;
};

} // namespace tv
