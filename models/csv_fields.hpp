#pragma once
/// Small pieces shared by the line-oriented CSV readers (shape files, measurement files,
/// AutoHeuristic tables).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// Largest problem dimension the readers accept (2^31).
inline constexpr std::int64_t kMaxShapeDim = std::int64_t(1) << 31;

/// `s` without spaces, tabs and carriage returns at either end.
std::string_view trim_field(std::string_view s);
/// The comma-separated fields of one line (no quoting), each trimmed.
std::vector<std::string_view> split_csv_fields(std::string_view line);
/// Throws InputError("<source>:<line>: <what>").
[[noreturn]] void fail_at_line(std::string_view source, int line, const std::string& what);

} // namespace tv
