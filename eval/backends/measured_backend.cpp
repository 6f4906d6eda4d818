#include "eval/backends/measured_backend.hpp"
#include "ir/number_text.hpp"

#include "eval/controller/progress_bar.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>

#include <limits>
#include <map>
#include <tuple>

namespace tv {

namespace {

/// Why no worker can be used, one device per line.
std::string device_errors(const DevicePool& pool) {
  std::string out;
  for (const auto& d : pool.devices())
    out += fmt::format("\n  device {} ({}): {}", d.id, d.command, d.healthy ? "healthy" : d.error);
  return out;
}

} // namespace

MeasuredBackend::MeasuredBackend(const Gpu& gpu, PoolOptions pool, const std::string& cache_path)
    : gpu_(gpu), options_(std::move(pool)) {
  if (cache_path.empty()) throw InputError("the measured backend needs a cache file (--cache)");
  if (options_.command.empty()) options_.command = default_worker_command();
  pool_ = std::make_unique<DevicePool>(options_);
  const DeviceInfo* first = nullptr;
  for (const auto& d : pool_->devices()) {
    if (!d.healthy) continue;
    ++healthy_;
    if (!first) {
      first = &d;
    } else if (d.hello.device != first->hello.device || d.hello.worker != first->hello.worker) {
      throw InputError(fmt::format(
          "the workers report different devices or worker versions: device {} is '{}' with "
          "'{}', device {} is '{}' with '{}'; run one pool per kind of device",
          first->id, first->hello.device, first->hello.worker, d.id, d.hello.device,
          d.hello.worker));
    }
  }
  if (!first)
    throw InputError(fmt::format("no worker started (worker command: {}):{}", options_.command,
                                 device_errors(*pool_)));
  const std::string& backend = first->hello.backend;
  if ((backend == "cuda" && gpu_.vendor != "nvidia") || (backend == "rocm" && gpu_.vendor != "amd"))
    throw InputError(fmt::format("the workers run on {} ({}), but the GPU profile '{}' is {}: "
                                 "choose a matching --gpu",
                                 first->hello.device, backend, gpu_.name, gpu_.vendor));
  store_ = std::make_unique<MeasurementStore>(
      cache_path, MeasurementStore::Family{gpu_.name, first->hello.device, first->hello.worker});
  for (const auto& w : store_->warnings())
    fmt::print(stderr, "tilevolve: warning: {}\n", w);
}

MeasuredBackend::~MeasuredBackend() = default;

std::string MeasuredBackend::name() const {
  const DeviceInfo* first = nullptr;
  for (const auto& d : pool_->devices())
    if (!first && !d.hello.device.empty()) first = &d;
  return fmt::format("measured: {} x{} ({}), cache {}", first ? first->hello.device : "?", healthy_,
                     first ? first->hello.worker : "?", store_->path());
}

std::vector<Measurement> MeasuredBackend::measure(const std::vector<MeasureJob>& jobs) {
  std::vector<Measurement> out(jobs.size());
  if (jobs.empty()) return out;
  std::vector<std::string> ids;
  for (const auto& d : pool_->devices())
    ids.push_back(d.id);
  // Each result goes to the file the moment it is final, so a run stopped part way (a signal,
  // a lost machine) keeps every pair measured before it; a rerun measures only the rest.
  const auto keep = [&](std::size_t i, const PoolResult& r) {
    if (r.poison)
      poison_.push_back(fmt::format("{} with {}: {}", jobs[i].shape.label(),
                                    jobs[i].vendor ? "vendor" : jobs[i].config.brief(),
                                    r.reply.detail));
    if (r.controller_error) {
      // No worker was left for the pair: report it, keep it out of the file.
      ++counters_.errors;
      out[i].status = MeasureStatus::error;
      out[i].detail = r.reply.detail;
      return;
    }
    ++counters_.measured;
    out[i] = store_->record(jobs[i].shape, jobs[i].config, jobs[i].vendor, jobs[i].sample, r.reply);
  };
  {
    ProgressBar bar(ids, options_.progress);
    pool_->run(
        jobs, [&](const PoolProgress& p) { bar.update(p); }, keep);
  }
  if (!pool_->any_alive())
    throw GaveOutError(fmt::format("no worker is left to measure with (every device is retired); "
                                   "every measurement so far is in {} (resume the run to "
                                   "continue):{}",
                                   store_->path(), device_errors(*pool_)));
  return out;
}

std::vector<Measurement> MeasuredBackend::time(const std::vector<TimingRequest>& batch) {
  std::vector<Measurement> out(batch.size());
  std::vector<MeasureJob> jobs;
  std::vector<std::size_t> job_request; // the request each job answers
  // A pair asked for twice in one batch (two shape names with the same sizes) counts once and
  // takes the first one's result, whether that came from the cache or from a worker.
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, DType, std::string, Config, int>,
           std::size_t>
      first_of;
  std::vector<std::pair<std::size_t, std::size_t>> repeats; // (request, first request)
  // What a run sharing the file appended meanwhile: keys it measured are not measured again.
  // The poison pairs on file that the pool has not heard of (an earlier run's, read when the
  // file was opened, and another run's since) count towards --poison-config-after here too.
  store_->refresh();
  for (const auto& p : store_->take_new_poison())
    pool_->remember_poison(p.shape, p.config, p.vendor);
  for (std::size_t i = 0; i < batch.size(); ++i) {
    const TimingRequest& r = batch[i];
    const bool vendor = r.config.vendor; // a program's "vendor" branch: time the library
    const auto key = std::make_tuple(r.shape.M, r.shape.N, r.shape.K, r.shape.dtype,
                                     r.shape.layout.empty() ? std::string("NN") : r.shape.layout,
                                     vendor ? vendor_config() : r.config, r.sample);
    const auto [first, is_first] = first_of.emplace(key, i);
    if (!is_first) {
      repeats.emplace_back(i, first->second);
      continue;
    }
    ++counters_.requested;
    if (auto hit = store_->find(r.shape, r.config, vendor, r.sample)) {
      ++counters_.from_cache;
      out[i] = *hit;
      continue;
    }
    MeasureJob j;
    j.shape = r.shape;
    j.config = r.config;
    j.vendor = vendor;
    j.sample = r.sample;
    j.warmup = options_.warmup;
    j.reps = options_.reps;
    jobs.push_back(j);
    job_request.push_back(i);
  }
  const std::vector<Measurement> got = measure(jobs);
  for (std::size_t j = 0; j < jobs.size(); ++j)
    out[job_request[j]] = got[j];
  for (const auto& [i, first] : repeats)
    out[i] = out[first];
  return out;
}

std::vector<Measurement> MeasuredBackend::time_vendor(const std::vector<Shape>& shapes) {
  std::vector<TimingRequest> batch;
  batch.reserve(shapes.size());
  for (const Shape& s : shapes)
    batch.push_back(TimingRequest{s, vendor_config()});
  return time(batch);
}

TimeTable MeasuredBackend::table(const std::vector<Shape>& shapes) {
  const std::vector<Config> configs = store_->configs();
  TimeMatrix times(shapes.size(), configs.size());
  for (std::size_t r = 0; r < shapes.size(); ++r)
    for (std::size_t c = 0; c < configs.size(); ++c) {
      const auto m = store_->find(shapes[r], configs[c], false, 0);
      times(r, c) = m && m->ok() ? m->seconds : std::numeric_limits<double>::infinity();
    }
  return TimeTable(shapes, configs, std::move(times), false);
}

std::optional<double> MeasuredBackend::vendor_time(const Shape& s) const {
  const auto m = store_->find(s, Config{}, true, 0);
  if (!m || !m->ok()) return std::nullopt;
  return m->seconds;
}

std::string MeasuredBackend::vendor_label() const {
  return fmt::format("torch.matmul on {}, measured", store_->family().device);
}

nlohmann::json MeasuredBackend::report_json() const {
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : pool_->devices())
    devices.push_back({{"id", d.id},
                       {"device", d.hello.device},
                       {"backend", d.hello.backend},
                       {"worker", d.hello.worker},
                       {"healthy", d.healthy},
                       {"retired", d.retired},
                       {"error", d.error},
                       {"measured", d.done},
                       {"busy_s", d.busy_s},
                       {"faults", d.faults},
                       {"fault_kinds", d.fault_kinds},
                       {"restarts", d.restarts},
                       {"failed_starts", d.failed_starts},
                       {"poison", d.poison},
                       {"last_fault", d.last_fault}});
  return {{"devices", devices},
          {"cache",
           {{"path", store_->path()},
            {"records_at_start", store_->loaded()},
            {"appended", store_->appended()},
            {"appended_by_other_runs", store_->from_others()}}},
          {"requested", counters_.requested},
          {"from_cache", counters_.from_cache},
          {"measured", counters_.measured},
          {"errors", counters_.errors},
          {"poison", poison_},
          {"pool", pool_->counters().to_json()},
          {"events_dropped", pool_->events_dropped()}};
}

std::string MeasuredBackend::report_text() const {
  std::string out;
  for (const auto& d : pool_->devices()) {
    std::string faults, kinds;
    for (const auto& [kind, n] : d.fault_kinds)
      kinds += fmt::format("{}{} {}", kinds.empty() ? "" : ", ", kind, thousands(n));
    if (d.faults)
      faults = fmt::format(", {} fault{} ({}), {} restart{}{}", thousands(d.faults),
                           d.faults == 1 ? "" : "s", kinds, thousands(d.restarts),
                           d.restarts == 1 ? "" : "s",
                           d.poison ? fmt::format(", {} poison", thousands(d.poison)) : "");
    out += fmt::format("  device {}: {} ({}, {}): {} measured{}{}\n", d.id,
                       d.hello.device.empty() ? "?" : d.hello.device, d.hello.backend,
                       d.hello.worker, thousands(d.done), faults,
                       d.retired  ? ", retired: " + d.error
                       : d.faults ? ", last fault: " + d.last_fault
                                  : "");
  }
  out +=
      fmt::format("  cache {}: {} records of this device at start, {} appended\n", store_->path(),
                  thousands((long long)store_->loaded()), thousands((long long)store_->appended()));
  out += fmt::format("  {} pairs asked for: {} from the cache, {} measured now{}\n",
                     thousands(counters_.requested), thousands(counters_.from_cache),
                     thousands(counters_.measured),
                     counters_.measured == 0 ? " (nothing new: cache hits only)" : "");
  if (counters_.errors)
    out += fmt::format("  {} pairs left unanswered when every device retired (error, not "
                       "cached)\n",
                       thousands(counters_.errors));
  if (!poison_.empty()) {
    out += fmt::format("  {} poison pair{} (status crash, recorded, never sent again):\n",
                       poison_.size(), poison_.size() == 1 ? "" : "s");
    for (std::size_t i = 0; i < poison_.size() && i < 10; ++i)
      out += "    " + poison_[i] + "\n";
    if (poison_.size() > 10) out += fmt::format("    ... and {} more\n", poison_.size() - 10);
  }
  out += fmt::format("  workers: {}\n", pool_->counters().faults());
  return out;
}

} // namespace tv
