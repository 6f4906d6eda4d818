#include "models/workloads/inline_shapes.hpp"

#include "ir/error.hpp"
#include "models/csv_fields.hpp"

#include <charconv>
#include <fmt/format.h>
#include <set>

namespace tv {

namespace {

[[noreturn]] void bad(std::string_view spec, const std::string& why) {
  throw InputError(fmt::format(
      "--inline '{}': {} (expected M,N,K or M,N,K,dtype, e.g. 128,4096,4096,bf16)", spec, why));
}

std::int64_t size_field(std::string_view spec, std::string_view f, const char* what) {
  std::int64_t v = 0;
  const auto [ptr, ec] = std::from_chars(f.data(), f.data() + f.size(), v);
  if (f.empty() || ec != std::errc() || ptr != f.data() + f.size() || v < 1 || v > kMaxShapeDim)
    bad(spec, fmt::format("{} must be an integer in [1, 2^31], got '{}'", what, f));
  return v;
}

} // namespace

Shape parse_inline_shape(std::string_view spec) {
  const std::vector<std::string_view> f = split_csv_fields(spec);
  if (f.size() != 3 && f.size() != 4) bad(spec, fmt::format("{} fields", f.size()));
  Shape s;
  s.M = size_field(spec, f[0], "M");
  s.N = size_field(spec, f[1], "N");
  s.K = size_field(spec, f[2], "K");
  if (f.size() == 4) {
    const auto d = parse_dtype(f[3]);
    if (!d) bad(spec, fmt::format("unknown dtype '{}' (bf16, f16, f32 or fp8)", f[3]));
    s.dtype = *d;
  }
  s.name = fmt::format("inline:{}:M{}:N{}:K{}", dtype_name(s.dtype), s.M, s.N, s.K);
  return s;
}

std::vector<Shape> parse_inline_shapes(const std::vector<std::string>& specs) {
  if (specs.empty()) throw InputError("--inline: no shape given");
  std::vector<Shape> out;
  std::set<std::string> names;
  for (const std::string& spec : specs) {
    Shape s = parse_inline_shape(spec);
    if (!names.insert(s.name).second)
      throw InputError(fmt::format("--inline '{}': the same shape is given twice", spec));
    out.push_back(std::move(s));
  }
  return out;
}

} // namespace tv
