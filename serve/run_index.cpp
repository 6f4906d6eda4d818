#include "serve/run_index.hpp"

#include "ir/error.hpp"
#include "serve/path_safety.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <system_error>

namespace tv {

namespace fs = std::filesystem;

bool is_run_directory(const fs::path& dir) {
  std::error_code ec;
  return fs::is_regular_file(dir / "config.json", ec) ||
         fs::is_regular_file(dir / "events.ndjson", ec);
}

RunIndex::RunIndex(const fs::path& root) {
  std::error_code ec;
  root_ = fs::canonical(root, ec);
  if (ec || !fs::is_directory(root_, ec))
    throw InputError(
        fmt::format("runs directory '{}' does not exist or is not a directory", root.string()));
}

/// The name RUNS_DIR itself has when it is a run.
static std::string root_run_name(const fs::path& root) {
  const std::string n = root.filename().string();
  return component_problem(n).empty() ? n : "run";
}

std::vector<std::string> RunIndex::names() const {
  std::vector<std::string> out;
  if (is_run_directory(root_)) {
    out.push_back(root_run_name(root_));
    return out;
  }
  std::error_code ec;
  for (fs::directory_iterator it(root_, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (!component_problem(name).empty()) continue;
    const ResolvedPath r = resolve_under(root_, name, true);
    if (r.ok() && is_run_directory(r.path)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

fs::path RunIndex::run_dir(const std::string& name) const {
  if (!component_problem(name).empty()) return {};
  if (is_run_directory(root_)) return name == root_run_name(root_) ? root_ : fs::path();
  const ResolvedPath r = resolve_under(root_, name, true);
  return r.ok() && is_run_directory(r.path) ? r.path : fs::path();
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
