#include "models/shape_file.hpp"

#include "ir/error.hpp"
#include "models/csv_fields.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <optional>
#include <system_error>

namespace tv {

namespace {

constexpr std::int64_t kMaxSize = kMaxShapeDim;

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = char(c - 'A' + 'a');
  return out;
}

std::string join(const std::vector<std::string_view>& parts) {
  std::string out;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    if (i) out += ',';
    out += parts[i];
  }
  return out;
}

/// The header of a shape file, as messages show it: the required columns, then the optional ones.
constexpr std::string_view kShapeCsvHeader = "name,M,N,K[,dtype][,weight][,layout]";

/// The columns a shape file may have, in canonical order.
enum Column { kName, kM, kN, kK, kDtype, kWeight, kLayout, kColumns };
constexpr std::array<std::string_view, kColumns> kColumnNames = {"name",  "M",      "N",     "K",
                                                                 "dtype", "weight", "layout"};

std::optional<Column> column_of(std::string_view field) {
  const std::string l = lower(field);
  for (int c = 0; c < kColumns; ++c)
    if (l == lower(kColumnNames[c])) return Column(c);
  return std::nullopt;
}

/// Reports "<source>:<line>: <what>".

std::int64_t parse_size(std::string_view field, std::string_view column, std::string_view source,
                        int line) {
  std::int64_t v = 0;
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, v);
  const bool too_big = ec == std::errc::result_out_of_range && field.front() != '-';
  if (ec == std::errc::invalid_argument || ptr != end || (!too_big && v <= 0))
    fail_at_line(source, line,
                 fmt::format("{} must be a positive integer, got '{}'", column, field));
  if (too_big || v > kMaxSize)
    fail_at_line(source, line,
                 fmt::format("{} must be at most 2^31 ({}), got '{}'", column, kMaxSize, field));
  return v;
}

double parse_weight(std::string_view field, std::string_view source, int line) {
  double v = 0;
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, v);
  if (field.empty() || ec != std::errc() || ptr != end || !std::isfinite(v) || v < 0)
    fail_at_line(source, line, fmt::format("weight must be a finite number >= 0, got '{}'", field));
  return v;
}

} // namespace

std::vector<Shape> parse_shape_csv(std::string_view text, std::string_view source) {
  std::array<int, kColumns> index; // field index of each column, -1 when absent
  index.fill(-1);
  std::size_t width = 0; // fields per row, from the header
  bool have_header = false;
  std::vector<Shape> shapes;
  std::map<std::string, int, std::less<>> first_line; // name -> line it was defined on
  double weight_sum = 0;

  LineCursor lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const int line_no = lines.line_no();
    if (line.empty() || line.front() == '#') continue;
    const std::vector<std::string_view> fields = split_csv_fields(line);

    if (!have_header) {
      have_header = true;
      width = fields.size();
      for (std::size_t i = 0; i < fields.size(); ++i) {
        const auto col = column_of(fields[i]);
        if (!col) {
          // A hipBLASLt log given as a shape CSV: its lines are YAML maps "- {function: ...".
          const bool log = line.rfind("- {", 0) == 0 || line.find("function:") != line.npos;
          fail_at_line(
              source, line_no,
              fmt::format("unknown column '{}' (expected name, M, N, K, dtype, weight, layout){}",
                          fields[i],
                          log ? "; this looks like a hipBLASLt log: read it with --workload-log"
                              : ""));
        }
        if (index[*col] >= 0)
          fail_at_line(source, line_no, fmt::format("duplicate column '{}'", kColumnNames[*col]));
        index[*col] = int(i);
      }
      for (Column c : {kName, kM, kN, kK})
        if (index[c] < 0)
          fail_at_line(
              source, line_no,
              fmt::format("missing column '{}' (header has: {})", kColumnNames[c], join(fields)));
      continue;
    }

    if (fields.size() != width)
      fail_at_line(source, line_no,
                   fmt::format("expected {} fields, got {}", width, fields.size()));
    Shape s;
    s.name = std::string(fields[index[kName]]);
    if (s.name.empty()) fail_at_line(source, line_no, "empty name");
    s.M = parse_size(fields[index[kM]], "M", source, line_no);
    s.N = parse_size(fields[index[kN]], "N", source, line_no);
    s.K = parse_size(fields[index[kK]], "K", source, line_no);
    if (index[kDtype] >= 0) {
      const std::string_view d = fields[index[kDtype]];
      const auto dtype = parse_dtype(d);
      if (!dtype)
        fail_at_line(source, line_no,
                     fmt::format("unknown dtype '{}' (expected bf16, f16, f32, fp8)", d));
      s.dtype = *dtype;
    }
    if (index[kWeight] >= 0) {
      s.weight = parse_weight(fields[index[kWeight]], source, line_no);
      weight_sum += s.weight;
      if (!std::isfinite(weight_sum))
        fail_at_line(source, line_no,
                     fmt::format("the weights up to this line sum to more than {:g} (the largest "
                                 "double); scale them down (only their ratios matter)",
                                 std::numeric_limits<double>::max()));
    }
    if (index[kLayout] >= 0) {
      const std::string_view l = fields[index[kLayout]];
      if (!l.empty() && !is_shape_layout(l))
        fail_at_line(source, line_no,
                     fmt::format("unknown layout '{}' (expected NN, NT, TN or TT)", l));
      s.layout = std::string(l);
    }
    const auto [it, inserted] = first_line.emplace(s.name, line_no);
    if (!inserted)
      fail_at_line(source, line_no,
                   fmt::format("duplicate shape name '{}' (first on line {})", s.name, it->second));
    shapes.push_back(std::move(s));
  }

  if (shapes.empty())
    throw InputError(
        have_header
            ? fmt::format("{}: no shapes: the header is there, but no line after it holds a "
                          "shape (one a line, e.g. 'llama3-8b:qkv:M16,16,6144,4096')",
                          source)
            : fmt::format("{}: no shapes: expected the header '{}' and then one shape a line, "
                          "e.g. 'llama3-8b:qkv:M16,16,6144,4096' (the columns after K are "
                          "optional)",
                          source, kShapeCsvHeader));
  bool any_weight = false;
  for (const Shape& s : shapes)
    any_weight = any_weight || s.weight > 0;
  if (!any_weight)
    throw InputError(
        fmt::format("{}: all weights are zero (at least one must be positive)", source));
  return shapes;
}

std::vector<Shape> load_shape_file(const std::string& path) {
  const auto cannot_read = [&](int err) {
    return InputError(
        fmt::format("cannot read '{}': {}", path, err ? std::strerror(err) : "unknown error"));
  };
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw cannot_read(errno);
  std::string text;
  char buf[1 << 14];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
    text.append(buf, n);
  const int err = errno;
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) throw cannot_read(err); // e.g. a directory: EISDIR
  return parse_shape_csv(text, path);
}

std::string format_shape_csv(const std::vector<Shape>& shapes) {
  const bool layouts =
      std::any_of(shapes.begin(), shapes.end(), [](const Shape& s) { return !s.layout.empty(); });
  std::string out = layouts ? "name,M,N,K,dtype,weight,layout\n" : "name,M,N,K,dtype,weight\n";
  for (const Shape& s : shapes) {
    // Unnamed shapes get their MxNxK label so the file loads back (names are required there).
    const std::string name = s.name.empty() ? s.label() : s.name;
    if (name.find_first_of(",\n\r") != std::string::npos || trim_field(name) != name ||
        name.front() == '#')
      throw InputError(fmt::format(
          "cannot write shape name '{}' to CSV (no commas, line breaks, leading '#', or "
          "surrounding spaces)",
          name));
    if (!s.layout.empty() && !is_shape_layout(s.layout))
      throw InputError(fmt::format(
          "cannot write shape '{}' to CSV: unknown layout '{}' (expected NN, NT, TN or TT)", name,
          s.layout));
    out += fmt::format("{},{},{},{},{},{}", name, s.M, s.N, s.K, dtype_name(s.dtype), s.weight);
    if (layouts) out += "," + s.layout;
    out += '\n';
  }
  return out;
}

} // namespace tv
