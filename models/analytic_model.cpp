#include "models/analytic_model.hpp"

#include "models/launch.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tv {

namespace {

/// Smooth maximum of positive terms: sum(x^p)^(1/p). Near-ties cost a little, as real
/// overlapping of two bottlenecks does.
double smooth_max4(double a, double b, double c) {
  auto p4 = [](double x) { return (x * x) * (x * x); };
  return std::sqrt(std::sqrt(p4(a) + p4(b) + p4(c)));
}
double smooth_max8(double a, double b) {
  const double m = std::max(a, b);
  if (m <= 0) return 0;
  auto p8 = [](double x) {
    const double x2 = x * x, x4 = x2 * x2;
    return x4 * x4;
  };
  return m * std::sqrt(std::sqrt(std::sqrt(p8(a / m) + p8(b / m))));
}

/// Fraction of peak math the SM reaches with `warps` resident warps. A unit has four
/// schedulers/SIMDs: below four warps some sit idle (throughput per warp stays constant);
/// above four, extra warps hide issue and dependency stalls with diminishing returns.
/// Throughput per warp never rises, so two blocks never finish faster than one.
double warp_issue_efficiency(long long warps) {
  auto hide = [](double w) { return w / (w + 1.5); };
  return warps < 4 ? hide(4.0) * warps / 4.0 : hide(double(warps));
}

/// Fraction of peak a warp reaches with a warp tile of `elems` output elements: small warp
/// tiles reload operand fragments for little math.
double warp_tile_efficiency(double elems) {
  return elems / (elems + 512.0);
}

/// Output elements of one warp when `warps` warps split a BM x BN tile.
double warp_tile_elems(const Config& c) {
  return double(c.BM) * c.BN / c.warps;
}

long long ceil_div(long long a, long long b) {
  return (a + b - 1) / b;
}

/// Bytes per clock one SM/CU can pull from L2 when few units compete for it.
constexpr double kL2PortBytesPerClock = 64.0;

} // namespace

TimeBreakdown model_breakdown(const Shape& s, const Config& c, const Gpu& g) {
  return model_breakdown(s, c, g, blocks_per_unit(c, g, s.dtype));
}

TimeBreakdown model_breakdown(const Shape& s, const Config& c, const Gpu& g, int occ) {
  TimeBreakdown r;
  r.occupancy = occ;
  if (occ <= 0) {
    r.total = std::numeric_limits<double>::infinity();
    return r;
  }
  const int bytes = dtype_bytes(s.dtype);
  const long long gm = ceil_div(s.M, c.BM), gn = ceil_div(s.N, c.BN);
  const long long tiles = gm * gn;
  const long long k_iters = ceil_div(s.K, c.BK);
  r.tiles = tiles;
  r.waves = double(tiles) / (double(g.units) * occ);

  // --- compute path: the busiest unit runs n_max tiles in rounds of up to `occ` blocks.
  const double peak_unit = g.peak(s.dtype) / g.units;
  const long long active_units = std::min<long long>(tiles, g.units);
  const double l2_unit =
      std::min(kL2PortBytesPerClock * g.clock_hz, g.l2_bytes_per_s / double(active_units));
  const double latency = g.mem_latency_s;
  const double tile_eff = warp_tile_efficiency(warp_tile_elems(c));
  const double stage_bytes = (double(c.BM) + c.BN) * c.BK * bytes;
  auto round_time = [&](int resident) {
    const double math =
        resident * 2.0 * c.BM * c.BN * c.BK /
        (peak_unit * warp_issue_efficiency((long long)resident * c.warps) * tile_eff);
    const double feed = resident * stage_bytes / l2_unit;
    // Without pipelining a block waits for each load, then computes on its own warps.
    const double own_math =
        2.0 * c.BM * c.BN * c.BK / (peak_unit * warp_issue_efficiency(c.warps) * tile_eff);
    const double wait = c.stages >= 2 ? latency / (c.stages - 1) : latency + own_math;
    const double iter = smooth_max4(math, feed, wait);
    // Prologue fills the pipeline (one latency); the epilogue writes the C tile.
    const double epilogue = resident * double(c.BM) * c.BN * 2.0 / l2_unit;
    return k_iters * iter + latency + epilogue;
  };
  const long long n_max = ceil_div(tiles, g.units);
  const long long full_rounds = n_max / occ;
  const int last = int(n_max - full_rounds * occ);
  r.compute_path = full_rounds * round_time(occ) + (last > 0 ? round_time(last) : 0.0);

  // --- DRAM traffic with L2 reuse.
  const long long concurrent = std::min<long long>(tiles, (long long)g.units * occ);
  const double cache = 0.5 * (g.l2_bytes + g.infinity_cache_bytes); // usable for reuse
  const double a_bytes = double(s.M) * s.K * bytes, b_bytes = double(s.N) * s.K * bytes;
  const double c_bytes = double(s.M) * s.N * 2.0;
  // Rows of tiles that run together and share B: a GROUP_M band, or the rows a row-major
  // wave spans when there is no grouping.
  long long band_rows;
  if (c.group > 1)
    band_rows = std::min<long long>({(long long)c.group, gm, concurrent});
  else
    band_rows = std::max<long long>(1, std::min<long long>(gm, concurrent / gn));
  const long long band_cols = std::min<long long>(gn, ceil_div(concurrent, band_rows));
  const double b_reads = b_bytes <= cache ? 1.0 : double(ceil_div(gm, band_rows));
  const double a_band = double(band_rows) * c.BM * s.K * bytes;
  const double a_reads =
      (a_band <= cache || a_bytes <= cache) ? 1.0 : double(ceil_div(gn, band_cols));
  r.dram_bytes = a_bytes * a_reads + b_bytes * b_reads + c_bytes;
  // Pure bandwidth bound; the latency bound (too few bytes in flight) is already in the
  // compute path, where each block waits latency / (stages - 1) per k-iteration.
  r.dram = r.dram_bytes / g.hbm_bytes_per_s;

  r.total = smooth_max8(r.compute_path, r.dram) + g.launch_overhead_s;
  return r;
}

double model_time(const Shape& s, const Config& c, const Gpu& g) {
  return model_breakdown(s, c, g).total;
}

} // namespace tv
