#include "cli/number_checks.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>
#include <string>

namespace tv {

namespace {

std::string bound_text(std::uint64_t v) {
  return v == UINT64_MAX ? std::string("2^64-1") : fmt::format("{}", v);
}

} // namespace

CLI::Validator integer_in(std::int64_t lo, std::uint64_t hi) {
  const std::string range = fmt::format("from {} to {}", lo, bound_text(hi));
  auto check = [lo, hi, range](std::string& text) -> std::string {
    const std::string expected = fmt::format("expected an integer {}, got '{}'", range, text);
    const bool negative = !text.empty() && text[0] == '-';
    const std::string_view digits = std::string_view(text).substr(negative ? 1 : 0);
    if (digits.empty() || digits.find_first_not_of("0123456789") != std::string_view::npos)
      return expected;
    if (digits.size() > 1 && digits[0] == '0') return expected + " (no leading zeros)";
    if (negative) {
      std::int64_t v = 0;
      const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
      if (ec != std::errc() || p != text.data() + text.size() || v < lo) return expected;
      return {};
    }
    std::uint64_t v = 0;
    const auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
    if (ec != std::errc() || p != digits.data() + digits.size() || v > hi ||
        (lo > 0 && v < std::uint64_t(lo)))
      return expected;
    return {};
  };
  return CLI::Validator(check, range);
}

CLI::Validator number_in(double lo, double hi) {
  const std::string range = fmt::format("from {} to {}", lo, hi);
  auto check = [lo, hi, range](std::string& text) -> std::string {
    double v = 0;
    const auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (text.empty() || ec != std::errc() || p != text.data() + text.size() || !std::isfinite(v) ||
        v < lo || v > hi)
      return fmt::format("expected a number {}, got '{}'", range, text);
    return {};
  };
  return CLI::Validator(check, range);
}

} // namespace tv
