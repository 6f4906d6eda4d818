#include "serve/run_index.hpp"

#include "serve/named_directories.hpp"

#include <system_error>

namespace tv {

namespace fs = std::filesystem;

bool is_run_directory(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "config.json", ec) ||
         fs::is_regular_file(dir / "events.ndjson", ec);
}

RunIndex::RunIndex(const fs::path& root) : root_(canonical_runs_dir(root)) {}

std::vector<std::string> RunIndex::names() const {
  return named_directories(root_, is_run_directory, "run");
}

fs::path RunIndex::run_dir(const std::string& name) const {
  return named_directory(root_, name, is_run_directory, "run");
}

std::shared_ptr<RunIndex::Entry> RunIndex::entry(const std::string& name) {
  std::lock_guard lock(mutex_);
  auto& e = views_[name];
  if (!e) e = std::make_shared<Entry>();
  return e;
}

RunView& RunIndex::updated(Entry& e, const std::string& name, const fs::path& dir) {
  if (!e.view || e.view->dir() != dir) e.view = std::make_unique<RunView>(dir, name);
  e.view->update();
  nlohmann::json summary = e.view->summary();
  std::lock_guard lock(e.summary_mutex);
  e.summary = std::move(summary);
  return *e.view;
}

nlohmann::json RunIndex::summaries() {
  nlohmann::json out = nlohmann::json::array();
  for (const std::string& name : names()) {
    const fs::path dir = run_dir(name);
    if (dir.empty()) continue;
    const auto e = entry(name);
    std::unique_lock busy(e->mutex, std::try_to_lock);
    if (busy) {
      updated(*e, name, dir);
      busy.unlock();
    }
    std::lock_guard lock(e->summary_mutex);
    out.push_back(e->summary.is_null() ? nlohmann::json{{"name", name},
                                                        {"status", "reading"},
                                                        {"programs", 0},
                                                        {"bad_lines", 0}}
                                       : e->summary);
  }
  return out;
}

bool RunIndex::with_run(const std::string& name, const std::function<void(RunView&)>& f) {
  const fs::path dir = run_dir(name);
  if (dir.empty()) return false;
  const auto e = entry(name);
  std::lock_guard lock(e->mutex);
  f(updated(*e, name, dir));
  return true;
}

} // namespace tv
