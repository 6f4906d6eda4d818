#include "eval/measurement_cache.hpp"

#include "ir/error.hpp"
#include "models/csv_fields.hpp"

#include <fmt/format.h>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

namespace tv {

namespace {

constexpr std::string_view kVersionPrefix = "# tilevolve-measurements";
constexpr std::size_t kFields = 17;
constexpr std::int64_t kMaxSize = kMaxShapeDim;

/// Splits a CSV line into fields, undoing "..." quoting; returns an error text instead when
/// a quote is not closed or is followed by something other than a comma.
std::vector<std::string> split_csv(std::string_view line, std::string& error) {
  std::vector<std::string> out;
  std::size_t i = 0;
  for (;;) {
    std::string field;
    if (i < line.size() && line[i] == '"') {
      ++i;
      for (;;) {
        if (i >= line.size()) {
          error = "a quoted field is not closed";
          return {};
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            field += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        field += line[i++];
      }
      if (i < line.size() && line[i] != ',') {
        error = "a closing quote must be followed by a comma";
        return {};
      }
    } else {
      const std::size_t comma = line.find(',', i);
      const std::size_t end = comma == std::string_view::npos ? line.size() : comma;
      field = std::string(trim_field(line.substr(i, end - i)));
      i = end;
    }
    out.push_back(std::move(field));
    if (i >= line.size()) break;
    ++i; // the comma
  }
  return out;
}

/// `s` as a CSV field: quoted when it holds a comma or quote, has outer spaces or starts with
/// '#' (a comment line); newlines become spaces.
std::string csv_field(std::string_view s) {
  std::string flat;
  for (char c : s)
    flat += (c == '\n' || c == '\r') ? ' ' : c;
  const bool plain = flat.find_first_of(",\"") == std::string::npos && trim_field(flat) == flat &&
                     (flat.empty() || flat.front() != '#');
  if (plain) return flat;
  std::string out = "\"";
  for (char c : flat) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::optional<int> parse_knob(std::string_view field, std::string_view what,
                              std::string_view source, int line) {
  if (field.empty()) return std::nullopt;
  return int(parse_int_field(field, what, 0, 1 << 20, source, line));
}

double parse_seconds(std::string_view field, std::string_view source, int line) {
  double v = 0;
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, v);
  if (ec != std::errc() || ptr != end)
    fail_at_line(source, line, fmt::format("seconds must be a number, got '{}'", field));
  if (!std::isfinite(v) || !(v > 0))
    fail_at_line(source, line, fmt::format("seconds must be positive and finite, got '{}'", field));
  if (v < kMinKernelSeconds || v > kMaxKernelSeconds)
    fail_at_line(source, line,
                 fmt::format("seconds must be a plausible kernel time from {:g} to {:g} s, got "
                             "'{}'",
                             kMinKernelSeconds, kMaxKernelSeconds, field));
  return v;
}

/// Text fields hold printable text: a control character other than a tab (a carriage return
/// inside a line, a NUL) cannot be written back by format_record, so it marks a corrupt file.
void check_text(std::string_view field, std::string_view what, std::string_view source, int line) {
  for (const char ch : field) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\t') || c == 0x7f)
      fail_at_line(source, line,
                   fmt::format("{} holds the control character \\x{:02x} (expected printable text)",
                               what, c));
  }
}

MeasurementRecord parse_row(const std::vector<std::string>& f, std::string_view source, int line) {
  MeasurementRecord r;
  r.gpu = f[0];
  if (r.gpu.empty()) fail_at_line(source, line, "gpu must not be empty");
  check_text(f[0], "gpu", source, line);
  check_text(f[16], "detail", source, line);
  r.shape.M = parse_int_field(f[1], "M", 1, kMaxSize, source, line);
  r.shape.N = parse_int_field(f[2], "N", 1, kMaxSize, source, line);
  r.shape.K = parse_int_field(f[3], "K", 1, kMaxSize, source, line);
  const auto d = parse_dtype(f[4]);
  if (!d)
    fail_at_line(source, line,
                 fmt::format("unknown dtype '{}' (expected bf16, f16, f32 or fp8)", f[4]));
  r.shape.dtype = *d;
  const auto field = [&](std::size_t i, std::string_view what) {
    return int(parse_int_field(f[i], what, 1, 1 << 20, source, line));
  };
  r.config.BM = field(5, "BM");
  r.config.BN = field(6, "BN");
  r.config.BK = field(7, "BK");
  r.config.warps = field(8, "warps");
  r.config.stages = field(9, "stages");
  r.config.group = field(10, "group");
  r.config.waves_per_eu = parse_knob(f[11], "waves_per_eu", source, line);
  r.config.matrix_instr_nonkdim = parse_knob(f[12], "matrix_instr_nonkdim", source, line);
  r.config.kpack = parse_knob(f[13], "kpack", source, line);
  if (!parse_status(f[14], r.result.status))
    fail_at_line(source, line,
                 fmt::format("unknown status '{}' (expected ok, unlaunchable, compile_error, "
                             "wrong_result, timeout or unmeasured)",
                             f[14]));
  if (r.result.status == MeasureStatus::ok) {
    if (f[15].empty()) fail_at_line(source, line, "status ok needs a time in the seconds column");
    r.result.seconds = parse_seconds(f[15], source, line);
  } else if (!f[15].empty()) {
    fail_at_line(
        source, line,
        fmt::format("status {} must have an empty seconds column, got '{}'", f[14], f[15]));
  }
  r.result.detail = f[16];
  return r;
}

} // namespace

bool operator==(const MeasurementRecord& a, const MeasurementRecord& b) {
  return a.gpu == b.gpu && a.shape == b.shape && a.config == b.config &&
         a.result.status == b.result.status && a.result.seconds == b.result.seconds &&
         a.result.detail == b.result.detail;
}

bool is_measurement_cache(std::string_view first_line) {
  return trim_field(strip_bom(first_line)).substr(0, kVersionPrefix.size()) == kVersionPrefix;
}

std::vector<MeasurementRecord> parse_measurement_cache(std::string_view text,
                                                       std::string_view source) {
  std::vector<MeasurementRecord> out;
  bool have_version = false, have_header = false;
  LineCursor lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const int line_no = lines.line_no();
    if (!have_version) {
      if (line != kMeasurementCacheVersionLine) {
        if (line.substr(0, kVersionPrefix.size()) == kVersionPrefix)
          fail_at_line(source, line_no,
                       fmt::format("unsupported version '{}' (this tilevolve reads '{}')", line,
                                   kMeasurementCacheVersionLine));
        fail_at_line(source, line_no,
                     fmt::format("expected the line '{}' first", kMeasurementCacheVersionLine));
      }
      have_version = true;
      continue;
    }
    if (line.empty() || line.front() == '#') continue;
    if (!have_header) {
      if (line != kMeasurementCacheHeader)
        fail_at_line(source, line_no,
                     fmt::format("expected the header '{}'", kMeasurementCacheHeader));
      have_header = true;
      continue;
    }
    std::string error;
    const auto fields = split_csv(line, error);
    if (!error.empty()) fail_at_line(source, line_no, error);
    if (fields.size() != kFields)
      fail_at_line(
          source, line_no,
          fmt::format("expected {} comma-separated fields, got {}", kFields, fields.size()));
    out.push_back(parse_row(fields, source, line_no));
  }
  if (!have_version)
    fail_at_line(source, 1,
                 fmt::format("empty file (expected the line '{}')", kMeasurementCacheVersionLine));
  if (!have_header)
    fail_at_line(source, lines.line_no(),
                 fmt::format("missing the header '{}'", kMeasurementCacheHeader));
  return out;
}

std::vector<MeasurementRecord> load_measurement_cache(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the file", path));
  std::ostringstream buf;
  buf << in.rdbuf();
  return parse_measurement_cache(buf.str(), path);
}

std::string format_record(const MeasurementRecord& r) {
  const auto knob = [](const std::optional<int>& k) {
    return k ? fmt::format("{}", *k) : std::string();
  };
  const Config& c = r.config;
  const bool ok = r.result.status == MeasureStatus::ok;
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", csv_field(r.gpu),
                     r.shape.M, r.shape.N, r.shape.K, dtype_name(r.shape.dtype), c.BM, c.BN, c.BK,
                     c.warps, c.stages, c.group, knob(c.waves_per_eu), knob(c.matrix_instr_nonkdim),
                     knob(c.kpack), status_name(r.result.status),
                     ok ? fmt::format("{}", r.result.seconds) : std::string(),
                     csv_field(r.result.detail));
}

void append_record(const std::string& path, const MeasurementRecord& r) {
  // Look at what is there: nothing (write the header), our format, or something else.
  bool fresh = true, ends_with_newline = true;
  {
    std::ifstream in(path, std::ios::binary);
    if (in) {
      std::string first;
      std::getline(in, first);
      in.clear();
      in.seekg(0, std::ios::end);
      const auto size = in.tellg();
      if (size > 0) {
        fresh = false;
        if (trim_field(first) != kMeasurementCacheVersionLine)
          throw InputError(fmt::format("{}: not a tilevolve measurement file (its first line is "
                                       "not '{}'); refusing to append",
                                       path, kMeasurementCacheVersionLine));
        in.seekg(-1, std::ios::end);
        char last = '\n';
        in.get(last);
        ends_with_newline = last == '\n';
      }
    }
  }
  std::string text;
  if (fresh)
    text = fmt::format("{}\n{}\n", kMeasurementCacheVersionLine, kMeasurementCacheHeader);
  else if (!ends_with_newline)
    text = "\n"; // a torn last line stays on its own line (and is reported when read)
  text += format_record(r);
  text += '\n';
  std::ofstream out(path, std::ios::binary | std::ios::app);
  if (!out) throw InputError(fmt::format("{}: cannot open for appending", path));
  out.write(text.data(), std::streamsize(text.size())); // one write: whole lines only
  out.flush();
  if (!out) throw InputError(fmt::format("{}: write failed", path));
}

} // namespace tv
