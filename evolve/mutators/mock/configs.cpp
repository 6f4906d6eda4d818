#include "evolve/mutators/mock/configs.hpp"

#include "evolve/mutators/mock/values.hpp"
#include "models/launch.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <string_view>

namespace tv::mock {

namespace {

/// A config field, as a move or a tweak picks it.
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

} // namespace

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
// A closed config space (MockLlmOptions::space)

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

std::optional<Config> near_in_space(const Ctx& x, const Config& target, const Config* avoid) {
  const auto near = nearest_configs(x, target, avoid, 3, [](const Config&) { return true; });
  if (near.empty()) return std::nullopt;
  const double r = x.rng.uniform01();
  const std::size_t i = r < 0.6 ? 0 : r < 0.85 ? 1 : 2;
  return near[std::min(i, near.size() - 1)];
}

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

std::optional<Config> repair(const Ctx& x, Config c, bool keep_stages, const Config* avoid) {
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
// One-field tweaks

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

} // namespace tv::mock
