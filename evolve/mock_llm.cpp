// The mock LLM: edits a parent program the way a kernel engineer would and writes the edit as
// an LLM would, prose plus one SEARCH/REPLACE block (sometimes fenced).
//
// Flow of propose(): parse the parent; pick an operator with fixed weights (operators that
// cannot apply get weight 0); build the child Program; retry (bounded) while the child equals
// the parent; then diff the parent's text against print_program(child) line by line (common
// prefix and suffix removed), widen the block with context lines until its SEARCH text occurs
// exactly once in the parent, and wrap it in a short chatty reply. Every random choice comes
// from one Rng seeded with the request's seed, so a request always gets the same reply.
#include "evolve/mock_llm.hpp"

#include "eval/replay_backend.hpp"
#include "evolve/refit.hpp"

#include "ir/diff.hpp"
#include "ir/error.hpp"
#include "ir/lines.hpp"
#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "models/launch.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>

namespace tv {

namespace {

/// Rules beyond which split and crossover stop adding rules (engineers keep heuristics short).
constexpr std::size_t kMaxRules = 12;
/// Proposals tried before the deterministic fallback sweep over all operators.
constexpr int kAttempts = 8;
/// Feature values above this are treated as "unbounded" when reasoning about regions.
constexpr std::int64_t kBigDim = 1 << 20;

// ---------------------------------------------------------------------------------------------
// Value helpers

/// Natural thresholds: powers of two and 1.5x powers of two in [1, 65536], ascending.
const std::vector<std::int64_t>& natural_values() {
  static const std::vector<std::int64_t> v = [] {
    std::vector<std::int64_t> out{1, 2};
    for (std::int64_t p = 2; p <= 65536; p *= 2) {
      if (p * 3 / 2 <= 65536 && p * 3 / 2 > out.back()) out.push_back(p * 3 / 2);
      if (p * 2 <= 65536) out.push_back(p * 2);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }();
  return v;
}

/// Smallest natural value > v, or nullopt.
std::optional<std::int64_t> natural_above(std::int64_t v) {
  const auto& n = natural_values();
  auto it = std::upper_bound(n.begin(), n.end(), v);
  if (it != n.end()) return *it;
  if (v >= 1 && v <= kDimMax / 2) return v * 2;
  return std::nullopt;
}

/// Largest natural value < v, or nullopt.
std::optional<std::int64_t> natural_below(std::int64_t v) {
  const auto& n = natural_values();
  auto it = std::lower_bound(n.begin(), n.end(), v);
  if (it == n.begin()) return std::nullopt;
  return *std::prev(it);
}

/// Smallest power of two >= v (v >= 1).
std::int64_t next_pow2(std::int64_t v) {
  std::int64_t p = 1;
  while (p < v && p < kBigDim)
    p *= 2;
  return p;
}

bool contains(const std::vector<int>& legal, int v) {
  return std::find(legal.begin(), legal.end(), v) != legal.end();
}

/// The legal value nearest to `v` (lower on ties); `v` itself when the list is empty.
int snap(const std::vector<int>& legal, int v) {
  if (legal.empty()) return v;
  int best = legal.front();
  for (int x : legal)
    if (std::abs(x - v) < std::abs(best - v)) best = x;
  return best;
}

/// Smallest legal value >= v (the largest legal value when none is).
int at_least(const std::vector<int>& legal, int v) {
  for (int x : legal)
    if (x >= v) return x;
  return legal.empty() ? v : legal.back();
}

/// Largest legal value <= v (the smallest legal value when none is).
int at_most(const std::vector<int>& legal, int v) {
  for (auto it = legal.rbegin(); it != legal.rend(); ++it)
    if (*it <= v) return *it;
  return legal.empty() ? v : legal.front();
}

/// The legal neighbour of `v` one step up (dir > 0) or down; a value outside the list snaps to
/// the nearest legal one; nullopt when there is no such neighbour.
std::optional<int> step(const std::vector<int>& legal, int v, int dir) {
  if (legal.empty()) return std::nullopt;
  if (!contains(legal, v)) return snap(legal, v);
  auto it = std::find(legal.begin(), legal.end(), v);
  if (dir > 0) {
    if (std::next(it) == legal.end()) return std::nullopt;
    return *std::next(it);
  }
  if (it == legal.begin()) return std::nullopt;
  return *std::prev(it);
}

/// A neighbour in a random direction, the other direction when the first has none.
std::optional<int> step_random(const std::vector<int>& legal, int v, Rng& rng) {
  const int dir = rng.chance(0.5) ? 1 : -1;
  if (auto s = step(legal, v, dir)) return s;
  return step(legal, v, -dir);
}

/// Picks an element with the given weights (all zero -> the first).
template <class T> const T& pick_weighted(Rng& rng, const std::vector<std::pair<T, double>>& v) {
  double total = 0;
  for (const auto& [x, w] : v)
    total += w;
  double r = rng.uniform01() * total;
  for (const auto& [x, w] : v) {
    if (w <= 0) continue;
    if (r < w) return x;
    r -= w;
  }
  for (const auto& [x, w] : v)
    if (w > 0) return x;
  return v.front().first;
}

// ---------------------------------------------------------------------------------------------
// Program helpers

/// Rule `i` of `p`'s config, or the default when i == rules.size().
Config& config_at(Program& p, std::size_t i) {
  return i < p.rules.size() ? p.rules[i].config : p.default_config;
}
const Config& config_at(const Program& p, std::size_t i) {
  return i < p.rules.size() ? p.rules[i].config : p.default_config;
}

/// Human name of position `i`: "the `if M <= 16` rule" or "the default config".
std::string where(const Program& p, std::size_t i) {
  if (i >= p.rules.size()) return "the default config";
  return fmt::format("the `if {}` rule", print_condition(p.rules[i].condition));
}

/// A bounding box of the shapes that reach position `i` (rule i, or the default when
/// i == rules.size()): its own condition's box, trimmed by earlier rules that cut off a whole
/// end of it along one dimension. Never smaller than the true region.
Box effective_box(const Program& p, std::size_t i) {
  Box b = i < p.rules.size() ? p.rules[i].condition.box() : Box{};
  bool changed = true;
  for (std::size_t pass = 0; changed && pass <= p.rules.size() && !b.empty(); ++pass) {
    changed = false;
    for (std::size_t j = 0; j < i && j < p.rules.size() && !b.empty(); ++j) {
      // A condition on a derived feature is not a box: its box() is larger than what it
      // decides, so it cannot trim anything here.
      if (p.rules[j].condition.has_derived()) continue;
      const Box e = p.rules[j].condition.box();
      if (e.empty()) continue;
      for (int d = 0; d < 3; ++d) {
        bool covers_others = true;
        for (int o = 0; o < 3; ++o)
          if (o != d && (e.dim[o].lo > b.dim[o].lo || e.dim[o].hi < b.dim[o].hi))
            covers_others = false;
        if (!covers_others) continue;
        Interval& iv = b.dim[d];
        const Interval& cut = e.dim[d];
        if (cut.lo <= iv.lo && cut.hi >= iv.lo) {
          iv.lo = cut.hi >= kDimMax ? kDimMax + 1 : cut.hi + 1;
          changed = true;
        } else if (cut.lo <= iv.hi && cut.hi >= iv.hi) {
          iv.hi = cut.lo - 1;
          changed = true;
        }
      }
    }
  }
  return b;
}

/// Which config fields differ between two configs ("BM", "stages", ...).
std::vector<std::string_view> changed_fields(const Config& a, const Config& b) {
  std::vector<std::string_view> out;
  if (a.BM != b.BM) out.push_back("BM");
  if (a.BN != b.BN) out.push_back("BN");
  if (a.BK != b.BK) out.push_back("BK");
  if (a.warps != b.warps) out.push_back("warps");
  if (a.stages != b.stages) out.push_back("stages");
  if (a.group != b.group) out.push_back("group");
  if (a.waves_per_eu != b.waves_per_eu) out.push_back("waves_per_eu");
  if (a.matrix_instr_nonkdim != b.matrix_instr_nonkdim) out.push_back("matrix_instr_nonkdim");
  if (a.kpack != b.kpack) out.push_back("kpack");
  return out;
}

std::string knob_text(const std::optional<int>& v) {
  return v ? std::to_string(*v) : std::string("unset");
}

/// "BM 64 -> 128, warps 4 -> 8".
std::string describe_change(const Config& a, const Config& b) {
  std::string out;
  auto add = [&out](std::string_view f, const std::string& x, const std::string& y) {
    if (!out.empty()) out += ", ";
    out += fmt::format("{} {} -> {}", f, x, y);
  };
  for (std::string_view f : changed_fields(a, b)) {
    if (f == "BM") add(f, std::to_string(a.BM), std::to_string(b.BM));
    if (f == "BN") add(f, std::to_string(a.BN), std::to_string(b.BN));
    if (f == "BK") add(f, std::to_string(a.BK), std::to_string(b.BK));
    if (f == "warps") add(f, std::to_string(a.warps), std::to_string(b.warps));
    if (f == "stages") add(f, std::to_string(a.stages), std::to_string(b.stages));
    if (f == "group") add(f, std::to_string(a.group), std::to_string(b.group));
    if (f == "waves_per_eu") add(f, knob_text(a.waves_per_eu), knob_text(b.waves_per_eu));
    if (f == "matrix_instr_nonkdim")
      add(f, knob_text(a.matrix_instr_nonkdim), knob_text(b.matrix_instr_nonkdim));
    if (f == "kpack") add(f, knob_text(a.kpack), knob_text(b.kpack));
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Proposal context

enum class Op { tweak, targeted, threshold, split, del, crossover, refit, adopt, waves };
constexpr std::array<Op, 9> kAllOps{Op::tweak,     Op::targeted, Op::threshold, Op::split, Op::del,
                                    Op::crossover, Op::refit,    Op::adopt,     Op::waves};

std::string_view op_name(Op op) {
  switch (op) {
  case Op::tweak:
    return "tweak";
  case Op::targeted:
    return "targeted";
  case Op::threshold:
    return "threshold";
  case Op::split:
    return "split";
  case Op::del:
    return "delete";
  case Op::crossover:
    return "crossover";
  case Op::refit:
    return "refit";
  case Op::adopt:
    return "adopt";
  case Op::waves:
    return "waves";
  }
  return "tweak";
}

/// A built edit: the child and a few words on what changed.
struct Edit {
  Program child;
  std::string note;
  const ShapeFeedback* focus = nullptr; ///< the feedback shape that motivated it, if any
};

/// Everything one proposal needs.
struct Ctx {
  const Gpu& gpu;
  const MockLlmOptions& options;
  Rng& rng;
  DType dtype;
  const Program& parent;
  const MutationRequest& request;
  std::vector<const ShapeFeedback*> hot; ///< feedback shapes with a loss, worst first
  /// The allowed configs (MockLlmOptions::space) that launch for `dtype`, in the options'
  /// order; empty when the mock may write any config of the GPU's space.
  std::vector<Config> space;
};

/// Time lost against the best known time (1 = on par).
double loss(const ShapeFeedback& f) {
  if (!(f.best_seconds > 0) || !std::isfinite(f.best_seconds)) return 1.0;
  if (!std::isfinite(f.seconds)) return 1e9;
  return f.seconds / f.best_seconds;
}

/// A position to edit (0..rules.size(), the latter meaning the default), guided by the
/// feedback when there is some; `focus` gets the shape that guided it.
std::size_t pick_target(Ctx& x, const ShapeFeedback** focus, double guided = 0.6) {
  const std::size_t n = x.parent.rules.size();
  if (!x.hot.empty() && x.rng.chance(guided)) {
    const ShapeFeedback* f = x.hot[x.rng.index(std::min<std::size_t>(3, x.hot.size()))];
    if (focus) *focus = f;
    const int r = x.parent.deciding_rule(f->shape);
    return r < 0 ? n : std::size_t(r);
  }
  return x.rng.index(n + 1);
}

// ---------------------------------------------------------------------------------------------
// A closed config space (MockLlmOptions::space)

enum class Field { BM, BN, BK, warps, stages, group, waves_per_eu, nonkdim, kpack };

/// The tile and pipeline fields a move in a closed space changes.
constexpr std::array<Field, 5> kSpaceFields{Field::BM, Field::BN, Field::BK, Field::warps,
                                            Field::stages};

int field_value(const Config& c, Field f) {
  switch (f) {
  case Field::BM:
    return c.BM;
  case Field::BN:
    return c.BN;
  case Field::BK:
    return c.BK;
  case Field::warps:
    return c.warps;
  case Field::stages:
    return c.stages;
  case Field::group:
    return c.group;
  case Field::waves_per_eu:
    return c.waves_per_eu.value_or(-1);
  case Field::nonkdim:
    return c.matrix_instr_nonkdim.value_or(-1);
  case Field::kpack:
    return c.kpack.value_or(-1);
  }
  return 0;
}

/// How far apart two configs look to an engineer: octaves of each block size and of warps,
/// half a point per pipeline stage, a quarter per octave of group, half per differing AMD knob.
double config_distance(const Config& a, const Config& b) {
  const auto octaves = [](int x, int y) {
    return std::abs(std::log2(double(std::max(x, 1))) - std::log2(double(std::max(y, 1))));
  };
  double d = octaves(a.BM, b.BM) + octaves(a.BN, b.BN) + octaves(a.BK, b.BK) +
             octaves(a.warps, b.warps) + 0.5 * std::abs(a.stages - b.stages) +
             0.25 * octaves(a.group, b.group);
  if (a.waves_per_eu != b.waves_per_eu) d += 0.5;
  if (a.matrix_instr_nonkdim != b.matrix_instr_nonkdim) d += 0.5;
  if (a.kpack != b.kpack) d += 0.5;
  return d;
}

/// Up to `n` allowed configs other than `avoid` that `keep` accepts, nearest to `target`
/// first (space order on ties).
template <class Keep>
std::vector<Config> nearest_configs(const Ctx& x, const Config& target, const Config* avoid,
                                    std::size_t n, Keep keep) {
  std::vector<std::pair<double, std::size_t>> order;
  for (std::size_t i = 0; i < x.space.size(); ++i)
    if ((!avoid || !(x.space[i] == *avoid)) && keep(x.space[i]))
      order.emplace_back(config_distance(x.space[i], target), i);
  std::stable_sort(order.begin(), order.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<Config> out;
  for (std::size_t i = 0; i < order.size() && i < n; ++i)
    out.push_back(x.space[order[i].second]);
  return out;
}

/// One of the allowed configs nearest to `target` (other than `avoid`): usually the nearest,
/// sometimes the second or third, as an engineer choosing from a short list would; nullopt
/// when there is none.
std::optional<Config> near_in_space(const Ctx& x, const Config& target,
                                    const Config* avoid = nullptr) {
  const auto near = nearest_configs(x, target, avoid, 3, [](const Config&) { return true; });
  if (near.empty()) return std::nullopt;
  const double r = x.rng.uniform01();
  const std::size_t i = r < 0.6 ? 0 : r < 0.85 ? 1 : 2;
  return near[std::min(i, near.size() - 1)];
}

/// A neighbour of `c` in the allowed space: one field (drawn with its direction) moved up or
/// down, at one of the two nearest allowed configs that move it that way; with
/// one_field_only, only allowed configs equal to `c` in every other field count. A `c` outside
/// the space with no such move snaps to a near allowed config. nullopt when nothing moves.
std::optional<Config> tweak_in_space(Ctx& x, const Config& c) {
  std::vector<std::pair<Field, int>> moves;
  for (Field f : kSpaceFields)
    for (int dir : {1, -1})
      moves.emplace_back(f, dir);
  x.rng.shuffle(moves);
  for (const auto& [f, dir] : moves) {
    const auto near = nearest_configs(x, c, nullptr, 2, [&, f = f, dir = dir](const Config& s) {
      if ((field_value(s, f) - field_value(c, f)) * dir <= 0) return false;
      if (!x.options.one_field_only) return true;
      for (Field o : {Field::BM, Field::BN, Field::BK, Field::warps, Field::stages, Field::group,
                      Field::waves_per_eu, Field::nonkdim, Field::kpack})
        if (o != f && field_value(s, o) != field_value(c, o)) return false;
      return true;
    });
    if (!near.empty()) return near[near.size() > 1 && x.rng.chance(0.3) ? 1 : 0];
  }
  if (std::find(x.space.begin(), x.space.end(), c) == x.space.end()) return near_in_space(x, c);
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Launchability-aware config design

/// Makes the tile a multiple of matrix_instr_nonkdim (largest legal divisor, else unset).
void fix_nonkdim(const Gpu& g, Config& c) {
  if (!c.matrix_instr_nonkdim || *c.matrix_instr_nonkdim <= 0) return;
  const int k = *c.matrix_instr_nonkdim;
  if (c.BM % k == 0 && c.BN % k == 0) return;
  c.matrix_instr_nonkdim.reset();
  for (auto it = g.space.matrix_instr_nonkdim.rbegin(); it != g.space.matrix_instr_nonkdim.rend();
       ++it)
    if (*it > 0 && c.BM % *it == 0 && c.BN % *it == 0) {
      c.matrix_instr_nonkdim = *it;
      break;
    }
}

/// The nearest launchable config to `c`: warps raised (then lowered) until registers and
/// threads fit, then stages (or, with keep_stages, BK) lowered until shared memory fits, and
/// the tile shrunk as a last resort. Every field ends up in the GPU's space; nullopt when
/// nothing launches. With a closed space: one of the nearest allowed configs other than
/// `avoid` (near_in_space).
std::optional<Config> repair(const Ctx& x, Config c, bool keep_stages,
                             const Config* avoid = nullptr) {
  if (!x.space.empty()) return near_in_space(x, c, avoid);
  const ConfigSpace& s = x.gpu.space;
  if (s.BM.empty() || s.BN.empty() || s.BK.empty() || s.warps.empty() || s.stages.empty() ||
      s.group.empty())
    return std::nullopt;
  c.BM = snap(s.BM, c.BM);
  c.BN = snap(s.BN, c.BN);
  c.BK = snap(s.BK, c.BK);
  c.warps = snap(s.warps, c.warps);
  c.stages = snap(s.stages, c.stages);
  c.group = snap(s.group, c.group);
  if (c.waves_per_eu && !contains(s.waves_per_eu, *c.waves_per_eu)) c.waves_per_eu.reset();
  if (c.kpack && !contains(s.kpack, *c.kpack)) c.kpack.reset();
  if (c.matrix_instr_nonkdim && !contains(s.matrix_instr_nonkdim, *c.matrix_instr_nonkdim))
    c.matrix_instr_nonkdim.reset();

  for (int shrink = 0; shrink < 8; ++shrink) {
    fix_nonkdim(x.gpu, c);
    // Warps: registers, threads and the per-warp tile do not depend on BK and stages, so probe
    // with the smallest staging buffers.
    std::vector<int> order;
    for (int w : s.warps)
      if (w >= c.warps) order.push_back(w);
    for (auto it = s.warps.rbegin(); it != s.warps.rend(); ++it)
      if (*it < c.warps) order.push_back(*it);
    Config probe = c;
    probe.BK = s.BK.front();
    probe.stages = s.stages.front();
    std::optional<int> warps;
    for (int w : order) {
      probe.warps = w;
      if (!launch_problem(probe, x.gpu, x.dtype)) {
        warps = w;
        break;
      }
    }
    if (warps) {
      c.warps = *warps;
      auto fits = [&](int bk, int st) {
        Config t = c;
        t.BK = bk;
        t.stages = st;
        return shared_memory_bytes(t, x.gpu, x.dtype) <= x.gpu.shared_per_block;
      };
      std::optional<std::pair<int, int>> found;
      const int min_stages = std::min(2, c.stages);
      for (int pass = 0; pass < 2 && !found; ++pass) {
        const int floor_st = pass == 0 ? min_stages : 0;
        if (keep_stages) {
          for (auto st = s.stages.rbegin(); st != s.stages.rend() && !found; ++st)
            for (auto bk = s.BK.rbegin(); bk != s.BK.rend() && !found; ++bk)
              if (*st <= c.stages && *st >= floor_st && *bk <= c.BK && fits(*bk, *st))
                found = std::pair{*bk, *st};
        } else {
          for (auto bk = s.BK.rbegin(); bk != s.BK.rend() && !found; ++bk)
            for (auto st = s.stages.rbegin(); st != s.stages.rend() && !found; ++st)
              if (*st <= c.stages && *st >= floor_st && *bk <= c.BK && fits(*bk, *st))
                found = std::pair{*bk, *st};
        }
      }
      if (found) {
        Config t = c;
        t.BK = found->first;
        t.stages = found->second;
        if (!launch_problem(t, x.gpu, x.dtype)) return t;
      }
    }
    // Shrink the larger tile side.
    const bool rows = c.BM >= c.BN;
    int& side = rows ? c.BM : c.BN;
    const auto smaller = step(rows ? s.BM : s.BN, side, -1);
    if (!smaller) return std::nullopt;
    side = *smaller;
  }
  return std::nullopt;
}

/// A config an engineer would write for the shapes in `region` (mostly guided by its M range),
/// keeping `base`'s AMD knobs; launchable or nullopt.
std::optional<Config> design(Ctx& x, const Box& region, const Config& base) {
  const ConfigSpace& s = x.gpu.space;
  if (s.BM.empty()) return std::nullopt;
  const Interval m = region.dim[0];
  const Interval n = region.dim[1];
  const std::int64_t rep = m.hi < kBigDim ? m.hi : std::max<std::int64_t>(m.lo, 4096);
  const bool narrow_n = n.hi <= 2048;
  Config c = base;
  Rng& rng = x.rng;
  if (rep <= 16) { // decode: stream the weights with a thin tile and deep K
    c.BM = at_least(s.BM, int(std::max<std::int64_t>(rep, 16)));
    c.BN = narrow_n ? rng.pick(std::vector<int>{32, 32, 64})
                    : rng.pick(std::vector<int>{32, 64, 64, 128});
    c.BK = at_most(s.BK, 128);
    c.warps = c.BN >= 128 ? 4 : rng.pick(std::vector<int>{2, 4});
    c.stages = s.stages.back();
    c.group = 1;
  } else if (rep <= 256) { // small M: a tile just covering M, deep pipeline
    const std::int64_t cap = rng.chance(0.7) ? 64 : 128;
    c.BM = at_least(s.BM, int(std::clamp<std::int64_t>(next_pow2(rep), 32, cap)));
    c.BN = narrow_n ? rng.pick(std::vector<int>{32, 64}) : rng.pick(std::vector<int>{64, 64, 128});
    c.BK = rng.chance(0.7) ? at_most(s.BK, 128) : at_most(s.BK, 64);
    c.warps = 4;
    c.stages = s.stages.back();
    c.group = rng.chance(0.5) ? 1 : 8;
  } else if (rep <= 2048) { // medium
    c.BM = rng.chance(0.5) ? 64 : 128;
    c.BN = rng.chance(0.7) ? 128 : 256;
    c.BK = 64;
    c.warps = rng.chance(0.7) ? 8 : 4;
    c.stages = rng.chance(0.5) ? 3 : 4;
    c.group = 8;
  } else { // large M: big tiles, 8 warps, a 3-4 stage pipeline, wide swizzle
    const bool tall = rng.chance(0.5);
    c.BM = tall ? 256 : 128;
    c.BN = tall ? 128 : 256;
    c.BK = 64;
    c.warps = 8;
    c.stages = rng.chance(0.5) ? 3 : 4;
    c.group = rng.chance(0.6) ? 8 : 16;
  }
  return repair(x, c, false);
}

// ---------------------------------------------------------------------------------------------
// Operators

/// One field of `c` moved to a neighbouring legal value (in a closed space: a neighbouring
/// allowed config); nullopt when no field can move.
std::optional<Config> tweak_config(Ctx& x, const Config& c) {
  if (!x.space.empty()) return tweak_in_space(x, c);
  const ConfigSpace& s = x.gpu.space;
  std::vector<Field> fields;
  auto movable = [](const std::vector<int>& legal, int v) {
    return legal.size() >= 2 || (legal.size() == 1 && legal[0] != v);
  };
  if (movable(s.BM, c.BM)) fields.push_back(Field::BM);
  if (movable(s.BN, c.BN)) fields.push_back(Field::BN);
  if (movable(s.BK, c.BK)) fields.push_back(Field::BK);
  if (movable(s.warps, c.warps)) fields.push_back(Field::warps);
  if (movable(s.stages, c.stages)) fields.push_back(Field::stages);
  if (movable(s.group, c.group)) fields.push_back(Field::group);
  if (!s.waves_per_eu.empty()) fields.push_back(Field::waves_per_eu);
  if (!s.matrix_instr_nonkdim.empty()) fields.push_back(Field::nonkdim);
  if (!s.kpack.empty()) fields.push_back(Field::kpack);
  if (fields.empty()) return std::nullopt;

  Config out = c;
  auto knob = [&x](std::optional<int>& v, const std::vector<int>& legal) {
    if (!v || !contains(legal, *v)) {
      v = x.rng.pick(legal);
    } else if (legal.size() == 1 || x.rng.chance(0.25)) {
      v.reset();
    } else {
      std::vector<int> others;
      for (int l : legal)
        if (l != *v) others.push_back(l);
      v = x.rng.pick(others);
    }
  };
  switch (x.rng.pick(fields)) {
  case Field::BM:
    out.BM = step_random(s.BM, c.BM, x.rng).value_or(c.BM);
    break;
  case Field::BN:
    out.BN = step_random(s.BN, c.BN, x.rng).value_or(c.BN);
    break;
  case Field::BK:
    out.BK = step_random(s.BK, c.BK, x.rng).value_or(c.BK);
    break;
  case Field::warps:
    out.warps = step_random(s.warps, c.warps, x.rng).value_or(c.warps);
    break;
  case Field::stages:
    out.stages = step_random(s.stages, c.stages, x.rng).value_or(c.stages);
    break;
  case Field::group: {
    std::vector<int> others;
    for (int g : s.group)
      if (g != c.group) others.push_back(g);
    out.group = x.rng.pick(others);
    break;
  }
  case Field::waves_per_eu:
    knob(out.waves_per_eu, s.waves_per_eu);
    break;
  case Field::nonkdim:
    knob(out.matrix_instr_nonkdim, s.matrix_instr_nonkdim);
    break;
  case Field::kpack:
    knob(out.kpack, s.kpack);
    break;
  }
  if (out == c) return std::nullopt;
  return out;
}

std::optional<Edit> op_tweak(Ctx& x) {
  Edit e{x.parent, {}, nullptr};
  const std::size_t t = pick_target(x, &e.focus, 0.4);
  Config& c = config_at(e.child, t);
  const auto next = tweak_config(x, c);
  if (!next) return std::nullopt;
  e.note = fmt::format("{} in {}", describe_change(c, *next), where(x.parent, t));
  c = *next;
  return e;
}

std::optional<Edit> op_targeted(Ctx& x) {
  Edit e{x.parent, {}, nullptr};
  const std::size_t t = pick_target(x, &e.focus);
  const Config cur = config_at(x.parent, t);
  const Box region = effective_box(x.parent, t);
  const ConfigSpace& s = x.gpu.space;

  enum class Variant { region, bigger, smaller, deeper, warps };
  std::vector<Variant> order{Variant::region, Variant::bigger, Variant::smaller, Variant::deeper,
                             Variant::warps};
  // The first variant is drawn with weights; the rest follow in a shuffled order.
  const Variant first = pick_weighted<Variant>(x.rng, {{Variant::region, 0.45},
                                                       {Variant::bigger, 0.15},
                                                       {Variant::smaller, 0.12},
                                                       {Variant::deeper, 0.16},
                                                       {Variant::warps, 0.12}});
  order.erase(std::find(order.begin(), order.end(), first));
  x.rng.shuffle(order);
  order.insert(order.begin(), first);

  for (Variant v : order) {
    std::optional<Config> next;
    std::string why;
    switch (v) {
    case Variant::region:
      if (region.empty()) break;
      next = design(x, region, cur);
      why = region.dim[0].hi < kBigDim
                ? fmt::format("retuned for M up to {}", region.dim[0].hi)
                : fmt::format("retuned for large M (from {})", region.dim[0].lo);
      break;
    case Variant::bigger: {
      Config c = cur;
      const bool rows = x.rng.chance(0.5);
      int& side = rows ? c.BM : c.BN;
      const auto up = step(rows ? s.BM : s.BN, side, 1);
      if (!up) break;
      side = *up;
      next = repair(x, c, false, &cur);
      why = "bigger tile, warps and stages rebalanced to fit";
      break;
    }
    case Variant::smaller: {
      Config c = cur;
      int bm = step(s.BM, c.BM, -1).value_or(c.BM);
      if (region.dim[0].hi < kBigDim)
        bm = std::min(bm,
                      at_least(s.BM, int(std::max<std::int64_t>(16, next_pow2(region.dim[0].hi)))));
      if (bm == c.BM) break;
      c.BM = bm;
      c.BK = step(s.BK, c.BK, 1).value_or(c.BK);
      if (!s.stages.empty()) c.stages = s.stages.back();
      next = repair(x, c, false, &cur);
      why = "smaller M tile with a deeper K step and pipeline";
      break;
    }
    case Variant::deeper: {
      Config c = cur;
      const auto up = step(s.stages, c.stages, 1);
      if (!up) break;
      c.stages = *up;
      next = repair(x, c, true, &cur);
      why = "deeper pipeline, BK adjusted to fit shared memory";
      break;
    }
    case Variant::warps: {
      Config c = cur;
      const auto w = step(s.warps, c.warps, 1);
      const auto fewer = step(s.warps, c.warps, -1);
      if (!w && !fewer) break;
      c.warps = w ? *w : *fewer;
      next = repair(x, c, false, &cur);
      why = w ? "more warps" : "fewer warps";
      break;
    }
    }
    if (next && *next != cur) {
      e.note = fmt::format("{} for {}: {}", why, where(x.parent, t), describe_change(cur, *next));
      config_at(e.child, t) = *next;
      return e;
    }
  }
  return std::nullopt;
}

std::optional<Edit> op_threshold(Ctx& x) {
  std::vector<std::size_t> with_terms;
  for (std::size_t i = 0; i < x.parent.rules.size(); ++i)
    if (!x.parent.rules[i].condition.terms.empty()) with_terms.push_back(i);
  if (with_terms.empty()) return std::nullopt;
  Edit e{x.parent, {}, nullptr};
  const std::size_t r = x.rng.pick(with_terms);
  auto& terms = e.child.rules[r].condition.terms;
  Comparison& term = terms[x.rng.index(terms.size())];
  const std::int64_t old = term.value;
  const bool up = x.rng.chance(0.5);
  std::optional<std::int64_t> next = up ? natural_above(old) : natural_below(old);
  if (!next) next = up ? natural_below(old) : natural_above(old);
  if (!next) return std::nullopt;
  const bool sane = old >= 0 && old <= kDimMax && *next >= 0 && *next <= kDimMax;
  if (x.rng.chance(0.15) && sane && std::abs(*next - old) > 2) { // somewhere in between
    const std::int64_t lo = std::min(old, *next) + 1, hi = std::max(old, *next) - 1;
    next = x.rng.uniform_int(lo, hi);
  }
  term.value = *next;
  e.note = fmt::format("{} {} {} -> {} in {}", feature_name(term.feature), cmp_op_text(term.op),
                       old, *next, where(x.parent, r));
  return e;
}

std::optional<Edit> op_split(Ctx& x) {
  if (x.parent.rules.size() >= kMaxRules) return std::nullopt;
  Edit e{x.parent, {}, nullptr};
  const std::size_t t = pick_target(x, &e.focus, 0.7);
  const Box region = effective_box(x.parent, t);
  if (region.empty()) return std::nullopt;

  Feature f =
      e.focus || x.rng.chance(0.7) ? Feature::M : (x.rng.chance(0.5) ? Feature::N : Feature::K);
  if (e.focus && x.rng.chance(0.15)) f = x.rng.chance(0.5) ? Feature::N : Feature::K;
  const auto& allowed = x.options.split_features;
  if (std::find(allowed.begin(), allowed.end(), f) == allowed.end()) {
    // N or K drawn but not allowed: another allowed one of them, else M; M not allowed: any.
    std::vector<Feature> others;
    for (Feature g : allowed)
      if (g != Feature::M) others.push_back(g);
    const bool has_m = std::find(allowed.begin(), allowed.end(), Feature::M) != allowed.end();
    if (f != Feature::M && !others.empty())
      f = x.rng.pick(others);
    else
      f = has_m ? Feature::M : x.rng.pick(allowed);
  }
  const Interval iv = region.dim[int(f)];
  // New comparison: `f <= v` keeps [lo, v], `f >= v` keeps [v, hi]; either must cut iv.
  std::optional<Comparison> cut;
  if (e.focus) {
    const std::int64_t at = std::clamp<std::int64_t>(feature_value(e.focus->shape, f), 1, kBigDim);
    const auto& nat = natural_values();
    // Prefer a power of two bound just above the shape (M <= 64 for M = 48 or 64).
    std::int64_t v = next_pow2(at);
    if (x.rng.chance(0.3))
      v = *std::lower_bound(nat.begin(), nat.end(), std::min<std::int64_t>(at, nat.back()));
    if (v >= iv.lo && v < iv.hi && v >= at) cut = Comparison{f, CmpOp::le, v};
    if (!cut) {
      const auto below = natural_below(at + 1);
      if (below && *below > iv.lo && *below <= iv.hi) cut = Comparison{f, CmpOp::ge, *below};
    }
  }
  if (!cut) {
    const std::int64_t floor = f == Feature::M ? 1 : 256;
    const std::int64_t ceil = f == Feature::M ? 16384 : 32768;
    std::vector<std::int64_t> upper, lower;
    for (std::int64_t v : natural_values()) {
      if (v < floor || v > ceil) continue;
      if (v >= iv.lo && v < iv.hi) upper.push_back(v);
      if (v > iv.lo && v <= iv.hi) lower.push_back(v);
    }
    const bool use_upper = !upper.empty() && (lower.empty() || x.rng.chance(0.75));
    if (use_upper)
      cut = Comparison{f, CmpOp::le, x.rng.pick(upper)};
    else if (!lower.empty())
      cut = Comparison{f, CmpOp::ge, x.rng.pick(lower)};
  }
  if (!cut) return std::nullopt;

  // The new condition: the target's condition with the cut added, replacing a looser bound on
  // the same side of the same feature.
  Rule rule;
  if (t < x.parent.rules.size()) rule.condition = x.parent.rules[t].condition;
  const bool upper_side = cut->op == CmpOp::le;
  auto& terms = rule.condition.terms;
  auto same_side = [&](const Comparison& c) {
    if (c.feature != cut->feature) return false;
    return upper_side ? (c.op == CmpOp::le || c.op == CmpOp::lt)
                      : (c.op == CmpOp::ge || c.op == CmpOp::gt);
  };
  auto it = std::find_if(terms.begin(), terms.end(), same_side);
  if (it != terms.end()) {
    *it = *cut;
    terms.erase(std::remove_if(std::next(it), terms.end(), same_side), terms.end());
  } else {
    terms.push_back(*cut);
  }

  Box sub = region;
  Interval& si = sub.dim[int(f)];
  if (upper_side)
    si.hi = std::min(si.hi, cut->value);
  else
    si.lo = std::max(si.lo, cut->value);
  const Config& base = config_at(x.parent, t);
  std::optional<Config> cfg;
  if (x.rng.chance(0.5)) {
    // Half the time, what the measurements say: the fastest config seen so far on one of the
    // training shapes the new rule takes over (when that is not the config they already get).
    const int decider = t < x.parent.rules.size() ? int(t) : -1;
    std::vector<Config> measured;
    for (const ShapeFeedback& g : x.request.feedback)
      if (g.best_config && *g.best_config != base && sub.contains(g.shape) &&
          x.parent.deciding_rule(g.shape) == decider)
        measured.push_back(*g.best_config);
    if (!measured.empty()) cfg = x.rng.pick(measured);
  }
  if (!cfg && x.rng.chance(0.75)) cfg = design(x, sub, base);
  if (!cfg || *cfg == base) cfg = tweak_config(x, base);
  if (!cfg) return std::nullopt;
  rule.config = *cfg;
  e.child.rules.insert(e.child.rules.begin() + std::ptrdiff_t(t), rule);
  e.note = fmt::format("new rule `if {}` above {} with {}", print_condition(rule.condition),
                       where(x.parent, t), cfg->brief());
  return e;
}

std::optional<Edit> op_delete(Ctx& x) {
  if (x.parent.rules.empty()) return std::nullopt;
  Edit e{x.parent, {}, nullptr};
  const std::size_t r = x.rng.index(x.parent.rules.size());
  e.note = fmt::format("removed {}", where(x.parent, r));
  e.child.rules.erase(e.child.rules.begin() + std::ptrdiff_t(r));
  return e;
}

/// Rules of the inspirations that parse (in request order).
std::vector<Rule> inspiration_rules(const MutationRequest& r) {
  std::vector<Rule> out;
  for (const auto& text : r.inspiration_texts) {
    ParseResult p = parse_program(text);
    if (p.ok()) out.insert(out.end(), p.program->rules.begin(), p.program->rules.end());
  }
  return out;
}

std::optional<Edit> op_crossover(Ctx& x) {
  const std::vector<Rule> pool = inspiration_rules(x.request);
  if (pool.empty()) return std::nullopt;
  Edit e{x.parent, {}, nullptr};
  Rule donor = x.rng.pick(pool);
  // A donor config outside a closed space (none should be: donors passed the static check)
  // becomes the nearest allowed one.
  if (!x.space.empty() && std::find(x.space.begin(), x.space.end(), donor.config) == x.space.end())
    donor.config =
        nearest_configs(x, donor.config, nullptr, 1, [](const Config&) { return true; }).front();
  auto same = std::find_if(e.child.rules.begin(), e.child.rules.end(),
                           [&](const Rule& r) { return r.condition == donor.condition; });
  if (same != e.child.rules.end()) {
    if (same->config == donor.config) return std::nullopt;
    e.note =
        fmt::format("took the config of `if {}` from another program: {}",
                    print_condition(donor.condition), describe_change(same->config, donor.config));
    same->config = donor.config;
    return e;
  }
  if (x.parent.rules.size() >= kMaxRules) return std::nullopt;
  const std::size_t at = x.rng.index(x.parent.rules.size() + 1);
  e.child.rules.insert(e.child.rules.begin() + std::ptrdiff_t(at), donor);
  e.note = fmt::format("copied `if {}` ({}) from another program", print_condition(donor.condition),
                       donor.config.brief());
  return e;
}

/// Regroups the training shapes from the run's measurements (see refit.hpp): a tree of a few
/// leaves on M and the derived features, each leaf the config that measured best on its shapes.
/// One random refit setting (see MockLlmOptions).
RefitChoice draw_refit_choice(Ctx& x) {
  RefitChoice choice;
  const MockLlmOptions& o = x.options;
  choice.max_leaves = int(x.rng.uniform_int(o.refit_min_leaves, o.refit_max_leaves));
  choice.min_leaf_shapes = int(x.rng.uniform_int(1, 3));
  if (x.rng.chance(o.refit_round)) choice.units = x.gpu.units;
  choice.penalty =
      o.refit_min_penalty + (o.refit_max_penalty - o.refit_min_penalty) * x.rng.uniform01();
  for (const Comparison& f : o.refit_features)
    if (f.feature == Feature::M || x.rng.chance(o.refit_feature_chance))
      choice.features.push_back(f);
  if (choice.features.empty()) choice.features = o.refit_features;
  return choice;
}

std::optional<Edit> op_refit(Ctx& x) {
  const MockLlmOptions& o = x.options;
  RefitChoice choice = draw_refit_choice(x);
  if (x.rng.chance(o.refit_bootstrap)) {
    choice.use.resize(x.request.feedback.size());
    for (std::size_t i = 0; i < choice.use.size(); ++i)
      choice.use[i] = x.rng.chance(0.8);
  }
  std::optional<Program> fit = refit_program(x.request.feedback, choice);
  if (!fit) return std::nullopt;
  Edit e{*fit, {}, nullptr};
  if (!x.space.empty())
    for (std::size_t i = 0; i <= e.child.rules.size(); ++i) {
      Config& c = config_at(e.child, i);
      if (!c.vendor && std::find(x.space.begin(), x.space.end(), c) == x.space.end())
        if (auto near = near_in_space(x, c)) c = *near;
    }
  std::string features;
  for (const Comparison& f : choice.features)
    features += (features.empty() ? "" : ", ") + feature_text(f);
  e.note = fmt::format("regrouped the shapes by {} into {} rules from the configs measured so far",
                       features, e.child.rules.size() + 1);
  return e;
}

/// Tiles of `c`'s block over the output of `s` (one wave when it equals the GPU's units).
std::int64_t grid_tiles(const Shape& s, const Config& c) {
  return derived_value(Feature::tiles, std::max(1, c.BM), std::max(1, c.BN), s.M, s.N);
}

/// What a kernel engineer does when a shape's grid does not fill the GPU: a new rule, above the
/// one that decides it, for the shapes whose grid of that rule's tiles is under a wave (or whose
/// output is as small), with a smaller tile (the fastest smaller one measured on the shape, or
/// the block halved along its longer side).
std::optional<Edit> op_waves(Ctx& x) {
  if (x.parent.rules.size() >= kMaxRules || x.gpu.units <= 0) return std::nullopt;
  const std::int64_t units = x.gpu.units;
  std::vector<const ShapeFeedback*> thin;
  for (const ShapeFeedback* f : x.hot)
    if (!f->config.vendor && grid_tiles(f->shape, f->config) < units) thin.push_back(f);
  if (thin.empty()) return std::nullopt;
  const ShapeFeedback* f = thin[x.rng.index(std::min<std::size_t>(3, thin.size()))];
  const int decider = x.parent.deciding_rule(f->shape);
  const std::size_t t = decider < 0 ? x.parent.rules.size() : std::size_t(decider);
  const Config cur = config_at(x.parent, t);
  Edit e{x.parent, {}, f};
  Rule rule;
  if (t < x.parent.rules.size()) rule.condition = x.parent.rules[t].condition;
  Comparison cut;
  cut.op = CmpOp::le;
  if (x.rng.chance(0.7)) {
    // Whole or half waves: the smallest round count at or above the shape's grid.
    cut.feature = Feature::tiles;
    cut.tile_m = cur.BM;
    cut.tile_n = cur.BN;
    const std::int64_t have = grid_tiles(f->shape, cur);
    const std::int64_t step = std::max<std::int64_t>(1, units / (x.rng.chance(0.5) ? 2 : 4));
    cut.value = std::max(step, ceil_div(have, step) * step);
    if (cut.value >= units && x.rng.chance(0.5)) cut.value = units - 1;
  } else {
    cut.feature = Feature::MN;
    cut.value = next_pow2(std::min<std::int64_t>(f->shape.M * f->shape.N, kBigDim * 1024));
  }
  for (const auto& c : rule.condition.terms)
    if (c.same_feature(cut)) return std::nullopt; // already bounded on this feature
  rule.condition.terms.push_back(cut);
  std::optional<Config> cfg;
  const long long area = (long long)cur.BM * cur.BN;
  if (x.rng.chance(0.6))
    for (const auto& [secs, c] : f->measured)
      if (!c.vendor && (long long)c.BM * c.BN < area) {
        cfg = c;
        break;
      }
  if (!cfg) {
    Config c = cur;
    const ConfigSpace& s = x.gpu.space;
    int& side = c.BN >= c.BM ? c.BN : c.BM;
    const auto smaller = step(c.BN >= c.BM ? s.BN : s.BM, side, -1);
    if (!smaller) return std::nullopt;
    side = *smaller;
    cfg = repair(x, c, false, &cur);
  }
  if (!cfg || *cfg == cur) return std::nullopt;
  rule.config = *cfg;
  e.child.rules.insert(e.child.rules.begin() + std::ptrdiff_t(t), rule);
  e.note = fmt::format("{} makes only {} tiles of {}x{} here, under one wave of {} units; new "
                       "rule `if {}` with {}",
                       f->shape.label(), grid_tiles(f->shape, cur), cur.BM, cur.BN, units,
                       print_condition(rule.condition), cfg->brief());
  return e;
}

/// Gives a rule one of the configs measured fastest on one of its shapes, so the next
/// evaluation times that config on every shape the rule decides.
std::optional<Edit> op_adopt(Ctx& x) {
  Edit e{x.parent, {}, nullptr};
  const std::size_t t = pick_target(x, &e.focus, 0.7);
  const int decider = t < x.parent.rules.size() ? int(t) : -1;
  const Config& cur = config_at(x.parent, t);
  std::vector<const ShapeFeedback*> mine;
  for (const ShapeFeedback& f : x.request.feedback)
    if (x.parent.deciding_rule(f.shape) == decider && !f.measured.empty()) mine.push_back(&f);
  if (mine.empty()) return std::nullopt;
  const ShapeFeedback* f =
      e.focus && x.parent.deciding_rule(e.focus->shape) == decider ? e.focus : x.rng.pick(mine);
  std::vector<Config> options;
  for (const auto& [secs, c] : f->measured)
    if (c != cur && options.size() < 3) options.push_back(c);
  if (options.empty()) return std::nullopt;
  const Config next = x.rng.pick(options);
  e.focus = f;
  e.note = fmt::format("{} for {}, the config measured fastest on {}: {}", next.brief(),
                       where(x.parent, t), f->shape.label(), describe_change(cur, next));
  config_at(e.child, t) = next;
  return e;
}

std::optional<Edit> apply_op(Ctx& x, Op op) {
  switch (op) {
  case Op::tweak:
    return op_tweak(x);
  case Op::targeted:
    return op_targeted(x);
  case Op::threshold:
    return op_threshold(x);
  case Op::split:
    return op_split(x);
  case Op::del:
    return op_delete(x);
  case Op::crossover:
    return op_crossover(x);
  case Op::refit:
    return op_refit(x);
  case Op::adopt:
    return op_adopt(x);
  case Op::waves:
    return op_waves(x);
  }
  return std::nullopt;
}

/// Operator weights for this parent (0 for operators that cannot apply).
std::vector<std::pair<Op, double>> op_weights(const Ctx& x) {
  const std::size_t n = x.parent.rules.size();
  const bool any_terms = std::any_of(x.parent.rules.begin(), x.parent.rules.end(),
                                     [](const Rule& r) { return !r.condition.terms.empty(); });
  if (x.options.one_field_only) return {{Op::tweak, 0.65}, {Op::threshold, any_terms ? 0.35 : 0.0}};
  const bool feedback = !x.hot.empty();
  const bool measured = std::any_of(x.request.feedback.begin(), x.request.feedback.end(),
                                    [](const ShapeFeedback& f) { return !f.measured.empty(); });
  return {
      {Op::tweak, 0.25},
      {Op::targeted, feedback ? 0.32 : 0.30},
      {Op::threshold, any_terms ? 0.15 : 0.0},
      {Op::split, n >= kMaxRules ? 0.0 : (feedback ? 0.22 : 0.20)},
      {Op::del, n == 0 ? 0.0 : 0.05 + 0.03 * double(n > 6 ? n - 6 : 0)},
      {Op::crossover, x.request.inspiration_texts.empty() ? 0.0 : 0.05},
      {Op::refit, x.options.refit_weight * (measured ? 1.0 : 0.0)},
      {Op::adopt, x.options.adopt_weight * (measured ? 1.0 : 0.0)},
      {Op::waves, n >= kMaxRules || !feedback ? 0.0 : x.options.waves_weight},
  };
}

// ---------------------------------------------------------------------------------------------
// Reply text

/// Lines of `text` split like the diff engine does ('\n', trailing whitespace dropped).
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out = split_lines(text);
  for (std::string_view& line : out)
    line = rtrim(line);
  return out;
}

/// Occurrences of the run p[a, b) in p.
int occurrences(const std::vector<std::string_view>& p, std::size_t a, std::size_t b) {
  const std::size_t len = b - a;
  int count = 0;
  for (std::size_t i = 0; i + len <= p.size(); ++i)
    if (std::equal(p.begin() + std::ptrdiff_t(a), p.begin() + std::ptrdiff_t(b),
                   p.begin() + std::ptrdiff_t(i)))
      ++count;
  return count;
}

/// One SEARCH/REPLACE block turning `parent` into `child`: the changed run of lines, widened
/// with context until the SEARCH text is non-blank and occurs exactly once in `parent`.
DiffBlock make_block(std::string_view parent, std::string_view child) {
  const auto p = lines_of(parent);
  const auto c = lines_of(child);
  std::size_t pre = 0;
  while (pre < p.size() && pre < c.size() && p[pre] == c[pre])
    ++pre;
  std::size_t suf = 0;
  while (suf < p.size() - pre && suf < c.size() - pre &&
         p[p.size() - 1 - suf] == c[c.size() - 1 - suf])
    ++suf;
  // Parent run [pa, pb) becomes child run [ca, cb); widen both by the same context.
  std::size_t pa = pre, pb = p.size() - suf, ca = pre, cb = c.size() - suf;
  auto blank = [&] {
    for (std::size_t i = pa; i < pb; ++i)
      if (!p[i].empty()) return false;
    return true;
  };
  // A pure insertion is anchored on the line it goes above (the next rule's `if`, or the
  // default return, which is unique in canonical text); a change on the line before it
  // (usually the rule's `if`, which makes a repeated `return` line unique).
  bool before = pa != pb;
  while (blank() || occurrences(p, pa, pb) != 1) {
    const bool can_before = pa > 0, can_after = pb < p.size();
    if (!can_before && !can_after) break; // the whole text: unique by construction
    if ((before && can_before) || !can_after) {
      --pa;
      --ca;
    } else {
      ++pb;
      ++cb;
    }
    before = !before;
  }
  DiffBlock b;
  for (std::size_t i = pa; i < pb; ++i) {
    b.search += p[i];
    b.search += '\n';
  }
  for (std::size_t i = ca; i < cb; ++i) {
    b.replace += c[i];
    b.replace += '\n';
  }
  return b;
}

std::string intro(Rng& rng, Op op, const std::string& note) {
  static const std::array<std::vector<std::string_view>, 9> kTemplates{{
      {"Let's try a small change: {}.", "One-field tweak: {}.",
       "A neighbouring value might do better here: {}."},
      {"This config looks mistuned for the shapes it decides; {}.",
       "Rebalancing the tile within the register and shared-memory budgets: {}.",
       "A coherent retune: {}."},
      {"Moving a boundary: {}.", "The cut-off looks off; {}.", "Shifting a threshold: {}."},
      {"Adding a specialised rule: {}.", "These shapes deserve their own config: {}.",
       "Splitting the region: {}."},
      {"This rule does not seem to pull its weight; {}.", "Simplifying: {}."},
      {"Borrowing from another good program: {}.", "Crossover: {}."},
      {"Reading the measurements so far, I {}.", "A fresh grouping: I {}."},
      {"Trying what measured best nearby: {}.", "Spreading a measured winner: {}."},
      {"The grid does not fill the GPU: {}.", "Wave quantization: {}."},
  }};
  const auto& t = kTemplates[std::size_t(op)];
  return fmt::format(fmt::runtime(t[rng.index(t.size())]), note);
}

std::string compose_reply(Rng& rng, Op op, const Edit& e, const MutationRequest& r,
                          const DiffBlock& block) {
  std::string out;
  if (!r.previous_outcome.empty() && rng.chance(0.8))
    out += fmt::format("The previous edit did not apply ({}); here is a fresh one.\n\n",
                       r.previous_outcome);
  if (e.focus)
    out += fmt::format("The shape {} runs {:.2f}x slower than the best time seen for it. ",
                       e.focus->shape.label(), loss(*e.focus));
  out += intro(rng, op, e.note);
  out += "\n\n";
  const double fence = rng.uniform01();
  const std::string diff = format_diff({block});
  if (fence < 0.45)
    out += "```python\n" + diff + "```\n";
  else if (fence < 0.6)
    out += "```\n" + diff + "```\n";
  else
    out += diff;
  if (rng.chance(0.4)) {
    static const std::vector<std::string_view> kOutros{
        "This should help the affected shapes without touching the others.",
        "Everything else stays as it is.", "Let me know how it scores."};
    out += '\n';
    out += rng.pick(kOutros);
    out += '\n';
  }
  return out;
}

} // namespace

MockLlmOptions mock_options_for(const Problem& problem, MockLlmOptions options) {
  // A recorded table is the whole space a replay can time. A replay of a measured run's file
  // (complete_table() false) is not: that run proposed from the profile's space, and so must
  // its replay, to make the same decisions.
  if (dynamic_cast<const ReplayBackend*>(problem.backend.get()) &&
      problem.backend->complete_table())
    options.space = problem.table->configs();
  return options;
}

std::vector<Feature> parse_split_features(std::string_view text) {
  std::vector<Feature> out;
  for (char ch : text) {
    std::optional<Feature> f;
    for (Feature g : {Feature::M, Feature::N, Feature::K})
      if (feature_name(g) == std::string_view(&ch, 1)) f = g;
    if (!f)
      throw InputError(fmt::format(
          "split features '{}': '{}' is not a feature (expected letters M, N, K, e.g. MNK)", text,
          ch));
    if (std::find(out.begin(), out.end(), *f) != out.end())
      throw InputError(fmt::format("split features '{}': {} is given twice", text, ch));
    out.push_back(*f);
  }
  if (out.empty())
    throw InputError("split features: empty (expected letters M, N, K, e.g. M or MNK)");
  std::sort(out.begin(), out.end());
  return out;
}

std::string split_features_text(const std::vector<Feature>& features) {
  std::vector<Feature> sorted = features;
  std::sort(sorted.begin(), sorted.end());
  std::string out;
  for (Feature f : sorted)
    out += feature_name(f);
  return out;
}

MockLlm::MockLlm(Gpu gpu, MockLlmOptions options) : gpu_(std::move(gpu)), options_(options) {
  if (options_.split_features.empty())
    throw std::invalid_argument("MockLlm: split_features must not be empty");
  std::sort(options_.split_features.begin(), options_.split_features.end());
  ConfigSpace& s = gpu_.space;
  for (auto* v : {&s.BM, &s.BN, &s.BK, &s.warps, &s.stages, &s.group, &s.waves_per_eu,
                  &s.matrix_instr_nonkdim, &s.kpack}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
}

std::string MockLlm::name() const {
  return name_for(options_);
}

std::string MockLlm::name_for(const MockLlmOptions& options) {
  if (options.one_field_only) return "mock-llm (one-field)"; // makes no splits
  const std::string f = split_features_text(options.split_features);
  if (f == "M") return "mock-llm";
  std::string list;
  for (char c : f)
    list += (list.empty() ? "" : ", ") + std::string(1, c);
  return fmt::format("mock-llm (splits on {})", list);
}

std::optional<MockLlmOptions> MockLlm::options_for(std::string_view name) {
  for (const bool one_field : {false, true})
    for (const char* f : {"M", "N", "K", "MN", "MK", "NK", "MNK"}) {
      MockLlmOptions o;
      o.one_field_only = one_field;
      o.split_features = parse_split_features(f);
      if (name_for(o) == name) return o;
    }
  return std::nullopt;
}

std::vector<std::string> MockLlm::operators() const {
  if (options_.one_field_only) return {"tweak", "threshold"};
  std::vector<std::string> out;
  for (Op op : kAllOps)
    out.emplace_back(op_name(op));
  return out;
}

MutationReply MockLlm::propose(const MutationRequest& request) {
  return propose_detailed(request).reply;
}

MockProposal MockLlm::propose_detailed(const MutationRequest& request) const {
  MockProposal out;
  MutationReply& reply = out.reply;
  ParseResult parsed;
  try {
    parsed = parse_program(request.parent_text);
  } catch (const std::exception& e) {
    parsed.error = ParseError{1, 1, e.what()};
  }
  if (!parsed.ok()) {
    reply.ok = false;
    reply.error = "parent program does not parse: " +
                  (parsed.error ? parsed.error->str() : std::string("unknown error"));
    return out;
  }
  const Program& parent = *parsed.program;

  Rng rng(request.seed);
  DType dtype = DType::bf16;
  std::vector<const ShapeFeedback*> hot;
  for (const auto& f : request.feedback) {
    if (dtype_bytes(f.shape.dtype) > dtype_bytes(dtype)) dtype = f.shape.dtype;
    if (loss(f) > 1.01) hot.push_back(&f);
  }
  std::stable_sort(hot.begin(), hot.end(), [](const ShapeFeedback* a, const ShapeFeedback* b) {
    return loss(*a) > loss(*b);
  });
  Ctx x{gpu_, options_, rng, dtype, parent, request, std::move(hot), {}};
  for (const Config& c : options_.space)
    if (!launch_problem(c, gpu_, dtype)) x.space.push_back(c);
  if (x.space.empty()) x.space = options_.space; // none launches: still stay inside the list

  std::optional<Edit> edit;
  Op op = Op::tweak;
  const auto weights = op_weights(x);
  for (int attempt = 0; attempt < kAttempts && !edit; ++attempt) {
    op = pick_weighted(rng, weights);
    edit = apply_op(x, op);
    if (edit && edit->child == parent) edit.reset();
  }
  // Deterministic sweep: every allowed operator, a few times each.
  for (int round = 0; round < 3 && !edit; ++round)
    for (const auto& [candidate, w] : weights) {
      if (w <= 0) continue;
      op = candidate;
      edit = apply_op(x, op);
      if (edit && edit->child == parent) edit.reset();
      if (edit) break;
    }

  reply.op = std::string(op_name(op));
  if (!edit) {
    reply.text = "I looked at this program but could not find an edit worth trying; every "
                 "field is already at the only value the config space allows.\n";
    return out;
  }
  const DiffBlock block = make_block(request.parent_text, print_program(edit->child));
  reply.text = compose_reply(rng, op, *edit, request, block);
  out.child = std::move(edit->child);
  return out;
}

} // namespace tv
