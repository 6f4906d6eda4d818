#include "ir/training_range.hpp"

#include "ir/error.hpp"
#include "ir/exporters/m_segments.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace tv {

namespace {

/// Counts `s` into a box of `count` shapes: the box grows to hold it.
void add(std::size_t& count, Box& b, const Shape& s) {
  const std::int64_t v[3] = {s.M, s.N, s.K};
  for (int d = 0; d < 3; ++d)
    b.dim[d] = count == 0 ? Interval{v[d], v[d]}
                          : Interval{std::min(b.dim[d].lo, v[d]), std::max(b.dim[d].hi, v[d])};
  ++count;
}

std::string range_text(const Interval& i) {
  return i.lo == i.hi ? std::to_string(i.lo) : fmt::format("{}..{}", i.lo, i.hi);
}

nlohmann::ordered_json pair_json(const Interval& i) {
  return nlohmann::ordered_json::array({i.lo, i.hi});
}

/// [lo, hi] at `key` of `j`: two integers 1 <= lo <= hi <= kDimMax.
Interval read_pair(const nlohmann::json& j, const char* key, const std::string& where) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_array() || it->size() != 2 || !(*it)[0].is_number_integer() ||
      !(*it)[1].is_number_integer())
    throw InputError(fmt::format("{}: \"{}\" must be [lo, hi], two integers", where, key));
  const auto lo = (*it)[0].get<std::int64_t>(), hi = (*it)[1].get<std::int64_t>();
  if ((*it)[0].is_number_unsigned() && (*it)[0].get<std::uint64_t>() > std::uint64_t(kDimMax))
    throw InputError(fmt::format("{}: \"{}\" is out of range", where, key));
  if ((*it)[1].is_number_unsigned() && (*it)[1].get<std::uint64_t>() > std::uint64_t(kDimMax))
    throw InputError(fmt::format("{}: \"{}\" is out of range", where, key));
  if (lo < 1 || hi < lo || hi > kDimMax)
    throw InputError(
        fmt::format("{}: \"{}\" must be [lo, hi] with 1 <= lo <= hi <= {}", where, key, kDimMax));
  return {lo, hi};
}

/// The non-negative count at "shapes".
std::size_t read_count(const nlohmann::json& j, const std::string& where) {
  const auto it = j.find("shapes");
  if (it == j.end() || !it->is_number_integer() ||
      (!it->is_number_unsigned() && it->get<std::int64_t>() < 0))
    throw InputError(where + ": \"shapes\" must be a non-negative integer");
  return it->get<std::size_t>();
}

/// The box from "M", "N" and "K".
Box read_box(const nlohmann::json& j, const std::string& where) {
  Box b;
  b.dim[0] = read_pair(j, "M", where);
  b.dim[1] = read_pair(j, "N", where);
  b.dim[2] = read_pair(j, "K", where);
  return b;
}

} // namespace

bool TrainingRange::contains(const Program& p, const Shape& s) const {
  const int rule = p.deciding_rule(s);
  const std::size_t b = rule < 0 ? p.rules.size() : std::size_t(rule);
  return b < branches.size() && branches[b].shapes > 0 && branches[b].box.contains(s);
}

TrainingRange training_range(const Program& p, const std::vector<Shape>& train) {
  TrainingRange t;
  t.branches.resize(p.rules.size() + 1);
  for (const Shape& s : train) {
    add(t.shapes, t.box, s);
    const int rule = p.deciding_rule(s);
    BranchRange& b = t.branches[rule < 0 ? p.rules.size() : std::size_t(rule)];
    add(b.shapes, b.box, s);
  }
  return t;
}

TrainingRange box_only_range(const TrainingRange& t, const Program& p) {
  TrainingRange out = t;
  out.branches.assign(p.rules.size() + 1, BranchRange{t.shapes, t.box});
  return out;
}

std::string training_range_text(const TrainingRange& t) {
  if (t.shapes == 0) return "Training range: no training shapes.";
  return fmt::format("Training range: {} training shape{}, M {}, N {}, K {}; in_training_range(M, "
                     "N, K) holds where the rule that decides (M, N, K) decided training shapes "
                     "and (M, N, K) lies in their box (min..max of M, N and K).",
                     t.shapes, t.shapes == 1 ? "" : "s", range_text(t.box.dim[0]),
                     range_text(t.box.dim[1]), range_text(t.box.dim[2]));
}

nlohmann::ordered_json training_range_json(const TrainingRange& t) {
  nlohmann::ordered_json j;
  j["definition"] = "A shape is in the training range when the branch (rule or default) that "
                    "decides it decided training shapes and the shape lies in their box: min..max "
                    "of their M, of their N and of their K.";
  j["shapes"] = t.shapes;
  if (t.shapes > 0) {
    j["M"] = pair_json(t.box.dim[0]);
    j["N"] = pair_json(t.box.dim[1]);
    j["K"] = pair_json(t.box.dim[2]);
  }
  j["branches"] = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < t.branches.size(); ++i) {
    const BranchRange& b = t.branches[i];
    nlohmann::ordered_json e;
    e["rule"] = i + 1 == t.branches.size() ? nlohmann::ordered_json("default")
                                           : nlohmann::ordered_json(i + 1);
    e["shapes"] = b.shapes;
    if (b.shapes > 0) {
      e["M"] = pair_json(b.box.dim[0]);
      e["N"] = pair_json(b.box.dim[1]);
      e["K"] = pair_json(b.box.dim[2]);
    }
    j["branches"].push_back(e);
  }
  return j;
}

TrainingRange training_range_from_json(const nlohmann::json& j, const std::string& source) {
  const std::string where = source + ": training_range";
  if (!j.is_object()) throw InputError(where + ": expected an object");
  TrainingRange t;
  t.shapes = read_count(j, where);
  if (t.shapes > 0) t.box = read_box(j, where);
  const auto it = j.find("branches");
  // A rule per line of program text at most; far more than any program the tool writes.
  constexpr std::size_t kMaxBranches = 100000;
  if (it == j.end() || !it->is_array() || it->empty() || it->size() > kMaxBranches)
    throw InputError(where + ": \"branches\" must be a non-empty array");
  for (std::size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& e = (*it)[i];
    const std::string at = fmt::format("{}: branch {}", where, i + 1);
    if (!e.is_object()) throw InputError(at + ": expected an object");
    BranchRange b;
    b.shapes = read_count(e, at);
    if (b.shapes > t.shapes) throw InputError(at + ": more shapes than the training shapes");
    if (b.shapes > 0) b.box = read_box(e, at);
    t.branches.push_back(b);
  }
  return t;
}

MRanges training_m_ranges(const TrainingRange& t, const Program& p, std::int64_t N, std::int64_t K,
                          std::int64_t m_max) {
  m_max = std::clamp<std::int64_t>(m_max, 1, kDimMax);
  // Membership changes only where the deciding rule does or where M crosses a box's ends.
  std::vector<std::int64_t> starts = m_breaks(p, N, K, m_max);
  for (const BranchRange& b : t.branches)
    if (b.shapes > 0)
      for (const std::int64_t m : {b.box.dim[0].lo, b.box.dim[0].hi + 1})
        if (m > 1 && m <= m_max) starts.push_back(m);
  std::sort(starts.begin(), starts.end());
  starts.erase(std::unique(starts.begin(), starts.end()), starts.end());
  MRanges out;
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const std::int64_t lo = starts[i], hi = i + 1 < starts.size() ? starts[i + 1] - 1 : m_max;
    if (t.contains(p, shape_at(lo, N, K))) add_m_range(out, lo, hi);
  }
  return out;
}

std::string training_m_text(const TrainingRange& t, const Program& p, std::int64_t N,
                            std::int64_t K) {
  const MRanges r = training_m_ranges(t, p, N, K);
  if (r.empty())
    return fmt::format("At N={}, K={} no M is in the training range (in_training_range is false "
                       "for every M): the program extrapolates there.",
                       N, K);
  return fmt::format("At N={}, K={} the shapes are in the training range for M in {}; for other M "
                     "the program extrapolates.",
                     N, K, m_ranges_text(r));
}

} // namespace tv
