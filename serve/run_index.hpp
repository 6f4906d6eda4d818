#pragma once
/// The runs under RUNS_DIR: its subdirectories that hold a run (config.json or
/// events.ndjson), or RUNS_DIR itself when it is one. Keeps one RunView per run, updated on
/// each request; thread-safe, with one lock per run: reading a big run's events (seconds for
/// hundreds of MB) holds up requests for that run only.
#include "serve/run_view.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// All runs of one root directory.
class RunIndex {
public:
  /// `root` must be an existing directory (InputError otherwise).
  explicit RunIndex(const std::filesystem::path& root);
  /// The canonical root.
  const std::filesystem::path& root() const { return root_; }
  /// Names of the runs now present, sorted. A run directory that is a symlink to somewhere
  /// outside the root is not listed.
  std::vector<std::string> names() const;
  /// Summaries (RunView::summary) of every run, updated first; a run another request is
  /// updating right now gives its last summary instead (or, before its first one, its name
  /// with status "reading"), so the list never waits for one big run.
  nlohmann::json summaries();
  /// Runs `f` on the updated view of run `name` under the lock; false (f not called) when
  /// there is no such run.
  bool with_run(const std::string& name, const std::function<void(RunView&)>& f);
  /// The canonical directory of run `name`, or empty when there is no such run.
  std::filesystem::path run_dir(const std::string& name) const;

private:
  /// One run's view, its lock and its last summary.
  struct Entry {
    std::mutex mutex; ///< held while the view is updated or used
    std::unique_ptr<RunView> view;
    std::mutex summary_mutex; ///< guards summary
    nlohmann::json summary;   ///< after the last update (null before the first)
  };
  /// The entry of `name`, made on first use.
  std::shared_ptr<Entry> entry(const std::string& name);
  /// The updated view of an entry whose lock the caller holds.
  RunView& updated(Entry& e, const std::string& name, const std::filesystem::path& dir);

  std::filesystem::path root_;
  std::mutex mutex_; ///< guards views_ (not the views)
  std::map<std::string, std::shared_ptr<Entry>> views_;
};

/// True when `dir` holds a run (config.json or events.ndjson).
bool is_run_directory(const std::filesystem::path& dir);

} // namespace tv
