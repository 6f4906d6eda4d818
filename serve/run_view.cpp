#include "serve/run_view.hpp"

#include "eval/cascade.hpp"
#include "ir/bounded_json.hpp"
#include "serve/per_shape_view.hpp"
#include "serve/program_view.hpp"

#include <cmath>
#include <fmt/format.h>

namespace tv {

namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxOps = 64; ///< distinct operator names kept; more go to "other"

/// The cascade stages a program event may name; anything else counts as "unknown".
constexpr const char* kStageNames[] = {
    "mutator_failed", "diff_failed", "parse_failed",  "noop",        "static_reject",
    "probe_reject",   "race_reject", "timing_failed", "over_budget", "full"};

std::string known_stage(const std::string& s) {
  for (const char* k : kStageNames)
    if (s == k) return s;
  return "unknown";
}

/// A string field of at most `max` bytes (longer ones are cut), or nullopt.
std::optional<std::string> str(const json& j, const char* key, std::size_t max = 200) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_string()) return std::nullopt;
  std::string s = it->get<std::string>();
  if (s.size() > max) s.resize(max);
  return s;
}

/// A non-negative integer field, or nullopt.
std::optional<long long> count_field(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  if (it->is_number_unsigned()) {
    const auto u = it->get<std::uint64_t>();
    return u > std::uint64_t(INT64_MAX) ? std::nullopt : std::optional<long long>((long long)u);
  }
  const auto v = it->get<long long>();
  return v < 0 ? std::nullopt : std::optional<long long>(v);
}

/// A finite number field, or nullopt.
std::optional<double> number(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  const double v = it->get<double>();
  return std::isfinite(v) ? std::optional<double>(v) : std::nullopt;
}

json opt(const std::optional<double>& v) {
  return v ? json(*v) : json();
}

json tally_json(const OperatorTally& t) {
  return {{"proposed", t.proposed},
          {"improved", t.improved},
          {"new_best", t.new_best},
          {"kernel_runs", t.kernel_runs},
          {"cache_hits", t.cache_hits},
          {"stages", t.stages},
          {"full", t.stages.count("full") ? t.stages.at("full") : 0}};
}

json point_json(const BestPoint& b) {
  return {{"n", b.n},
          {"id", b.id},
          {"op", b.op},
          {"train", b.train},
          {"test", opt(b.test)},
          {"train_of_oracle", opt(b.train_of_oracle)},
          {"test_of_oracle", opt(b.test_of_oracle)}};
}

/// Scalars (and short strings) of `from` at `keys`, copied.
json scalars(const json& from, std::initializer_list<const char*> keys) {
  json out = json::object();
  if (!from.is_object()) return out;
  for (const char* k : keys) {
    const auto it = from.find(k);
    if (it == from.end()) continue;
    if (it->is_number() || it->is_boolean())
      out[k] = *it;
    else if (it->is_string())
      out[k] = str(from, k, 1000).value_or("");
  }
  return out;
}

} // namespace

RunView::RunView(std::filesystem::path dir, std::string name)
    : dir_(std::filesystem::weakly_canonical(dir)), name_(std::move(name)),
      events_(dir_ / "events.ndjson", std::size_t(1) << 20, dir_),
      config_file_(dir_ / "config.json", 4u << 20, dir_),
      per_shape_file_(dir_ / "per_shape.json", 64u << 20, dir_),
      best_file_(dir_ / "best.py", 1u << 20, dir_) {}

void RunView::reset_events() {
  start_ = json::object();
  programs_ = 0;
  bad_events_ = 0;
  total_ = {};
  op_names_.clear();
  per_op_.clear();
  static_reasons_.clear();
  nodes_.clear();
  bests_.clear();
  result_.reset();
  ended_ = false;
  interrupted_ = false;
  end_ = json::object();
  devices_.reset();
}

std::uint16_t RunView::intern_op(const std::string& op) {
  for (std::size_t i = 0; i < op_names_.size(); ++i)
    if (op_names_[i] == op) return std::uint16_t(i);
  if (op_names_.size() >= kMaxOps) return intern_op("other");
  op_names_.push_back(op);
  per_op_.emplace_back();
  return std::uint16_t(op_names_.size() - 1);
}

void RunView::apply_program(const json& e) {
  const auto n = count_field(e, "n");
  const auto id = count_field(e, "id");
  const auto op = str(e, "op", 64);
  auto stage = str(e, "stage", 32);
  if (!n || !id || !op || !stage) {
    ++bad_events_;
    return;
  }
  *stage = known_stage(*stage);
  const auto parent = count_field(e, "parent").value_or(0);
  const auto train = number(e, "train");
  const long long runs = count_field(e, "kernel_runs").value_or(0);
  const long long hits = count_field(e, "cache_hits").value_or(0);
  total_.kernel_runs += runs;
  total_.cache_hits += hits;
  programs_ = std::max(programs_, *n);
  const bool seed = *op == "seed";
  if (seed) {
    if (bests_.empty() && train) {
      BestPoint b;
      b.n = *n;
      b.id = std::uint64_t(*id);
      b.op = "seed";
      b.train = *train;
      b.test = 1.0; // the expert against itself, by definition
      bests_.push_back(b);
    }
  } else {
    OperatorTally& t = per_op_[intern_op(*op)];
    for (OperatorTally* x : {&total_, &t}) {
      ++x->proposed;
      ++x->stages[*stage];
    }
    t.kernel_runs += runs;
    t.cache_hits += hits;
    if (*stage == "static_reject")
      if (const auto reason = str(e, "reason", 400))
        ++static_reasons_[CascadeEvaluator::reason_category(*reason)];
    if (*stage == "full" && train) {
      const auto p = nodes_.find(std::uint64_t(parent));
      if (p != nodes_.end() && *train > p->second.train) {
        ++total_.improved;
        ++t.improved;
      }
    }
  }
  if (*stage == "full" && train)
    nodes_[std::uint64_t(*id)] = {*n, std::uint64_t(parent), *train, intern_op(*op)};
}

std::optional<BestPoint> RunView::best_point(const json& e) {
  const auto n = count_field(e, "n");
  const auto id = count_field(e, "id");
  const auto score = number(e, "score");
  if (!n || !id || !score) {
    ++bad_events_;
    return std::nullopt;
  }
  BestPoint b;
  b.n = *n;
  b.id = std::uint64_t(*id);
  b.op = str(e, "op", 64).value_or("");
  b.train = *score;
  b.test = number(e, "test");
  b.train_of_oracle = number(e, "train_of_oracle");
  b.test_of_oracle = number(e, "test_of_oracle");
  b.program = str(e, "program", 1u << 20).value_or("");
  return b;
}

void RunView::apply_new_best(const json& e) {
  std::optional<BestPoint> b = best_point(e);
  if (!b) return;
  // Only the latest best's text is shown: an earlier one is dropped (a 200 MB events file
  // carries hundreds of MB of them).
  if (!bests_.empty()) std::string().swap(bests_.back().program);
  bests_.push_back(std::move(*b));
  ++total_.new_best;
  ++per_op_[intern_op(bests_.back().op)].new_best;
}

void RunView::apply(const json& e) {
  const auto kind = str(e, "event", 32);
  if (!kind) {
    ++bad_events_;
  } else if (*kind == "program") {
    apply_program(e);
  } else if (*kind == "new_best") {
    apply_new_best(e);
  } else if (*kind == "result") {
    if (auto b = best_point(e); b && !bests_.empty()) result_ = std::move(*b);
  } else if (*kind == "pass" || *kind == "polish" || *kind == "race_completion" ||
             *kind == "sampled_sizes" || *kind == "run_step") {
    // a pass after the search (and, in runs written before the passes, the steps' own events:
    // leaf polish, race completion, sampled sizes and the others as run_step)
    total_.kernel_runs += count_field(e, "kernel_runs").value_or(0);
  } else if (*kind == "start") {
    start_ = scalars(e, {"seed", "budget", "mutator", "train_shapes", "test_shapes"});
  } else if (*kind == "interrupted") {
    interrupted_ = true;
  } else if (*kind == "end") {
    ended_ = true;
    end_ = scalars(e, {"programs", "stop", "best_id", "best_train", "kernel_runs"});
  } else {
    devices_.apply(*kind, e); // a measured run's devices; other kinds (newer versions) skipped
  }
}

void RunView::read_config() {
  config_ = json::object();
  expert_.clear();
  config_problem_ = config_file_.problem();
  if (!config_file_.content()) return;
  json c;
  try {
    JsonReadOptions how;
    how.duplicate_keys = DuplicateKeys::keep_last;
    c = read_json(*config_file_.content(), "config.json", how);
  } catch (const JsonReadError& e) {
    if (e.kind == JsonReadError::Kind::too_deep) {
      config_problem_ = fmt::format("config.json is nested deeper than {} levels", kMaxJsonDepth);
      return;
    }
    c = nullptr; // reported below
  }
  if (!c.is_object()) {
    config_problem_ = "config.json is not a JSON object";
    return;
  }
  config_ = scalars(c.value("problem", json::object()),
                    {"gpu", "backend", "shapes", "test_shapes", "workload_log", "model", "tp",
                     "tokens", "keep", "split", "split_seed", "expert", "vendor_dispatch"});
  const json resolved = c.value("resolved", json::object());
  config_["resolved"] =
      scalars(resolved, {"shapes_file", "expert_file", "train_shapes", "test_shapes", "configs"});
  config_["mutator"] = str(c, "mutator", 100).value_or("");
  config_["options"] = scalars(c.value("options", json::object()),
                               {"seed", "budget", "stagnation", "target_score", "max_seconds",
                                "max_kernel_runs", "max_kernel_share"});
  if (resolved.is_object()) expert_ = str(resolved, "expert", 256u << 10).value_or("");
}

void RunView::update() {
  if (config_file_.refresh()) read_config();
  while (true) {
    EventPoll p = events_.poll();
    if (p.reset) reset_events();
    for (const json& e : p.events)
      apply(e);
    if (!p.more) break;
  }
  best_file_.refresh();
  if (per_shape_file_.refresh()) {
    ++per_shape_version_;
    per_shape_ = per_shape_file_.content() ? per_shape_view(*per_shape_file_.content()) : json();
    if (per_shape_.is_null() && !per_shape_file_.problem().empty())
      per_shape_ = {{"error", per_shape_file_.problem()}};
  }
  const std::string text = best_text().first;
  if (text != viewed_text_ || program_view_.is_null()) {
    viewed_text_ = text;
    program_view_ = program_view(text, expert_);
  }
}

std::pair<std::string, std::string> RunView::best_text() const {
  if (bests_.empty()) return {"", ""};
  const BestPoint& b = best();
  if (!b.program.empty()) return {b.program, result_ ? "result event" : "new_best event"};
  if (b.op == "seed" && !expert_.empty()) return {expert_, "the expert (config.json)"};
  if (ended_ && best_file_.content() && count_field(end_, "best_id") == (long long)b.id)
    return {*best_file_.content(), "best.py"};
  return {"", ""};
}

std::size_t RunView::held_program_bytes() const {
  std::size_t n = 0;
  for (const BestPoint& b : bests_)
    n += b.program.capacity();
  return n;
}

std::string RunView::status(double live_seconds) const {
  if (ended_) return "finished";
  if (interrupted_) return "interrupted";
  for (const auto age : {events_age(), file_age_seconds(dir_ / "checkpoint.json")})
    if (age && *age < live_seconds) return "running";
  return "stopped";
}

std::optional<double> RunView::events_age() const {
  return file_age_seconds(dir_ / "events.ndjson");
}

json RunView::lineage() const {
  json out = json::array();
  if (bests_.empty()) return out;
  std::vector<std::uint64_t> chain;
  std::uint64_t id = best().id;
  // Bounded by the node count: a corrupt file could close a parent cycle.
  for (std::size_t steps = 0; steps <= nodes_.size(); ++steps) {
    const auto it = nodes_.find(id);
    if (it == nodes_.end()) break;
    chain.push_back(id);
    if (it->second.parent == 0 || it->second.parent == id) break;
    id = it->second.parent;
  }
  for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
    const Node& n = nodes_.at(*it);
    out.push_back({{"id", *it}, {"n", n.n}, {"op", op_names_[n.op]}, {"train", n.train}});
  }
  return out;
}

json RunView::vs_tree() const {
  if (!per_shape_.is_object() || per_shape_.contains("error")) return json();
  const json* best = nullptr;
  const json* tree = nullptr;
  const auto it = per_shape_.find("methods");
  if (it == per_shape_.end() || !it->is_array()) return json();
  for (const json& m : *it) {
    const std::string key = m.value("key", "");
    if (key == "best") best = &m;
    if (key == "tree") tree = &m;
  }
  if (!best || !tree) return json();
  json out = json::object();
  for (const char* half : {"train", "test"}) {
    const json b = best->value(half, json::object()).value("fraction_of_oracle", json());
    const json t = tree->value(half, json::object()).value("fraction_of_oracle", json());
    out[half] =
        b.is_number() && t.is_number() ? json(100 * (b.get<double>() - t.get<double>())) : json();
  }
  return out;
}

json RunView::summary() const {
  json j{{"name", name_},
         {"status", status()},
         {"gpu", config_.value("gpu", json())},
         {"backend", config_.value("backend", json())},
         {"mutator", config_.value("mutator", json())},
         {"programs", programs_},
         {"budget",
          start_.value("budget", config_.value("options", json::object()).value("budget", json()))},
         {"best", bests_.empty() ? json() : point_json(best())},
         {"vs_tree", vs_tree()},
         {"bad_lines", events_.bad_lines() + bad_events_}};
  const auto age = events_age();
  j["updated_seconds_ago"] = age ? json(*age) : json();
  return j;
}

json RunView::state() const {
  json j = summary();
  j["config"] = config_;
  j["config_problem"] = config_problem_;
  j["start"] = start_;
  j["end"] = ended_ ? end_ : json();
  j["events"] = {{"bytes", events_.offset()},
                 {"lines", events_.lines()},
                 {"bad_lines", events_.bad_lines()},
                 {"bad_events", bad_events_},
                 {"first_problem", events_.first_problem()},
                 {"problem", events_.problem()}};
  json counters = tally_json(total_);
  counters["static_reasons"] = static_reasons_;
  counters["exhaustive_train_runs"] =
      per_shape_.is_object() ? per_shape_.value("exhaustive_train_runs", json()) : json();
  j["counters"] = counters;
  json ops = json::array();
  for (std::size_t i = 0; i < op_names_.size(); ++i) {
    if (op_names_[i] == "seed") continue;
    json o = tally_json(per_op_[i]);
    o["op"] = op_names_[i];
    const OperatorTally& t = per_op_[i];
    o["success"] = t.proposed ? json(double(t.improved) / double(t.proposed)) : json();
    ops.push_back(std::move(o));
  }
  j["operators"] = ops;
  json improvements = json::array();
  for (const BestPoint& b : bests_)
    improvements.push_back(point_json(b));
  // The seed's fractions of the oracle are the expert's, known from per_shape.json.
  if (!bests_.empty() && bests_.front().op == "seed" && per_shape_.is_object())
    for (const json& m : per_shape_.value("methods", json::array()))
      if (m.value("key", "") == "expert") {
        improvements[0]["train_of_oracle"] = m["train"].value("fraction_of_oracle", json());
        improvements[0]["test_of_oracle"] = m["test"].value("fraction_of_oracle", json());
      }
  j["improvements"] = improvements;
  json best = bests_.empty() ? json::object() : point_json(this->best());
  best.update(program_view_.is_object() ? program_view_ : json::object());
  best["source"] = best_text().second;
  j["best"] = best;
  j["expert"] = expert_;
  j["lineage"] = lineage();
  j["per_shape_version"] = per_shape_version_;
  j["devices"] = devices_.to_json();
  return j;
}

} // namespace tv
