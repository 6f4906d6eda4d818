#include "models/workloads/hipblaslt_log.hpp"

#include "ir/error.hpp"
#include "models/csv_fields.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

namespace tv {

namespace {

/// Longest line accepted (a real entry is about 600 characters).
constexpr std::size_t kMaxLine = 16 * 1024;
/// Largest call_count accepted (2^50: far beyond any run, small enough to sum exactly).
constexpr std::int64_t kMaxCalls = std::int64_t(1) << 50;
/// Skip reasons a summary names (the most frequent); the others are counted together.
constexpr std::size_t kShownReasons = 8;
/// Longest value quoted in a skip reason or a message (a function name can be 16 KiB long).
constexpr std::size_t kMaxQuoted = 80;

/// `v`, cut to kMaxQuoted bytes with "..." when longer.
std::string quoted_value(std::string_view v) {
  if (v.size() <= kMaxQuoted) return std::string(v);
  return std::string(v.substr(0, kMaxQuoted)) + fmt::format("...({} bytes)", v.size());
}

/// Deepest nesting of '{' and '[' on the line, or -1 when the brackets do not balance (quotes
/// are not special: hipBLASLt writes no brackets inside values).
int bracket_depth(std::string_view line) {
  int depth = 0, deepest = 0;
  for (char c : line) {
    if (c == '{' || c == '[') deepest = std::max(deepest, ++depth);
    if (c == '}' || c == ']') {
      if (--depth < 0) return -1;
    }
  }
  return depth == 0 ? deepest : -1;
}

/// The one map of an entry line: a flow map, or a one-item sequence holding one.
YAML::Node entry_map(std::string_view line, std::string_view source, int line_no) {
  if (line.size() > kMaxLine)
    fail_at_line(
        source, line_no,
        fmt::format("line is {} bytes long; an entry is at most {}", line.size(), kMaxLine));
  const int depth = bracket_depth(line);
  if (depth != 1)
    fail_at_line(source, line_no,
                 depth < 0
                     ? std::string("unbalanced braces or brackets")
                     : fmt::format("expected one flow map '{{...}}', found {}",
                                   depth == 0 ? std::string("none")
                                              : "nesting " + std::to_string(depth) + " deep"));
  YAML::Node doc;
  try {
    doc = YAML::Load(std::string(line));
  } catch (const YAML::Exception& e) {
    fail_at_line(source, line_no,
                 e.mark.column >= 0
                     ? fmt::format("malformed YAML at column {}: {}", e.mark.column + 1, e.msg)
                     : fmt::format("malformed YAML: {}", e.msg));
  }
  // A new handle, not an assignment: assigning a child to its parent's handle would rebind
  // the parent node itself.
  const YAML::Node map = doc.IsSequence() && doc.size() == 1 ? doc[0] : doc;
  if (!map.IsMap())
    fail_at_line(source, line_no,
                 "expected one entry '- {function: matmul, M: ..., N: ..., K: ..., ...}'");
  // yaml-cpp keeps every pair of a repeated key and looks up the first: refused instead, as
  // hipBLASLt never repeats one.
  std::set<std::string> keys;
  for (const auto& kv : map)
    if (!keys.insert(kv.first.Scalar()).second)
      fail_at_line(source, line_no,
                   fmt::format("key '{}' is given twice", quoted_value(kv.first.Scalar())));
  return map;
}

/// The scalar text of `key`, or nullopt when the entry has no such key.
std::optional<std::string> scalar(const YAML::Node& map, const char* key, std::string_view source,
                                  int line_no) {
  const YAML::Node v = map[key];
  if (!v.IsDefined() || v.IsNull()) return std::nullopt;
  if (!v.IsScalar()) fail_at_line(source, line_no, fmt::format("{} must be a plain value", key));
  return v.Scalar();
}

std::string required(const YAML::Node& map, const char* key, std::string_view source, int line_no) {
  auto v = scalar(map, key, source, line_no);
  if (!v) fail_at_line(source, line_no, fmt::format("missing {}", key));
  return *v;
}

std::int64_t integer(const YAML::Node& map, const char* key, std::int64_t lo, std::int64_t hi,
                     std::int64_t fallback, bool needed, std::string_view source, int line_no) {
  const auto v = needed ? std::optional(required(map, key, source, line_no))
                        : scalar(map, key, source, line_no);
  if (!v) return fallback;
  return parse_int_field(*v, key, lo, hi, source, line_no);
}

char trans(const YAML::Node& map, const char* key, std::string_view source, int line_no) {
  const std::string v = required(map, key, source, line_no);
  if (v != "N" && v != "T")
    fail_at_line(source, line_no, fmt::format("{} must be N or T, got '{}'", key, quoted_value(v)));
  return v[0];
}

/// The dtype of a hipBLASLt type name tilevolve times, or nullopt.
std::optional<DType> timed_type(std::string_view t) {
  if (t == "bf16_r") return DType::bf16;
  if (t == "f16_r") return DType::f16;
  if (t == "f32_r") return DType::f32;
  // One rule for fp8 wherever a shape comes from (--inline, a shape CSV, a log): tuned as
  // tilevolve's one-byte float type, e4m3 (f8) and e5m2 (bf8) alike, OCP or FNUZ.
  if (t == "f8_r" || t == "f8_fnuz_r" || t == "bf8_r" || t == "bf8_fnuz_r") return DType::fp8;
  return std::nullopt;
}

std::string plural(double n, std::string_view one, std::string_view many) {
  return fmt::format("{:.0f} {}", n, n == 1 ? one : many);
}

std::string sanitize(std::string s) {
  for (char& c : s)
    if (!(std::isalnum((unsigned char)c) || c == '.' || c == '_' || c == '-')) c = '_';
  return s.empty() ? std::string("log") : s;
}

} // namespace

RowMajorGemm row_major_of(std::int64_t m, std::int64_t n, std::int64_t k, char transA,
                          char transB) {
  // Column-major D[m,n] = op(A) op(B) is row-major D^T[n,m] = op(B)^T op(A)^T; the row-major
  // first operand is B's buffer (row-major exactly when B was not transposed), the second A's.
  return {n, m, k, std::string{transB, transA}};
}

std::string HipblasltLog::summary() const {
  std::string out =
      fmt::format("{}, {} kept -> {} after merging identical ones (weight = call_count x "
                  "batch_count)",
                  plural(double(entries), "entry", "entries"), kept_lines,
                  plural(double(shapes.size()), "GEMM", "GEMMs"));
  if (skipped.empty()) return out + "; nothing skipped";
  // The most frequent reasons (by entries, then by name), the rest as one count: a log of
  // 400k distinct unknown functions must not make a 40 MB message.
  using Reason = std::pair<const std::string, std::pair<std::size_t, double>>;
  std::vector<const Reason*> order;
  std::size_t lines = 0;
  for (const Reason& r : skipped) {
    order.push_back(&r);
    lines += r.second.first;
  }
  const std::size_t shown = std::min(order.size(), kShownReasons);
  std::partial_sort(order.begin(), order.begin() + std::ptrdiff_t(shown), order.end(),
                    [](const Reason* a, const Reason* b) {
                      if (a->second.first != b->second.first)
                        return a->second.first > b->second.first;
                      return a->first < b->first;
                    });
  std::string parts;
  std::size_t rest_lines = 0;
  double rest_calls = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const Reason& r = *order[i];
    if (i < shown) {
      parts += fmt::format("{}{} with {} ({})", parts.empty() ? "" : ", ", r.second.first, r.first,
                           plural(r.second.second, "call", "calls"));
    } else {
      rest_lines += r.second.first;
      rest_calls += r.second.second;
    }
  }
  if (order.size() > shown)
    parts += fmt::format(", and {} with {} other reasons ({})", rest_lines, order.size() - shown,
                         plural(rest_calls, "call", "calls"));
  return out + fmt::format("; skipped {}: {}", plural(double(lines), "entry", "entries"), parts);
}

HipblasltLog parse_hipblaslt_log(std::string_view text, std::string_view source,
                                 std::string_view prefix) {
  using Key = std::tuple<std::int64_t, std::int64_t, std::int64_t, DType, std::string>;
  std::map<Key, std::size_t> index; // key -> position in out.shapes
  HipblasltLog out;
  LineCursor lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const int n = lines.line_no();
    if (line.empty() || line.front() == '#') continue;
    const YAML::Node e = entry_map(line, source, n);
    ++out.entries;
    const std::string function = required(e, "function", source, n);
    if (function != "matmul") { // other functions have other fields: counted, not read
      const auto calls = scalar(e, "call_count", source, n);
      std::int64_t c = 1;
      if (calls) c = parse_int_field(*calls, "call_count", 1, kMaxCalls, source, n);
      auto& s = out.skipped["function " + quoted_value(function)];
      s.first += 1;
      s.second += double(c);
      continue;
    }
    // Every matmul entry is checked in full, also one that is then skipped for its type.
    const std::int64_t m = integer(e, "M", 0, kMaxShapeDim, 0, true, source, n);
    const std::int64_t nn = integer(e, "N", 0, kMaxShapeDim, 0, true, source, n);
    const std::int64_t k = integer(e, "K", 0, kMaxShapeDim, 0, true, source, n);
    const char ta = trans(e, "transA", source, n);
    const char tb = trans(e, "transB", source, n);
    const std::int64_t batch = integer(e, "batch_count", 1, kMaxShapeDim, 1, false, source, n);
    const std::int64_t calls = integer(e, "call_count", 1, kMaxCalls, 1, false, source, n);
    const std::string a = required(e, "a_type", source, n);
    const std::string b = required(e, "b_type", source, n);

    auto skip = [&](std::string why) {
      auto& s = out.skipped[std::move(why)];
      s.first += 1;
      s.second += double(calls);
    };
    const auto dtype = timed_type(a);
    if (a != b) {
      skip(fmt::format("mixed types a_type {} b_type {}", quoted_value(a), quoted_value(b)));
      continue;
    }
    if (!dtype) {
      skip("a_type " + quoted_value(a));
      continue;
    }
    if (m == 0 || nn == 0 || k == 0) {
      skip("a zero size");
      continue;
    }
    const RowMajorGemm g = row_major_of(m, nn, k, ta, tb);
    const Key key{g.M, g.N, g.K, *dtype, g.layout};
    auto [it, fresh] = index.emplace(key, out.shapes.size());
    if (fresh) {
      Shape s;
      s.M = g.M;
      s.N = g.N;
      s.K = g.K;
      s.dtype = *dtype;
      s.layout = g.layout;
      s.weight = 0;
      s.name =
          fmt::format("{}:{}:{}:M{}:N{}:K{}", prefix, dtype_name(s.dtype), s.layout, s.M, s.N, s.K);
      out.shapes.push_back(std::move(s));
    }
    out.shapes[it->second].weight += double(calls) * double(batch);
    ++out.kept_lines;
    out.kept_calls += double(calls);
  }
  if (out.shapes.empty())
    throw InputError(fmt::format(
        "{}: no bf16, f16 or f32 matmul GEMM to tune ({})", source,
        out.entries == 0 ? std::string("no entries; expected hipBLASLt profile lines written "
                                       "with HIPBLASLT_LOG_MASK=64")
                         : out.summary()));
  return out;
}

HipblasltLog load_hipblaslt_log(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: is a directory, not a hipBLASLt log", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("cannot read '{}'", path));
  std::ostringstream buf;
  buf << in.rdbuf();
  return parse_hipblaslt_log(buf.str(), path,
                             sanitize(std::filesystem::path(path).stem().string()));
}

} // namespace tv
