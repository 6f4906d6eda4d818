#pragma once
/// A count with its noun in the right number: "1 rule", "8 rules".
#include <fmt/format.h>
#include <string>

namespace tv {

/// "`n` `one`" when n is 1, else "`n` `many`" (e.g. counted(1, "leaf", "leaves") = "1 leaf").
inline std::string counted(long long n, const char* one, const char* many) {
  return fmt::format("{} {}", n, n == 1 ? one : many);
}

} // namespace tv
