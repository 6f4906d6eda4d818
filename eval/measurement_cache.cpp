#include "eval/measurement_cache.hpp"

#include "ir/error.hpp"
#include "models/csv_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

namespace tv {

namespace {

constexpr std::string_view kVersionPrefix = "# tilevolve-measurements";
constexpr std::size_t kFieldsV1 = 17;
constexpr std::size_t kFieldsV2 = 23;
constexpr std::int64_t kCacheMaxSize = kMaxShapeDim;

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
  // Control characters (a worker's detail may hold any) become spaces: the reader refuses them.
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    flat += ((u < 0x20 && c != '\t') || u == 0x7f) ? ' ' : c;
  }
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

/// M, N, K and dtype from fields f[i..i+3].
void parse_shape(const std::vector<std::string>& f, std::size_t i, Shape& s,
                 std::string_view source, int line) {
  s.M = parse_int_field(f[i], "M", 1, kCacheMaxSize, source, line);
  s.N = parse_int_field(f[i + 1], "N", 1, kCacheMaxSize, source, line);
  s.K = parse_int_field(f[i + 2], "K", 1, kCacheMaxSize, source, line);
  const auto d = parse_dtype(f[i + 3]);
  if (!d)
    fail_at_line(source, line,
                 fmt::format("unknown dtype '{}' (expected bf16, f16, f32 or fp8)", f[i + 3]));
  s.dtype = *d;
}

/// The nine config fields f[i..i+8].
void parse_config_fields(const std::vector<std::string>& f, std::size_t i, Config& c,
                         std::string_view source, int line) {
  const auto field = [&](std::size_t k, std::string_view what) {
    return int(parse_int_field(f[i + k], what, 1, 1 << 20, source, line));
  };
  c.BM = field(0, "BM");
  c.BN = field(1, "BN");
  c.BK = field(2, "BK");
  c.warps = field(3, "warps");
  c.stages = field(4, "stages");
  c.group = field(5, "group");
  c.waves_per_eu = parse_knob(f[i + 6], "waves_per_eu", source, line);
  c.matrix_instr_nonkdim = parse_knob(f[i + 7], "matrix_instr_nonkdim", source, line);
  c.kpack = parse_knob(f[i + 8], "kpack", source, line);
}

/// Status and seconds from f[i], f[i+1].
void parse_result(const std::vector<std::string>& f, std::size_t i, Measurement& m,
                  std::string_view source, int line) {
  if (!parse_status(f[i], m.status))
    fail_at_line(source, line,
                 fmt::format("unknown status '{}' (expected ok, unlaunchable, compile_error, "
                             "wrong_result, timeout, unmeasured, error or crash)",
                             f[i]));
  if (m.status == MeasureStatus::ok) {
    if (f[i + 1].empty())
      fail_at_line(source, line, "status ok needs a time in the seconds column");
    m.seconds = parse_seconds(f[i + 1], source, line);
  } else if (!f[i + 1].empty()) {
    fail_at_line(
        source, line,
        fmt::format("status {} must have an empty seconds column, got '{}'", f[i], f[i + 1]));
  }
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
  parse_shape(f, 1, r.shape, source, line);
  parse_config_fields(f, 5, r.config, source, line);
  parse_result(f, 14, r.result, source, line);
  r.result.detail = f[16];
  return r;
}

MeasurementRecord parse_row_v2(const std::vector<std::string>& f, std::string_view source,
                               int line) {
  MeasurementRecord r;
  r.gpu = f[0];
  r.device = f[1];
  r.worker = f[2];
  if (r.gpu.empty()) fail_at_line(source, line, "gpu must not be empty");
  if (r.device.empty()) fail_at_line(source, line, "device must not be empty");
  if (r.worker.empty()) fail_at_line(source, line, "worker must not be empty");
  check_text(f[0], "gpu", source, line);
  check_text(f[1], "device", source, line);
  check_text(f[2], "worker", source, line);
  check_text(f[22], "detail", source, line);
  parse_shape(f, 3, r.shape, source, line);
  if (!is_shape_layout(f[7]))
    fail_at_line(source, line,
                 fmt::format("unknown layout '{}' (expected NN, NT, TN or TT)", f[7]));
  r.shape.layout = f[7];
  if (f[8] == "vendor") {
    r.vendor = true;
    r.config = vendor_config();
    for (std::size_t i = 9; i < 18; ++i)
      if (!f[i].empty())
        fail_at_line(source, line, "a vendor row must leave the config columns empty");
  } else if (f[8] == "triton") {
    parse_config_fields(f, 9, r.config, source, line);
  } else {
    fail_at_line(source, line,
                 fmt::format("unknown kernel '{}' (expected triton or vendor)", f[8]));
  }
  r.sample = int(parse_int_field(f[18], "sample", 0, 1 << 20, source, line));
  parse_result(f, 19, r.result, source, line);
  if (!f[21].empty()) {
    double e = 0;
    const char* end = f[21].data() + f[21].size();
    const auto [ptr, ec] = std::from_chars(f[21].data(), end, e);
    if (ec != std::errc() || ptr != end || !std::isfinite(e) || e < 0)
      fail_at_line(source, line,
                   fmt::format("max_rel_error must be a non-negative number, got '{}'", f[21]));
    r.max_rel_error = e;
  }
  r.result.detail = f[22];
  return r;
}

/// The record of one data line of `version`; throws InputError.
MeasurementRecord parse_data_line(std::string_view line, int version, std::string_view source,
                                  int line_no) {
  std::string error;
  const auto fields = split_csv(line, error);
  if (!error.empty()) fail_at_line(source, line_no, error);
  const std::size_t want = version == 1 ? kFieldsV1 : kFieldsV2;
  if (fields.size() != want)
    fail_at_line(source, line_no,
                 fmt::format("expected {} comma-separated fields, got {}", want, fields.size()));
  return version == 1 ? parse_row(fields, source, line_no) : parse_row_v2(fields, source, line_no);
}

} // namespace

bool operator==(const MeasurementRecord& a, const MeasurementRecord& b) {
  return a.gpu == b.gpu && a.device == b.device && a.worker == b.worker && a.shape == b.shape &&
         a.vendor == b.vendor && a.config == b.config && a.sample == b.sample &&
         a.result.status == b.result.status && a.result.seconds == b.result.seconds &&
         a.result.detail == b.result.detail && a.max_rel_error == b.max_rel_error;
}

bool is_measurement_cache(std::string_view first_line) {
  return trim_field(strip_bom(first_line)).substr(0, kVersionPrefix.size()) == kVersionPrefix;
}

MeasurementFile parse_measurement_file(std::string_view text, std::string_view source) {
  MeasurementFile out;
  bool have_header = false;
  std::string_view header;
  LineCursor lines(text);
  std::string_view line;
  // Where the text after the last newline starts: a line there was not finished.
  const std::size_t last_newline = text.rfind('\n');
  out.complete_bytes = last_newline == std::string_view::npos ? 0 : last_newline + 1;
  const bool torn_tail =
      out.complete_bytes < text.size() && !trim_field(text.substr(out.complete_bytes)).empty();
  int torn_line = 0;
  if (torn_tail) {
    torn_line = 1;
    for (std::size_t i = 0; i < out.complete_bytes; ++i)
      torn_line += text[i] == '\n';
  }
  while (lines.next(line)) {
    const int line_no = lines.line_no();
    if (out.version == 0) {
      if (line == kMeasurementCacheVersionLine) {
        out.version = 1;
        header = kMeasurementCacheHeader;
      } else if (line == kMeasurementCacheV2Line) {
        out.version = 2;
        header = kMeasurementCacheV2Header;
      } else if (line.substr(0, kVersionPrefix.size()) == kVersionPrefix) {
        fail_at_line(source, line_no,
                     fmt::format("unsupported version '{}' (this tilevolve reads '{}' and '{}')",
                                 line, kMeasurementCacheVersionLine, kMeasurementCacheV2Line));
      } else {
        fail_at_line(source, line_no,
                     fmt::format("expected the line '{}' (or '{}') first", kMeasurementCacheV2Line,
                                 kMeasurementCacheVersionLine));
      }
      continue;
    }
    if (line.empty() || line.front() == '#') continue;
    const bool last_torn = out.version == 2 && torn_tail && line_no == torn_line;
    if (!have_header) {
      if (line != header) {
        if (last_torn) { // the header itself was being written
          out.warnings.push_back(
              fmt::format("{}:{}: skipped a truncated last line (the writer was stopped mid-line)",
                          source, line_no));
          break;
        }
        fail_at_line(source, line_no, fmt::format("expected the header '{}'", header));
      }
      have_header = true;
      continue;
    }
    if (last_torn) {
      try {
        out.records.push_back(parse_data_line(line, out.version, source, line_no));
      } catch (const InputError&) {
        out.warnings.push_back(
            fmt::format("{}:{}: skipped a truncated last line (the writer was stopped mid-line)",
                        source, line_no));
      }
      continue;
    }
    out.records.push_back(parse_data_line(line, out.version, source, line_no));
  }
  if (out.version == 0)
    fail_at_line(source, 1,
                 fmt::format("empty file (expected the line '{}')", kMeasurementCacheV2Line));
  if (!have_header && out.warnings.empty())
    fail_at_line(source, lines.line_no(), fmt::format("missing the header '{}'", header));
  return out;
}

std::vector<MeasurementRecord> parse_measurement_cache(std::string_view text,
                                                       std::string_view source) {
  return parse_measurement_file(text, source).records;
}

std::vector<MeasurementRecord> parse_v2_lines(std::string_view text, std::string_view source,
                                              int first_line) {
  std::vector<MeasurementRecord> out;
  LineCursor lines(text);
  std::string_view line;
  while (lines.next(line)) {
    if (line.empty() || line.front() == '#') continue;
    out.push_back(parse_data_line(line, 2, source, first_line + lines.line_no() - 1));
  }
  return out;
}

MeasurementFile load_measurement_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the file", path));
  std::ostringstream buf;
  buf << in.rdbuf();
  return parse_measurement_file(buf.str(), path);
}

std::vector<MeasurementRecord> load_measurement_cache(const std::string& path) {
  MeasurementFile f = load_measurement_file(path);
  print_warnings_once(f);
  return std::move(f.records);
}

void print_warnings_once(const MeasurementFile& file) {
  static std::mutex mutex;
  static std::set<std::string> printed;
  const std::lock_guard<std::mutex> lock(mutex);
  for (const auto& w : file.warnings)
    if (printed.insert(w).second) fmt::print(stderr, "tilevolve: warning: {}\n", w);
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

std::string format_record_v2(const MeasurementRecord& r) {
  const auto knob = [](const std::optional<int>& k) {
    return k ? fmt::format("{}", *k) : std::string();
  };
  const Config& c = r.config;
  const bool ok = r.result.status == MeasureStatus::ok;
  const std::string config =
      r.vendor
          ? std::string(",,,,,,,,")
          : fmt::format("{},{},{},{},{},{},{},{},{}", c.BM, c.BN, c.BK, c.warps, c.stages, c.group,
                        knob(c.waves_per_eu), knob(c.matrix_instr_nonkdim), knob(c.kpack));
  return fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}", csv_field(r.gpu),
                     csv_field(r.device), csv_field(r.worker), r.shape.M, r.shape.N, r.shape.K,
                     dtype_name(r.shape.dtype), r.shape.layout.empty() ? "NN" : r.shape.layout,
                     r.vendor ? "vendor" : "triton", config, r.sample, status_name(r.result.status),
                     ok ? fmt::format("{}", r.result.seconds) : std::string(),
                     r.max_rel_error ? fmt::format("{}", *r.max_rel_error) : std::string(),
                     csv_field(r.result.detail));
}

void MeasurementSummary::add(const Measurement& m) {
  if (m.status == MeasureStatus::unmeasured) return; // says "not measured": adds nothing
  if (m.status == MeasureStatus::ok) {
    ok_.push_back(m.seconds);
    return;
  }
  if (m.status == MeasureStatus::wrong_result) wrong_result_ = true;
  if (!wrong_result_ || m.status == MeasureStatus::wrong_result) {
    last_failure_ = m.status;
    failure_detail_ = m.detail;
  }
}

Measurement MeasurementSummary::result() const {
  Measurement m;
  if (wrong_result_) {
    m.status = MeasureStatus::wrong_result;
    m.detail = failure_detail_;
  } else if (!ok_.empty()) {
    std::vector<double> v = ok_;
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    m.status = MeasureStatus::ok;
    m.seconds = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
  } else {
    m.status = last_failure_;
    m.detail = failure_detail_;
  }
  return m;
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
