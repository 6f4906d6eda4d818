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

/// Range of a recorded kernel time that describes a real measurement: a GEMM launch takes at
/// least a nanosecond and (far) less than an hour; 1e300 s or 1e-300 s is a corrupt file.
inline constexpr double kMinKernelSeconds = 1e-9;
inline constexpr double kMaxKernelSeconds = 3600;

/// `s` without spaces, tabs and carriage returns at either end.
std::string_view trim_field(std::string_view s);
/// The comma-separated fields of one line (no quoting), each trimmed.
std::vector<std::string_view> split_csv_fields(std::string_view line);
/// `text` without a leading UTF-8 byte order mark (spreadsheet exports write one).
std::string_view strip_bom(std::string_view text);

/// Walks a text line by line ('\n'-separated, each line trimmed, a leading byte order mark
/// skipped), counting lines from 1.
class LineCursor {
public:
  explicit LineCursor(std::string_view text) : rest_(strip_bom(text)) {}
  /// Sets `line` to the next trimmed line; false at the end of the text.
  bool next(std::string_view& line);
  /// 1-based number of the line `next` returned last.
  int line_no() const { return line_no_; }

private:
  std::string_view rest_;
  int line_no_ = 0;
};

/// The integer in `field`, which must lie in [lo, hi]; otherwise throws InputError
/// "<source>:<line>: <what> must be an integer in [lo, hi], got '<field>'".
std::int64_t parse_int_field(std::string_view field, std::string_view what, std::int64_t lo,
                             std::int64_t hi, std::string_view source, int line);

/// Throws InputError("<source>:<line>: <what>").
[[noreturn]] void fail_at_line(std::string_view source, int line, const std::string& what);

} // namespace tv
