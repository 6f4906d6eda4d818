#pragma once
/// The dashboard's model of one run directory (what `tilevolve evolve --out DIR` writes):
/// config.json, events.ndjson followed as it grows, per_shape.json and best.py. Every file is
/// untrusted input: bad lines and fields are counted and skipped, never fatal. Not
/// thread-safe: the run index serialises access.
#include "serve/device_view.hpp"
#include "serve/event_follower.hpp"
#include "serve/watched_file.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tv {

/// Counts of one mutation operator (or of the whole run).
struct OperatorTally {
  long long proposed = 0, improved = 0, new_best = 0, kernel_runs = 0, cache_hits = 0;
  std::map<std::string, long long> stages; ///< programs per furthest cascade stage
};

/// One new best program (the seed is the first).
struct BestPoint {
  long long n = 0; ///< programs proposed when it was found (0 = the seed)
  std::uint64_t id = 0;
  std::string op;
  double train = 0;                      ///< train speedup over the expert
  std::optional<double> test;            ///< test speedup (runs before the dashboard lack it)
  std::optional<double> train_of_oracle; ///< fraction of the per-shape oracle
  std::optional<double> test_of_oracle;
  std::string program; ///< its text, when the event carried it (the latest best's only)
};

/// One run directory, read incrementally.
class RunView {
public:
  /// `dir`: the run directory; `name`: how the index and URLs call it. Files whose real
  /// location is outside `dir` (symlinks pointing out) are not read.
  RunView(std::filesystem::path dir, std::string name);
  /// Reads what was appended or changed since the last update.
  void update();
  /// The run's row in the index: name, status, GPU, programs, best figures, age, and
  /// "vs_tree" (see vs_tree()).
  nlohmann::json summary() const;
  /// The best program against the decision tree, from one per_shape.json (the same
  /// checkpoint for both): {"train", "test"}, each the best's fraction of the per-shape oracle
  /// minus the tree's, in points (null where either is missing, e.g. a run without test
  /// shapes); null when per_shape.json has no tree.
  nlohmann::json vs_tree() const;
  /// Everything the run page shows except the per-shape table (see per_shape()).
  nlohmann::json state() const;
  /// The per-shape view (per_shape_view.hpp) of the latest per_shape.json, or null.
  const nlohmann::json& per_shape() const { return per_shape_; }
  /// Changes whenever per_shape() does (0 while there is none).
  std::uint64_t per_shape_version() const { return per_shape_version_; }
  const std::string& name() const { return name_; }
  /// The run directory.
  const std::filesystem::path& dir() const { return dir_; }
  /// "finished" (the end event was read), "interrupted" (stopped by a signal, checkpointed:
  /// `--resume` goes on), "running" (a run file changed in the last `live_seconds`) or
  /// "stopped" (no file changed since: killed, or its machine went away).
  std::string status(double live_seconds = 10) const;
  /// Bytes of new_best program texts held: the latest best's only, however many there were.
  std::size_t held_program_bytes() const;

private:
  struct Node {
    long long n = 0;
    std::uint64_t parent = 0;
    double train = 0;
    std::uint16_t op = 0;
  };
  void reset_events();
  void apply(const nlohmann::json& e);
  void apply_program(const nlohmann::json& e);
  void apply_new_best(const nlohmann::json& e);
  /// A new_best or result event as a point; nullopt (counted as a bad event) when malformed.
  std::optional<BestPoint> best_point(const nlohmann::json& e);
  std::uint16_t intern_op(const std::string& op);
  void read_config();
  /// The run's result when its end wrote one (thresholds placed, or model selection's
  /// choice), else the latest new best.
  const BestPoint& best() const { return result_ ? *result_ : bests_.back(); }
  /// The best program's text and where it came from ("" when no file has it yet).
  std::pair<std::string, std::string> best_text() const;
  nlohmann::json lineage() const;
  std::optional<double> events_age() const;

  std::filesystem::path dir_;
  std::string name_;
  EventFollower events_;
  WatchedFile config_file_, per_shape_file_, best_file_;

  // From config.json.
  nlohmann::json config_ = nlohmann::json::object();
  std::string config_problem_;
  std::string expert_;

  // From the events.
  nlohmann::json start_ = nlohmann::json::object();
  long long programs_ = 0;
  long long bad_events_ = 0;
  OperatorTally total_;
  std::vector<std::string> op_names_;
  std::vector<OperatorTally> per_op_;
  std::map<std::string, long long> static_reasons_;
  std::unordered_map<std::uint64_t, Node> nodes_; ///< fully evaluated programs (lineage)
  std::vector<BestPoint> bests_;
  std::optional<BestPoint> result_; ///< from the "result" event (not a point of the timeline)
  bool ended_ = false;
  bool interrupted_ = false; ///< an interrupted event was read (a resume truncates it away)
  nlohmann::json end_ = nlohmann::json::object();
  DeviceView devices_; ///< a measured run's devices and poison pairs

  // The best program's view (program_view.hpp), recomputed when its text changes.
  std::string viewed_text_;
  nlohmann::json program_view_;

  nlohmann::json per_shape_;
  std::uint64_t per_shape_version_ = 0;
};

} // namespace tv
