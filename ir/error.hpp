#pragma once
/// The one exception type for bad user input (files, flags, program text).
///
/// Library code reports expected failures as data (statuses, ParseResult); InputError is for
/// input that cannot be used at all. The CLI converts it to a message and exit code 2.
#include <stdexcept>
#include <string>

namespace tv {

/// Bad input: the message names the source, position and what was expected.
struct InputError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

} // namespace tv
