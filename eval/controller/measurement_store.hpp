#pragma once
/// The persistent measurement cache of measured runs: a version-2 measurement file
/// (measurement_cache.hpp) read at start and appended with one flushed line per result under
/// an exclusive flock(), so two runs can share one file: before writing, a run reads what the
/// other appended, and a key already on file is never measured or written again. A line torn
/// by a kill mid-write is cut off (or, when it still parses, finished) by the next writer.
#include "eval/controller/worker_protocol.hpp"
#include "eval/measurement_cache.hpp"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace tv {

/// The records of one (GPU profile, device, worker) in one measurement file.
class MeasurementStore {
public:
  /// Which records are this run's: the rest of a key (shape, layout, kernel, config,
  /// sample) is per record.
  struct Family {
    std::string gpu;    ///< GPU profile name
    std::string device; ///< device name the workers reported
    std::string worker; ///< worker name and version the workers reported
  };

  /// Opens `path` (creating it with the version-2 header when it is missing or empty) and
  /// reads the records of `family`. Throws InputError for a version-1 file (it has no device
  /// or worker column), a file that is not a measurement file, or a malformed one.
  MeasurementStore(std::string path, Family family);
  ~MeasurementStore();
  MeasurementStore(const MeasurementStore&) = delete;
  MeasurementStore& operator=(const MeasurementStore&) = delete;

  /// The answer on file for a key (the records' summary, as replay reads it), or nullopt.
  std::optional<Measurement> find(const Shape& s, const Config& c, bool vendor, int sample) const;
  /// Appends one result under the lock, first reading what other runs appended; returns the
  /// answer now on file for the key (another run's, when it recorded the key first).
  Measurement record(const Shape& s, const Config& c, bool vendor, int sample,
                     const MeasureReply& reply);
  /// Configs with a sample-0 record for some shape (any status), sorted: the measured table's
  /// columns, the same set replay reads from the file.
  std::vector<Config> configs() const;

  /// A pair on file whose answer is status crash (a poison pair, found by a pool): its shape
  /// (M, N, K, dtype, layout; no name), config and whether it is the vendor library.
  struct PoisonPair {
    Shape shape;
    Config config;
    bool vendor = false;
  };
  /// Reads, under the lock, what other runs appended since this store last read the file (a
  /// run sharing the file measured keys, or found poison pairs, meanwhile).
  void refresh();
  /// The poison pairs read from the file (when it was opened, by refresh() or by record()) and
  /// not handed over yet, each once whatever its samples. The ones this store records itself
  /// are not listed: its own pool found them.
  std::vector<PoisonPair> take_new_poison();

  const std::string& path() const { return path_; }
  const Family& family() const { return family_; }
  /// Records of this family found in the file when it was opened.
  std::size_t loaded() const { return loaded_; }
  /// Records this store appended.
  std::size_t appended() const { return appended_; }
  /// Records of this family other runs appended while this one had the file open.
  std::size_t from_others() const { return from_others_; }
  /// Records in the file that belong to other profiles, devices or workers.
  std::size_t foreign() const { return foreign_; }
  /// Warnings met while reading (a torn last line).
  const std::vector<std::string>& warnings() const { return warnings_; }

private:
  using Key =
      std::tuple<std::int64_t, std::int64_t, std::int64_t, DType, std::string, bool, Config, int>;
  static Key key(const Shape& s, const Config& c, bool vendor, int sample);
  void add(const MeasurementRecord& r, bool at_open);
  void catch_up();
  void settle_torn_tail(const std::string& tail, std::size_t at);

  std::string path_;
  Family family_;
  int fd_ = -1;
  std::size_t offset_ = 0; ///< bytes read so far (always at a line start)
  int lines_ = 0;          ///< lines read so far
  std::map<Key, MeasurementSummary> index_;
  std::vector<Key> new_poison_; ///< sample-0 keys of poison pairs read, not handed over yet
  std::size_t loaded_ = 0, appended_ = 0, from_others_ = 0, foreign_ = 0;
  std::vector<std::string> warnings_;
};

} // namespace tv
