#pragma once
/// Timings measured on real GPUs: a device pool of worker processes (a Triton matmul on ROCm
/// or CUDA, or the fake worker) behind the persistent measurement cache. Every pair asked
/// for is first looked up in the cache file (of this GPU profile, device and worker version)
/// and measured only when it is not there; every result a worker gives is appended at once.
/// Failures are results (unlaunchable, compile_error, wrong_result, timeout, error) and never
/// carry a time. A worker fault never changes a result: the pool retries the pair until it
/// gets a real answer; a poison pair (one that took its worker down alone three times) comes
/// back as status crash and is written, so no later run reading the file sends it again. Only
/// when every device is retired do pairs come back as error, unwritten.
///
/// The table holds only what was measured (complete_table() false): the configs with a
/// first measurement in the cache, +inf where a pair was not measured or failed, the same
/// table `--backend replay:FILE` reads from the file.
#include "eval/controller/device_pool.hpp"
#include "eval/controller/measurement_store.hpp"
#include "eval/timing_backend.hpp"
#include "models/gpu.hpp"

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// What a measured backend did with the pairs it was asked for.
struct MeasuredCounters {
  long long requested = 0;  ///< distinct pairs (and vendor shapes) asked for, per batch
  long long from_cache = 0; ///< answered from the measurement file
  long long measured = 0;   ///< measured by a worker now (and appended to the file)
  long long errors = 0;     ///< left unanswered when every device retired (not written)
};

/// Measures through workers, remembering everything in a measurement file.
class MeasuredBackend : public TimingBackend {
public:
  /// Starts the workers and opens the cache. Throws InputError when no worker starts (with
  /// each device's reason), when the workers report different devices or worker versions,
  /// when a device does not match the profile's vendor, or when the cache cannot be used.
  MeasuredBackend(const Gpu& gpu, PoolOptions pool, const std::string& cache_path);
  ~MeasuredBackend() override;

  /// "measured: DEVICE xN (WORKER), cache FILE".
  std::string name() const override;
  /// The cached answer, or a new measurement, per request. Throws GaveOutError only when no
  /// worker is left to measure with, i.e. every device is retired for good (what was measured
  /// is in the cache).
  std::vector<Measurement> time(const std::vector<TimingRequest>& batch) override;
  /// Any config can be tried: the worker says what does not launch.
  std::optional<std::string> cannot_time(const Config&, DType) const override {
    return std::nullopt;
  }
  /// The measured configs over `shapes` (first measurements; +inf where none is ok).
  TimeTable table(const std::vector<Shape>& shapes) override;
  /// The vendor library's measured time for `s`, if time_vendor() measured it (or the cache
  /// had it).
  std::optional<double> vendor_time(const Shape& s) const override;
  /// Measures the vendor library on the shapes the cache lacks.
  std::vector<Measurement> time_vendor(const std::vector<Shape>& shapes) override;
  /// "torch.matmul on DEVICE, measured".
  std::string vendor_label() const override;
  bool noisy() const override { return true; }
  bool complete_table() const override { return false; }
  /// The pool's events since the last call (pool_events.hpp).
  std::vector<nlohmann::json> take_events() override { return pool_->take_events(); }

  /// What this backend did: cache hits, new measurements, errors.
  const MeasuredCounters& counters() const { return counters_; }
  /// The workers.
  const DevicePool& pool() const { return *pool_; }
  /// The cache file.
  const MeasurementStore& store() const { return *store_; }
  /// The poison pairs this backend found ("SHAPE with CONFIG: why"), in the order found.
  const std::vector<std::string>& poison() const { return poison_; }
  /// Devices, cache and counters as one object (for run summaries).
  nlohmann::json report_json() const;
  /// A few lines for a terminal report: devices, cache, what was measured and the faults.
  std::string report_text() const;

private:
  std::vector<Measurement> measure(const std::vector<MeasureJob>& jobs);

  Gpu gpu_;
  PoolOptions options_;
  std::unique_ptr<DevicePool> pool_;
  std::unique_ptr<MeasurementStore> store_;
  MeasuredCounters counters_;
  std::vector<std::string> poison_;
  std::size_t healthy_ = 0;
};

} // namespace tv
