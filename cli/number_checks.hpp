#pragma once
/// Strict checks for numeric flags. CLI11 alone converts with strtoull/strtoll (base 0), so
/// `--seed -1` wraps to 2^64-1, `--budget 99999999999999999999` saturates, `010` is octal,
/// and NaN passes for a double; these checks refuse all of that before the conversion.
#include <CLI/CLI.hpp>

#include <cstdint>

namespace tv {

/// The flag's text is a plain decimal integer in [lo, hi]: digits only (a '-' only when lo is
/// negative), no leading zeros, no spaces, no hex; e.g. integer_in(0, UINT64_MAX) for a seed.
CLI::Validator integer_in(std::int64_t lo, std::uint64_t hi);
/// The flag's text is a finite decimal number in [lo, hi] (NaN and inf are refused).
CLI::Validator number_in(double lo, double hi);
/// Largest budget-like count a flag accepts (a trillion programs is far beyond any run).
inline constexpr std::uint64_t kMaxCount = 1'000'000'000'000ULL;

} // namespace tv
