#pragma once
/// The text of an error message as the terminal gets it.
#include <string>
#include <string_view>

namespace tv {

/// `what` made safe and short enough to print: control characters (a file of binary garbage
/// puts them in a message) become \xNN escapes, except line breaks and tabs; and any run of
/// more than 160 characters without a space (a field of a very long line) keeps its first 60,
/// followed by "...(N bytes)"; a message longer than 4 KiB keeps its first 3,000 bytes,
/// followed by "... (cut: the message has N bytes)".
std::string printable_error(std::string_view what);

} // namespace tv
