#pragma once
/// A benchmark's target and its verdict: each benchmark prints one line per target, "met" or
/// "MISSED", and exits with status 1 when any target was missed (CI does not run the
/// benchmarks; a person does, and a missed target must not pass unnoticed).
#include <chrono>
#include <cstdio>
#include <exception>
#include <fmt/format.h>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace tv::bench {

/// One figure against its bound.
struct Target {
  std::string what;  ///< e.g. "median wall time"
  double value = 0;  ///< what was measured
  double bound = 0;  ///< the target
  bool below = true; ///< met when value < bound (else when value >= bound)
  std::string unit;  ///< e.g. "s", "MB", "M/s"
};

/// True when `t`'s value is on the right side of its bound (NaN never is).
inline bool met(const Target& t) {
  return t.below ? t.value < t.bound : t.value >= t.bound;
}

/// "target: median wall time < 2 s: met (0.71 s)" or "... MISSED (4.65 s)".
inline std::string verdict_line(const Target& t) {
  return fmt::format("target: {} {} {:g} {}: {} ({:.4g} {})", t.what, t.below ? "<" : ">=", t.bound,
                     t.unit, met(t) ? "met" : "MISSED", t.value, t.unit);
}

/// The exit status for `targets`: 0 when every one was met, else 1.
inline int exit_status(const std::vector<Target>& targets) {
  for (const auto& t : targets)
    if (!met(t)) return 1;
  return 0;
}

/// A stopwatch of consecutive laps: each lap() is the seconds since the last one (or since
/// construction).
class Laps {
public:
  double lap() {
    const auto now = std::chrono::steady_clock::now();
    const double s = std::chrono::duration<double>(now - last_).count();
    last_ = now;
    return s;
  }

private:
  std::chrono::steady_clock::time_point last_ = std::chrono::steady_clock::now();
};

/// Prints each target's verdict line (prefixed by `bench`) and returns exit_status.
inline int report(const std::string& bench, const std::vector<Target>& targets) {
  for (const auto& t : targets)
    fmt::print("{}: {}\n", bench, verdict_line(t));
  std::fflush(stdout);
  return exit_status(targets);
}

/// `parse(text, &used)` (std::stoll, std::stod, ...) when it reads all of `text`; throws
/// std::invalid_argument ("'x' is not <what>") when it reads none or not all of it, and
/// std::out_of_range naming `text` when the value does not fit.
template <class Parse>
auto parse_all(const std::string& text, Parse parse, const char* what)
    -> decltype(parse(text, nullptr)) {
  std::size_t used = 0;
  decltype(parse(text, nullptr)) v{};
  try {
    v = parse(text, &used);
  } catch (const std::invalid_argument&) {
    used = 0;
  } catch (const std::out_of_range&) {
    throw std::out_of_range(fmt::format("'{}' is out of range", text));
  }
  if (used == 0 || used != text.size())
    throw std::invalid_argument(fmt::format("'{}' is not {}", text, what));
  return v;
}

/// The whole number `text` spells (an optional sign, then digits, nothing else); see parse_all.
inline long long integer(const std::string& text) {
  return parse_all(
      text, [](const std::string& t, std::size_t* used) { return std::stoll(t, used); },
      "a whole number");
}

/// The number `text` spells (as std::stod reads one, nothing after it); see parse_all.
inline double number(const std::string& text) {
  return parse_all(
      text, [](const std::string& t, std::size_t* used) { return std::stod(t, used); }, "a number");
}

/// Runs a benchmark's main `body(argc, argv)`: with -h or --help among the arguments it prints
/// `usage` and returns 0 instead; an exception out of the body (an argument that does not parse,
/// bad input to the library) is printed with the usage and returns 2.
template <class Body> int run(int argc, char** argv, std::string_view usage, Body body) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "-h" || std::string_view(argv[i]) == "--help") {
      fmt::print("{}\n", usage);
      return 0;
    }
  try {
    return body(argc, argv);
  } catch (const std::exception& e) {
    std::fflush(stdout);
    fmt::print(stderr, "error: {}\n{}\n", e.what(), usage);
    return 2;
  }
}

} // namespace tv::bench
