#include "cli/measure_command.hpp"

#include "cli/problem_options.hpp"
#include "cli/worker_options.hpp"
#include "eval/backends/measured_backend.hpp"
#include "eval/text_table.hpp"
#include "ir/error.hpp"
#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "models/analytic_model.hpp"
#include "models/launch.hpp"
#include "models/shape_file.hpp"
#include "models/time_table.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <memory>

namespace tv {

namespace {

struct MeasureOptions {
  std::string gpu = kDefaultGpu;
  std::string shapes;
  std::string configs = "all";
  bool vendor = false;
  std::uint64_t seed = 0;
  std::string cache;
  PoolOptions pool;
  bool json = false;
  bool quiet = false;
};

/// The (shape, config) pairs `o.configs` asks for, and how many the profile rules out.
std::vector<TimingRequest> requests(const MeasureOptions& o, const Gpu& gpu,
                                    const std::vector<Shape>& shapes, long long& unlaunchable) {
  std::vector<TimingRequest> out;
  std::vector<DType> dtypes;
  for (const auto& s : shapes)
    if (std::find(dtypes.begin(), dtypes.end(), s.dtype) == dtypes.end()) dtypes.push_back(s.dtype);
  if (o.configs.rfind("program:", 0) == 0) {
    const Program prog = load_program_file(o.configs.substr(8));
    for (const auto& s : shapes)
      out.push_back({s, prog.choose(s)});
    return out;
  }
  std::vector<Config> space = model_configs(gpu, dtypes);
  if (o.configs.rfind("sample:", 0) == 0) {
    const std::string n_text = o.configs.substr(7);
    std::size_t used = 0;
    long long n = 0;
    try {
      n = std::stoll(n_text, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != n_text.size() || n < 1)
      throw InputError(fmt::format("--configs sample:N needs a positive count, got '{}'", n_text));
    Rng rng(o.seed);
    rng.shuffle(space);
    if (std::size_t(n) < space.size()) space.resize(std::size_t(n));
  } else if (o.configs != "all") {
    throw InputError(
        fmt::format("--configs must be all, sample:N or program:FILE, got '{}'", o.configs));
  }
  for (const auto& s : shapes)
    for (const auto& c : space) {
      if (launch_problem(c, gpu, s.dtype)) {
        ++unlaunchable; // the profile says it cannot launch: not worth a kernel run
        continue;
      }
      out.push_back({s, c});
    }
  return out;
}

void run_measure(MeasureOptions o) {
  check_worker_options(o.pool);
  if (o.shapes.empty()) throw InputError("measure needs --shapes FILE");
  const Gpu gpu = find_gpu(o.gpu);
  const std::vector<Shape> shapes = load_shape_file(o.shapes);
  long long skipped = 0;
  const std::vector<TimingRequest> batch = requests(o, gpu, shapes, skipped);
  o.pool.progress = !o.quiet && !o.json; // a bar on a terminal, a line each 30 s in a log
  MeasuredBackend backend(gpu, o.pool, o.cache);
  if (!o.json)
    fmt::print(stderr, "measuring {} pairs{} on {} ({} ruled out by the {} profile)\n",
               batch.size(),
               o.vendor ? fmt::format(" and the vendor library on {} shapes", shapes.size()) : "",
               backend.name(), skipped, gpu.name);
  const std::vector<Measurement> got = backend.time(batch);
  std::vector<Measurement> vendor;
  if (o.vendor) vendor = backend.time_vendor(shapes);
  std::map<std::string, long long> statuses;
  for (const auto& m : got)
    ++statuses[std::string(status_name(m.status))];
  long long vendor_ok = 0;
  for (const auto& m : vendor)
    vendor_ok += m.ok();
  // Measured against the analytic model of the profile: the ratio of each ok pair, and per
  // shape whether the model ranks the configs as the device does.
  std::vector<double> ratios;
  std::map<std::string, std::vector<std::pair<double, double>>> by_shape; // (model, measured)
  nlohmann::json pairs = nlohmann::json::array();
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const double model = model_time(batch[i].shape, batch[i].config, gpu);
    nlohmann::json p{{"shape", batch[i].shape.label()},
                     {"M", batch[i].shape.M},
                     {"N", batch[i].shape.N},
                     {"K", batch[i].shape.K},
                     {"dtype", std::string(dtype_name(batch[i].shape.dtype))},
                     {"config", batch[i].config.brief()},
                     {"status", std::string(status_name(got[i].status))}};
    if (std::isfinite(model)) p["model_s"] = model;
    if (got[i].ok()) {
      p["seconds"] = got[i].seconds;
      if (std::isfinite(model)) {
        ratios.push_back(got[i].seconds / model);
        by_shape[batch[i].shape.label()].push_back({model, got[i].seconds});
      }
    }
    pairs.push_back(p);
  }
  const double median_ratio = ratios.empty() ? 0 : median_of(ratios);
  // Spearman's rank correlation per shape (shapes with at least 3 timed configs), averaged.
  const auto ranks = [](std::vector<double> v) {
    std::vector<std::size_t> idx(v.size());
    for (std::size_t i = 0; i < idx.size(); ++i)
      idx[i] = i;
    std::stable_sort(idx.begin(), idx.end(),
                     [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
    std::vector<double> r(v.size());
    for (std::size_t k = 0; k < idx.size(); ++k)
      r[idx[k]] = double(k);
    return r;
  };
  double rho_sum = 0;
  int rho_n = 0;
  for (const auto& [label, mv] : by_shape) {
    if (mv.size() < 3) continue;
    std::vector<double> a, b;
    for (const auto& [m, t] : mv) {
      a.push_back(m);
      b.push_back(t);
    }
    const auto ra = ranks(a), rb = ranks(b);
    double d2 = 0;
    for (std::size_t i = 0; i < ra.size(); ++i)
      d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
    const double n = double(ra.size());
    rho_sum += 1 - 6 * d2 / (n * (n * n - 1));
    ++rho_n;
  }
  const double rho = rho_n ? rho_sum / rho_n : 0;
  if (o.json) {
    nlohmann::json j{{"command", "measure"},
                     {"gpu", gpu.name},
                     {"shapes_file", o.shapes},
                     {"configs", o.configs},
                     {"pairs", batch.size()},
                     {"ruled_out_by_profile", skipped},
                     {"statuses", statuses},
                     {"model",
                      {{"median_measured_over_model", median_ratio},
                       {"mean_spearman_per_shape", rho},
                       {"shapes_ranked", rho_n}}},
                     {"results", pairs},
                     {"measurement", backend.report_json()}};
    if (o.vendor) j["vendor"] = {{"shapes", shapes.size()}, {"ok", vendor_ok}};
    fmt::print("{}\n", j.dump(2));
    return;
  }
  TextTable t({"status", "pairs"});
  for (const auto& [st, n] : statuses)
    t.add({st, fmt::format("{}", n)});
  fmt::print("tilevolve measure: {} pairs of {} shapes from {} (configs: {}) on {}\n{}\n",
             batch.size(), shapes.size(), o.shapes, o.configs, backend.name(), t.str());
  if (o.vendor) fmt::print("vendor library: {} of {} shapes timed\n", vendor_ok, shapes.size());
  if (!ratios.empty())
    fmt::print("against the analytic {} model: measured / model time median {:.2f}; rank "
               "correlation of the configs per shape (Spearman) {:.2f} over {} shapes\n",
               gpu.name, median_ratio, rho, rho_n);
  fmt::print("{}", backend.report_text());
}

} // namespace

void add_measure_command(CLI::App& app) {
  auto o = std::make_shared<MeasureOptions>();
  CLI::App* cmd = app.add_subcommand(
      "measure", "Measure (shape, config) pairs into the measurement file (pairs already in it "
                 "are not measured again), for baselines, oracles and later replays");
  add_gpu_option(*cmd, o->gpu);
  cmd->add_option("--shapes", o->shapes, "shape CSV (name,M,N,K[,dtype][,weight][,layout])")
      ->required();
  cmd->add_option("--configs", o->configs,
                  "which configs: all (every config of the profile's space that it says can "
                  "launch), sample:N (N of those, chosen with --seed), or program:FILE (the one "
                  "a program chooses per shape)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "seed of sample:N")->capture_default_str();
  cmd->add_flag("--vendor", o->vendor, "also time the vendor library (torch.matmul) per shape");
  add_cache_option(*cmd, o->cache);
  add_worker_options(*cmd, o->pool);
  cmd->add_flag("--json", o->json, "print one JSON object to stdout");
  cmd->add_flag("--quiet", o->quiet, "no progress (a bar on a terminal, else a line each 30 s)");
  cmd->callback([o] { run_measure(*o); });
}

} // namespace tv
