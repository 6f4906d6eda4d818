#pragma once
/// A short, printable excerpt of untrusted text, safe for a terminal, a log line and JSON.
#include <cstddef>
#include <string>
#include <string_view>

namespace tv {

/// One line of plain ASCII: line breaks and tabs become spaces, other control and non-ASCII
/// bytes become \xNN, and the excerpt stops after `max` input bytes with "...".
std::string excerpt(std::string_view text, std::size_t max);

} // namespace tv
