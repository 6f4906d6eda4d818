#pragma once
/// The dashboard's model of a measured run's devices, from its events: each worker fault,
/// pair retried alone, poison pair and retired device as it happens (pool_events.hpp), then
/// the `devices` event the run ends with, which replaces the per-device figures with its own.
/// Events are untrusted input: fields of the wrong type are skipped, texts cut, and at most
/// kMaxViewDevices devices and kMaxViewPoison poison pairs are kept (the rest are counted).
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// Most devices the view keeps; events of others are counted as skipped.
inline constexpr std::size_t kMaxViewDevices = 256;
/// Most poison pairs the view lists; the rest are counted.
inline constexpr std::size_t kMaxViewPoison = 100;

/// What the events say about a run's devices and poison pairs.
class DeviceView {
public:
  /// Forgets everything (the events file was truncated).
  void reset();
  /// Applies an event of kind `kind` when it is a device event (worker_fault, pair_retry,
  /// poison_pair, device_retired, devices); returns false for other kinds.
  bool apply(const std::string& kind, const nlohmann::json& e);
  /// {"devices": [{id, state (alive or retired), restarts, faults, fault_kinds, poison, error,
  /// measured}], "poison": [{shape, config, device, devices, strikes, error, stderr}],
  /// "poison_count", "retries", "faults", "pool" (the final counters, or null), "final" (the
  /// devices event was read), "skipped"}; null when the run has no device events.
  nlohmann::json to_json() const;

private:
  struct Device {
    std::string id;
    bool retired = false;
    long long restarts = 0, faults = 0, poison = 0;
    long long measured = -1; ///< from the devices event; -1 while unknown
    std::map<std::string, long long> kinds;
    std::string error;
  };
  Device* device(const nlohmann::json& e);

  bool any_ = false;
  bool final_ = false;
  std::vector<Device> devices_;
  std::vector<nlohmann::json> poison_;
  long long poison_count_ = 0, retries_ = 0, faults_ = 0, skipped_ = 0;
  nlohmann::json pool_;
};

} // namespace tv
