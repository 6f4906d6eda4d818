#include "cli/error_message.hpp"

#include <fmt/format.h>

namespace tv {

namespace {

constexpr std::size_t kLongRun = 160, kKept = 60;
/// Longest message printed; a longer one keeps its start and says how much was cut.
constexpr std::size_t kMaxMessage = 4096, kMessageKept = 3000;

std::string escaped(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += ch;
  }
  return out;
}

} // namespace

std::string printable_error(std::string_view what) {
  std::string out;
  std::size_t i = 0;
  while (i < what.size()) {
    std::size_t end = what.find_first_of(" \n", i);
    if (end == std::string_view::npos) end = what.size();
    const std::string_view run = what.substr(i, end - i);
    if (run.size() > kLongRun)
      out += escaped(run.substr(0, kKept)) + fmt::format("...({} bytes)", run.size());
    else
      out += escaped(run);
    if (end < what.size()) out += what[end];
    i = end + 1;
    if (out.size() > kMaxMessage) {
      std::size_t cut = kMessageKept;
      while (cut > 0 && (static_cast<unsigned char>(out[cut]) & 0xC0) == 0x80)
        --cut; // not inside a UTF-8 character
      out.resize(cut);
      return out + fmt::format("... (cut: the message has {} bytes)", what.size());
    }
  }
  return out;
}

} // namespace tv
