#pragma once
/// How many random cases a property test draws (header-only): all of them in a normal build, a
/// quarter in the sanitized build (AddressSanitizer), where each case costs several times more
/// and what is looked for is a memory or undefined-behaviour error on the paths the cases take,
/// which a quarter of them reach as well. The release suite runs every case.
#include <algorithm>

namespace tv::test {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitizedBuild = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitizedBuild = true;
#else
inline constexpr bool kSanitizedBuild = false;
#endif
#else
inline constexpr bool kSanitizedBuild = false;
#endif

/// `cases` in a normal build, cases / 4 (at least 1) in the sanitized build.
constexpr int property_cases(int cases) {
  return kSanitizedBuild ? std::max(1, cases / 4) : cases;
}

} // namespace tv::test
