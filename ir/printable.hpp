#pragma once
/// Text from files made safe for a terminal: names a file chose (shape names) are printed in
/// summaries, tables and progress lines, where a control character would act on the terminal
/// (ESC ] 0 ; ... retitles it, ESC [ 2 J clears it) instead of being shown.
#include <string>
#include <string_view>

namespace tv {

/// `s` with every control character escaped: C0 bytes (0x00-0x1f, tabs and line breaks
/// included) and DEL as \xNN, and the UTF-8 encoded C1 controls (U+0080-U+009F, which some
/// terminals also act on) as \uNNNN; every other byte as it is.
std::string escape_controls(std::string_view s);

} // namespace tv
