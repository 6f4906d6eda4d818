#include "eval/autoheuristic_data.hpp"

#include "ir/error.hpp"
#include "models/csv_fields.hpp"
#include "models/json_text.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

namespace tv {

namespace {

/// Inductor never launches an mm block smaller than this (min_block_size in
/// filtered_configs, torch/_inductor/kernel/mm_common.py; 32 only for int8 operands).
constexpr int kMinBlock = 16;
/// "each warp computes 16x16 tile = 256" (same function): output elements per warp.
constexpr int kElementsPerWarp = 256;
/// Problem sizes we accept (the same bound as shape files).
constexpr std::int64_t kMaxSize = kMaxShapeDim;

/// The columns we read, by name in the header.
enum Column {
  kM,
  kK,
  kN,
  kDtype1,
  kDtype2,
  kStride10,
  kStride11,
  kStride20,
  kStride21,
  kContig1,
  kContig2,
  kTf32,
  kChoice,
  kFeedback,
  kColumns
};
constexpr std::array<std::string_view, kColumns> kColumnNames = {"m",
                                                                 "k",
                                                                 "n",
                                                                 "mat1_dtype",
                                                                 "mat2_dtype",
                                                                 "mat1_stride_0",
                                                                 "mat1_stride_1",
                                                                 "mat2_stride_0",
                                                                 "mat2_stride_1",
                                                                 "mat1_iscontig",
                                                                 "mat2_iscontig",
                                                                 "using_tf32",
                                                                 "choice",
                                                                 "feedback"};
/// Columns a file may lack (the layout falls back to strides, tf32 to false).
bool optional_column(int c) {
  return c == kContig1 || c == kContig2 || c == kTf32;
}

bool parse_bool(std::string_view field, std::string_view what, std::string_view source, int line) {
  if (field == "True" || field == "true" || field == "1") return true;
  if (field == "False" || field == "false" || field == "0") return false;
  fail_at_line(source, line, fmt::format("{} must be True or False, got '{}'", what, field));
}

/// "torch.bfloat16" -> bf16; nullopt for a dtype tilevolve has no name for.
std::optional<DType> torch_dtype(std::string_view s) {
  if (s.substr(0, 6) == "torch.") s.remove_prefix(6);
  return parse_dtype(s);
}

/// Parses "type=triton_BLOCK-M=16_BLOCK-K=32_BLOCK-N=64_numstages=3_numwarps=4" (keys in any
/// order, each exactly once, nothing else).
Config parse_triton_choice(std::string_view choice, std::string_view source, int line) {
  constexpr std::string_view prefix = "type=triton_";
  const auto bad = [&](const std::string& why) {
    fail_at_line(
        source, line,
        fmt::format("choice '{}': {} (expected extern_mm or type=triton_BLOCK-M=.._BLOCK-K=.."
                    "_BLOCK-N=.._numstages=.._numwarps=..)",
                    choice, why));
  };
  if (choice.substr(0, prefix.size()) != prefix) bad("unknown kind of choice");
  std::string_view rest = choice.substr(prefix.size());
  constexpr std::array<std::string_view, 5> keys = {"BLOCK-M", "BLOCK-K", "BLOCK-N", "numstages",
                                                    "numwarps"};
  std::array<std::optional<int>, 5> value;
  while (!rest.empty()) {
    const std::size_t us = rest.find('_');
    const std::string_view item = rest.substr(0, us);
    rest.remove_prefix(us == std::string_view::npos ? rest.size() : us + 1);
    const std::size_t eq = item.find('=');
    if (eq == std::string_view::npos) bad(fmt::format("'{}' is not key=value", item));
    const std::string_view key = item.substr(0, eq);
    const auto k = std::find(keys.begin(), keys.end(), key);
    if (k == keys.end()) bad(fmt::format("unknown key '{}'", key));
    auto& slot = value[std::size_t(k - keys.begin())];
    if (slot) bad(fmt::format("key '{}' given twice", key));
    slot = int(parse_int_field(item.substr(eq + 1), key, 1, 1 << 20, source, line));
  }
  for (std::size_t i = 0; i < keys.size(); ++i)
    if (!value[i]) bad(fmt::format("missing {}", keys[i]));
  Config c;
  c.BM = *value[0];
  c.BK = *value[1];
  c.BN = *value[2];
  c.stages = *value[3];
  c.warps = *value[4];
  c.group = kInductorGroupM;
  return c;
}

/// The feedback column: milliseconds, or "inf" for a failed config. Returns seconds.
std::optional<double> parse_feedback(std::string_view field, std::string_view source, int line) {
  if (field == "inf" || field == "Infinity") return std::nullopt;
  double ms = 0;
  const char* end = field.data() + field.size();
  const auto [ptr, ec] = std::from_chars(field.data(), end, ms);
  if (field.empty() || ec != std::errc() || ptr != end)
    fail_at_line(source, line,
                 fmt::format("feedback must be a time in milliseconds or inf, got '{}'", field));
  if (!std::isfinite(ms) || !(ms > 0))
    fail_at_line(source, line,
                 fmt::format("feedback must be a positive finite time or inf, got '{}'", field));
  if (ms * 1e-3 < kMinKernelSeconds || ms * 1e-3 > kMaxKernelSeconds)
    fail_at_line(source, line,
                 fmt::format("feedback must be a plausible kernel time from {:g} to {:g} ms, got "
                             "'{}'",
                             kMinKernelSeconds * 1e3, kMaxKernelSeconds * 1e3, field));
  return ms * 1e-3;
}

char layout_letter(std::int64_t s0, std::int64_t s1, bool contig) {
  if (s1 == 1 && s0 != 1) return 'N';
  if (s0 == 1 && s1 != 1) return 'T';
  if (s0 == 1 && s1 == 1) return contig ? 'N' : 'T';
  return 'S';
}

void parse_json_line(std::string_view line, std::string_view source, AutoHeuristicData& out) {
  // Strict: malformed text and repeated keys are reported with their column on line 1.
  nlohmann::json j;
  try {
    j = parse_json_text(line, source);
  } catch (const InputError& e) {
    std::string_view why = e.what();
    const std::string prefix = fmt::format("{}:1:", source);
    if (why.substr(0, prefix.size()) == prefix) why.remove_prefix(prefix.size());
    fail_at_line(source, 1,
                 fmt::format("expected a JSON object describing the dataset (column {})", why));
  }
  if (!j.is_object()) fail_at_line(source, 1, "expected a JSON object describing the dataset");
  if (auto it = j.find("name"); it != j.end() && it->is_string()) out.name = *it;
  if (auto it = j.find("shared_memory"); it != j.end()) {
    if (!it->is_number_integer() || it->get<long long>() <= 0 || it->get<long long>() > (1LL << 40))
      fail_at_line(source, 1, "\"shared_memory\" must be a positive integer (bytes, at most 2^40)");
    out.shared_memory = it->get<long long>();
  }
  if (auto it = j.find("device_capa"); it != j.end()) {
    const auto small = [](const nlohmann::json& v) {
      return v.is_number_integer() && v.get<long long>() >= 0 && v.get<long long>() <= 1000;
    };
    if (!it->is_array() || it->size() != 2 || !small((*it)[0]) || !small((*it)[1]))
      fail_at_line(source, 1, "\"device_capa\" must be [major, minor]");
    out.device_capability = std::pair<int, int>((*it)[0].get<int>(), (*it)[1].get<int>());
  }
}

} // namespace

bool looks_like_autoheuristic(std::string_view first_line) {
  first_line = trim_field(strip_bom(first_line));
  return !first_line.empty() && first_line.front() == '{';
}

std::string layout_of(std::int64_t s10, std::int64_t s11, bool contig1, std::int64_t s20,
                      std::int64_t s21, bool contig2) {
  return {layout_letter(s10, s11, contig1), layout_letter(s20, s21, contig2)};
}

AutoHeuristicData parse_autoheuristic(std::string_view text, std::string_view source) {
  AutoHeuristicData out;
  std::array<int, kColumns> index;
  index.fill(-1);
  std::size_t width = 0;
  bool have_json = false, have_header = false;
  LineCursor lines(text);
  std::string_view line;
  while (lines.next(line)) {
    const int line_no = lines.line_no();
    if (!have_json) {
      if (line_no != 1 || line.empty() || line.front() != '{')
        fail_at_line(source, line_no, "expected the dataset's JSON object on line 1");
      parse_json_line(line, source, out);
      have_json = true;
      continue;
    }
    if (line.empty()) continue;
    const auto fields = split_csv_fields(line);
    if (!have_header) {
      for (std::size_t i = 0; i < fields.size(); ++i)
        for (int c = 0; c < kColumns; ++c)
          if (fields[i] == kColumnNames[std::size_t(c)]) {
            if (index[std::size_t(c)] >= 0)
              fail_at_line(source, line_no, fmt::format("column '{}' appears twice", fields[i]));
            index[std::size_t(c)] = int(i);
          }
      for (int c = 0; c < kColumns; ++c)
        if (index[std::size_t(c)] < 0 && !optional_column(c))
          fail_at_line(
              source, line_no,
              fmt::format("header lacks column '{}' (expected m,k,n,mat1_dtype,mat2_dtype,"
                          "mat1_stride_0,mat1_stride_1,mat2_stride_0,mat2_stride_1,...,choice,"
                          "feedback)",
                          kColumnNames[std::size_t(c)]));
      width = fields.size();
      have_header = true;
      continue;
    }
    if (fields.size() != width)
      fail_at_line(source, line_no,
                   fmt::format("expected {} comma-separated fields, got {}", width, fields.size()));
    const auto field = [&](Column c) -> std::string_view {
      return index[c] < 0 ? std::string_view() : fields[std::size_t(index[c])];
    };

    AutoHeuristicRow row;
    row.line = line_no;
    row.M = parse_int_field(field(kM), "m", 1, kMaxSize, source, line_no);
    row.N = parse_int_field(field(kN), "n", 1, kMaxSize, source, line_no);
    row.K = parse_int_field(field(kK), "k", 1, kMaxSize, source, line_no);
    const auto d1 = torch_dtype(field(kDtype1)), d2 = torch_dtype(field(kDtype2));
    const auto stride = [&](Column c, std::string_view what) {
      return parse_int_field(field(c), what, 0, std::numeric_limits<std::int64_t>::max(), source,
                             line_no);
    };
    const std::int64_t s10 = stride(kStride10, "mat1_stride_0"),
                       s11 = stride(kStride11, "mat1_stride_1"),
                       s20 = stride(kStride20, "mat2_stride_0"),
                       s21 = stride(kStride21, "mat2_stride_1");
    const bool c1 =
        index[kContig1] >= 0 && parse_bool(field(kContig1), "mat1_iscontig", source, line_no);
    const bool c2 =
        index[kContig2] >= 0 && parse_bool(field(kContig2), "mat2_iscontig", source, line_no);
    row.layout = layout_of(s10, s11, c1, s20, s21, c2);
    // using_tf32 is "True"/"False" for float32 rows and "not_float_32" otherwise.
    row.tf32 = index[kTf32] >= 0 && field(kTf32) == "True";
    const std::string_view choice = field(kChoice);
    if (choice != "extern_mm") row.config = parse_triton_choice(choice, source, line_no);
    row.seconds = parse_feedback(field(kFeedback), source, line_no);
    if (!d1 || !d2 || *d1 != *d2) {
      ++out.skipped_rows; // mixed or unnamed dtypes: not a GEMM tilevolve can describe
      continue;
    }
    row.dtype = *d1;
    out.rows.push_back(std::move(row));
  }
  if (!have_json)
    fail_at_line(source, 1, "empty file (expected the dataset's JSON object on line 1)");
  if (!have_header)
    fail_at_line(source, lines.line_no(), "missing the CSV header after the JSON line");
  return out;
}

AutoHeuristicData load_autoheuristic_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the file", path));
  std::ostringstream buf;
  buf << in.rdbuf();
  return parse_autoheuristic(buf.str(), path);
}

Config inductor_shrink(const Config& c, std::int64_t M, std::int64_t N, std::int64_t K) {
  // Inductor's filtered_configs (torch/_inductor/kernel/mm_common.py, "Heuristic to shrink
  // configs when they are bigger than the input size"): each dim is rounded up to a power of
  // two (at least 16), each block is capped by it and kept at least 16, then warps are capped
  // at one 16x16 output tile per warp on the shrunk blocks.
  const auto shrink = [](int block, std::int64_t dim) {
    if (dim >= block) return std::max(block, kMinBlock); // next_pow2(dim) >= dim >= block
    std::int64_t p = 1;
    while (p < dim)
      p *= 2;
    return std::max(int(std::min<std::int64_t>(block, p)), kMinBlock);
  };
  Config out = c;
  out.BM = shrink(c.BM, M);
  out.BN = shrink(c.BN, N);
  out.BK = shrink(c.BK, K);
  const std::int64_t tiles = std::int64_t(out.BM) * out.BN / kElementsPerWarp;
  out.warps = int(std::max<std::int64_t>(1, std::min<std::int64_t>(c.warps, tiles)));
  return out;
}

} // namespace tv
