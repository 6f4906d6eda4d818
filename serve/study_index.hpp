#pragma once
/// The split studies under RUNS_DIR: its subdirectories that hold a study.json (written by
/// `tilevolve splits --out DIR`, the same object as `splits --json`), or RUNS_DIR itself when
/// it holds one. The file is untrusted input: read only when at most kMaxStudyBytes, parsed,
/// and checked to be an object with a "splits" array; a study that fails is listed with its
/// reason instead of its figures. Parsed files are kept until their size or time changes.
/// Thread-safe.
#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// The largest study.json the dashboard reads (a 60-split, 5-seed study is about 100 KB).
inline constexpr std::uintmax_t kMaxStudyBytes = 32u << 20;

/// True when `dir` holds a split study (a regular file study.json).
bool is_study_directory(const std::filesystem::path& dir);

/// All split studies of one root directory.
class StudyIndex {
public:
  /// `root` must be an existing directory (InputError otherwise).
  explicit StudyIndex(const std::filesystem::path& root);
  /// Names of the studies now present, sorted. A study directory that is a symlink to
  /// somewhere outside the root is not listed.
  std::vector<std::string> names() const;
  /// The canonical directory of study `name`, or empty when there is no such study.
  std::filesystem::path study_dir(const std::string& name) const;
  /// One summary per study: {"name", "status": "ok"} and its headline figures (GPU, backend,
  /// split kind, splits, seeds, the mean gap to the tree with its standard error, the splits
  /// at or above the tree, the gap to the cost-matched tree, the largest kernel-run share,
  /// the file's age), or {"name", "status": "unreadable", "error"}.
  nlohmann::json summaries();
  /// The whole study.json of `name`; null when there is no such study; throws InputError
  /// (with the file and the reason) when it cannot be read or is not a study.
  nlohmann::json study(const std::string& name);

private:
  /// A parsed file and what it was parsed from.
  struct Cached {
    std::uintmax_t size = 0;
    std::filesystem::file_time_type time;
    nlohmann::json doc;
  };
  /// The parsed study.json of `dir` (from the cache when unchanged); throws InputError.
  nlohmann::json read(const std::filesystem::path& dir);

  std::filesystem::path root_;
  std::mutex mutex_; ///< guards cache_
  std::map<std::filesystem::path, Cached> cache_;
};

} // namespace tv
