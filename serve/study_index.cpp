#include "serve/study_index.hpp"

#include "ir/bounded_json.hpp"
#include "ir/error.hpp"
#include "serve/named_directories.hpp"
#include "serve/path_safety.hpp"

#include <chrono>
#include <fmt/format.h>
#include <fstream>
#include <iterator>
#include <system_error>

namespace tv {

namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

/// `j[key]` when it is a number, else null (a study file is untrusted: any field may be
/// missing or of another type).
json number_or_null(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_number() ? *it : json();
}

json string_or_null(const json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? *it : json();
}

} // namespace

bool is_study_directory(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "study.json", ec);
}

StudyIndex::StudyIndex(const fs::path& root) : root_(canonical_runs_dir(root)) {}

std::vector<std::string> StudyIndex::names() const {
  return named_directories(root_, is_study_directory, "study");
}

fs::path StudyIndex::study_dir(const std::string& name) const {
  return named_directory(root_, name, is_study_directory, "study");
}

json StudyIndex::read(const fs::path& dir) {
  const ResolvedPath r = resolve_under(dir, "study.json");
  if (!r.ok()) throw InputError(fmt::format("{}/study.json: {}", dir.string(), r.why));
  std::error_code ec;
  const auto size = fs::file_size(r.path, ec);
  const auto time = fs::last_write_time(r.path, ec);
  if (ec) throw InputError(fmt::format("{}: cannot read it: {}", r.path.string(), ec.message()));
  {
    std::lock_guard lock(mutex_);
    const auto it = cache_.find(r.path);
    if (it != cache_.end() && it->second.size == size && it->second.time == time)
      return it->second.doc;
  }
  if (size > kMaxStudyBytes)
    throw InputError(fmt::format("{}: {} bytes, more than the {} a study file may have",
                                 r.path.string(), size, kMaxStudyBytes));
  std::ifstream in(r.path, std::ios::binary);
  std::string text(std::istreambuf_iterator<char>(in), {});
  if (!in.good() && !in.eof()) throw InputError(fmt::format("{}: cannot read it", r.path.string()));
  // Untrusted: nesting bounded while parsing (a file 1,000,000 levels deep is refused, not walked).
  JsonReadOptions how;
  how.duplicate_keys = DuplicateKeys::keep_last;
  how.malformed = "not valid JSON";
  json doc = read_json(text, r.path.string(), how);
  if (!doc.is_object() || !doc.contains("splits") || !doc["splits"].is_array())
    throw InputError(fmt::format("{}: not a split study (expected an object with a 'splits' "
                                 "array, as `tilevolve splits --out` writes)",
                                 r.path.string()));
  std::lock_guard lock(mutex_);
  cache_[r.path] = Cached{size, time, doc};
  return doc;
}

json StudyIndex::summaries() {
  json out = json::array();
  for (const std::string& name : names()) {
    const fs::path dir = study_dir(name);
    if (dir.empty()) continue;
    try {
      const json doc = read(dir);
      std::error_code ec;
      const auto written = fs::last_write_time(dir / "study.json", ec);
      json age;
      if (!ec)
        age = std::chrono::duration<double>(fs::file_time_type::clock::now() - written).count();
      out.push_back({{"name", name},
                     {"status", "ok"},
                     {"gpu", string_or_null(doc, "gpu")},
                     {"backend", string_or_null(doc, "backend")},
                     {"split", string_or_null(doc, "split")},
                     {"splits", doc["splits"].size()},
                     {"seeds", number_or_null(doc, "seeds")},
                     {"mean_test_gap_to_tree", number_or_null(doc, "mean_test_gap_to_tree")},
                     {"mean_test_gap_to_tree_standard_error",
                      number_or_null(doc, "mean_test_gap_to_tree_standard_error")},
                     {"splits_at_least_tree", number_or_null(doc, "splits_at_least_tree")},
                     {"mean_test_gap_to_cost_matched_tree",
                      number_or_null(doc, "mean_test_gap_to_cost_matched_tree")},
                     {"max_kernel_run_fraction", number_or_null(doc, "max_kernel_run_fraction")},
                     {"updated_seconds_ago", age}});
    } catch (const InputError& e) {
      out.push_back({{"name", name}, {"status", "unreadable"}, {"error", e.what()}});
    }
  }
  return out;
}

json StudyIndex::study(const std::string& name) {
  const fs::path dir = study_dir(name);
  if (dir.empty()) return json();
  return read(dir);
}

} // namespace tv
