#pragma once
/// Numbers as reports print them.
#include <string>

namespace tv {

/// 12345 -> "12,345", -1234 -> "-1,234".
std::string thousands(long long v);

} // namespace tv
