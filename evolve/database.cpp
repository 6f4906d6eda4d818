#include "evolve/database.hpp"

#include "ir/error.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

namespace tv {

namespace {

using Cell = std::pair<int, int>;
using nlohmann::json;

/// Strict "a ranks above b": higher score, ties the earlier id.
bool better(const Candidate& a, const Candidate& b) {
  if (a.score != b.score) return a.score > b.score;
  return a.id < b.id;
}

/// Index of the member to evict: the worst score, ties the oldest id. Requires non-empty.
std::size_t worst_index(const std::vector<Candidate>& v) {
  std::size_t w = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (v[i].score < v[w].score || (v[i].score == v[w].score && v[i].id < v[w].id)) w = i;
  return w;
}

/// Index of the best member in better() order. Requires non-empty.
std::size_t best_index(const std::vector<Candidate>& v) {
  std::size_t b = 0;
  for (std::size_t i = 1; i < v.size(); ++i)
    if (better(v[i], v[b])) b = i;
  return b;
}

/// Index of a member whose program equals `p`, or -1.
std::ptrdiff_t find_program(const std::vector<Candidate>& v, const Program& p) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i].program == p) return std::ptrdiff_t(i);
  return -1;
}

/// A cheap fingerprint of a program's structure (equal programs get equal keys), so that
/// sampling compares two programs in full only when their keys match.
std::uint64_t quick_key(const Program& p) {
  std::uint64_t k = p.rules.size();
  for (const Rule& r : p.rules) {
    for (const Comparison& t : r.condition.terms)
      k = k * 31 + std::uint64_t(t.value) * 8 + std::uint64_t(t.op) + std::uint64_t(t.tile_m);
    const Config& c = r.config;
    k = k * 131 + std::uint64_t(c.BM) * 7 + std::uint64_t(c.BN) * 3 + std::uint64_t(c.BK) +
        std::uint64_t(c.warps) + std::uint64_t(c.stages) * 5 + std::uint64_t(c.group) * 11;
  }
  return k;
}

/// Puts `c` into an island of at most `capacity` members: an equal program keeps the better
/// of the two in place; otherwise `c` is appended and, when over capacity, the worst member
/// (possibly `c` itself) is evicted.
void insert_into_island(std::vector<Candidate>& island, const Candidate& c, int capacity) {
  if (const auto dup = find_program(island, c.program); dup >= 0) {
    if (better(c, island[std::size_t(dup)])) island[std::size_t(dup)] = c;
    return;
  }
  island.push_back(c);
  if (island.size() > std::size_t(capacity))
    island.erase(island.begin() + std::ptrdiff_t(worst_index(island)));
}

/// The island's members in better() order, as indices into `island`.
std::vector<std::size_t> ranked(const std::vector<Candidate>& island) {
  std::vector<std::size_t> idx(island.size());
  for (std::size_t i = 0; i < idx.size(); ++i)
    idx[i] = i;
  std::sort(idx.begin(), idx.end(),
            [&](std::size_t a, std::size_t b) { return better(island[a], island[b]); });
  return idx;
}

[[noreturn]] void fail(const std::string& what) {
  throw InputError("database: " + what);
}

/// Validates options; throws InputError naming the first bad one.
void check_options(const DatabaseOptions& o) {
  if (o.islands < 1) fail("option 'islands' must be at least 1");
  if (o.island_capacity < 1) fail("option 'island_capacity' must be at least 1");
  if (o.archive_size < 1) fail("option 'archive_size' must be at least 1");
  if (o.migration_interval < 1) fail("option 'migration_interval' must be at least 1");
  if (o.inspirations < 0) fail("option 'inspirations' must not be negative");
  if (!(o.exploit_rate >= 0 && o.exploit_rate <= 1))
    fail("option 'exploit_rate' must lie in [0, 1]");
  if (!(o.archive_rate >= 0 && o.archive_rate <= 1))
    fail("option 'archive_rate' must lie in [0, 1]");
}

// ---- JSON -------------------------------------------------------------------------------

/// " in <where>" or "" at the top level.
std::string in(const std::string& where) {
  return where.empty() ? "" : " in " + where;
}

const json& field(const json& j, const char* name, const std::string& where) {
  if (!j.is_object()) fail((where.empty() ? std::string("state") : where) + " is not an object");
  const auto it = j.find(name);
  if (it == j.end()) fail("field '" + std::string(name) + "' missing" + in(where));
  return *it;
}

std::int64_t get_int(const json& j, const char* name, const std::string& where, std::int64_t lo,
                     std::int64_t hi) {
  const json& v = field(j, name, where);
  if (!v.is_number_integer())
    fail("field '" + std::string(name) + "' is not an integer" + in(where));
  if (v.is_number_unsigned() && v.get<std::uint64_t>() > std::uint64_t(hi))
    fail("field '" + std::string(name) + "' is out of range" + in(where));
  const auto x = v.get<std::int64_t>();
  if (x < lo || x > hi) fail("field '" + std::string(name) + "' is out of range" + in(where));
  return x;
}

std::uint64_t get_u64(const json& j, const char* name, const std::string& where) {
  const json& v = field(j, name, where);
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  if (v.is_number_integer() && v.get<std::int64_t>() >= 0)
    return std::uint64_t(v.get<std::int64_t>());
  fail("field '" + std::string(name) + "' is not a non-negative integer" + in(where));
}

double get_double(const json& j, const char* name, const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_number()) fail("field '" + std::string(name) + "' is not a number" + in(where));
  const double x = v.get<double>();
  if (!std::isfinite(x)) fail("field '" + std::string(name) + "' is not finite" + in(where));
  return x;
}

const json& get_array(const json& j, const char* name, const std::string& where) {
  const json& v = field(j, name, where);
  if (!v.is_array()) fail("field '" + std::string(name) + "' is not an array" + in(where));
  return v;
}

json candidate_to_json(const Candidate& c) {
  return json{{"id", c.id},
              {"parent", c.parent},
              {"program", print_program(c.program)},
              {"score", c.score},
              {"island", c.island}};
}

Candidate candidate_from_json(const json& j, const std::string& where, int islands) {
  Candidate c;
  c.id = get_u64(j, "id", where);
  c.parent = get_u64(j, "parent", where);
  c.score = get_double(j, "score", where);
  c.island = int(get_int(j, "island", where, 0, islands - 1));
  const json& text = field(j, "program", where);
  if (!text.is_string()) fail("field 'program' is not a string" + in(where));
  c.program = parse_program_or_throw(text.get<std::string>(), "database: " + where + ".program");
  return c;
}

json options_to_json(const DatabaseOptions& o) {
  return json{{"islands", o.islands},           {"island_capacity", o.island_capacity},
              {"archive_size", o.archive_size}, {"migration_interval", o.migration_interval},
              {"inspirations", o.inspirations}, {"exploit_rate", o.exploit_rate},
              {"archive_rate", o.archive_rate}};
}

DatabaseOptions options_from_json(const json& j) {
  const std::string w = "options";
  constexpr std::int64_t big = std::numeric_limits<int>::max();
  DatabaseOptions o;
  o.islands = int(get_int(j, "islands", w, 1, 1 << 16));
  o.island_capacity = int(get_int(j, "island_capacity", w, 1, big));
  o.archive_size = int(get_int(j, "archive_size", w, 1, big));
  o.migration_interval = int(get_int(j, "migration_interval", w, 1, big));
  o.inspirations = int(get_int(j, "inspirations", w, 0, big));
  o.exploit_rate = get_double(j, "exploit_rate", w);
  o.archive_rate = get_double(j, "archive_rate", w);
  check_options(o);
  return o;
}

} // namespace

ProgramDatabase::ProgramDatabase(DatabaseOptions options) : options_(options) {
  check_options(options_);
  islands_.resize(std::size_t(options_.islands));
}

std::pair<int, int> ProgramDatabase::cell(const Program& p) {
  const std::size_t n = p.rules.size();
  const int bucket = n == 0 ? 0 : n == 1 ? 1 : n == 2 ? 2 : n <= 4 ? 3 : n <= 8 ? 4 : 5;
  int mask = 0;
  for (const Rule& r : p.rules)
    for (const Comparison& t : r.condition.terms)
      mask |= 1 << int(t.feature);
  return {bucket, mask};
}

void ProgramDatabase::add(const Candidate& candidate, Rng& /*rng: migration is deterministic*/) {
  if (!std::isfinite(candidate.score)) return;
  Candidate c = candidate;
  c.island = std::clamp(c.island, 0, options_.islands - 1);
  ++added_;

  insert_into_island(islands_[std::size_t(c.island)], c, options_.island_capacity);

  // MAP-Elites grid: one elite per cell, kept sorted by cell.
  const Cell key = cell(c.program);
  auto it = std::lower_bound(grid_.begin(), grid_.end(), key,
                             [](const auto& e, const Cell& k) { return e.first < k; });
  if (it != grid_.end() && it->first == key) {
    if (better(c, it->second)) it->second = c;
  } else {
    grid_.insert(it, {key, c});
  }

  // Archive: the best distinct programs overall, best first.
  if (const auto dup = find_program(archive_, c.program); dup >= 0) {
    if (better(c, archive_[std::size_t(dup)])) archive_[std::size_t(dup)] = c;
  } else {
    archive_.push_back(c);
  }
  std::stable_sort(archive_.begin(), archive_.end(), better);
  if (archive_.size() > std::size_t(options_.archive_size))
    archive_.resize(std::size_t(options_.archive_size));

  if (!best_ || better(c, *best_)) best_ = c;

  if (options_.islands > 1 && added_ % std::size_t(options_.migration_interval) == 0) {
    // Snapshot every island's best first, so the ring order does not chain migrants.
    std::vector<std::optional<Candidate>> migrants(islands_.size());
    for (std::size_t i = 0; i < islands_.size(); ++i)
      if (!islands_[i].empty()) migrants[i] = islands_[i][best_index(islands_[i])];
    for (std::size_t i = 0; i < islands_.size(); ++i) {
      if (!migrants[i]) continue;
      const std::size_t to = (i + 1) % islands_.size();
      Candidate m = *migrants[i];
      m.island = int(to);
      auto& dest = islands_[to];
      if (const auto dup = find_program(dest, m.program); dup >= 0) {
        if (better(m, dest[std::size_t(dup)])) dest[std::size_t(dup)] = m;
      } else if (dest.size() < std::size_t(options_.island_capacity)) {
        dest.push_back(m);
      } else {
        const std::size_t w = worst_index(dest);
        if (better(m, dest[w])) dest[w] = m;
      }
    }
  }
}

ParentSample ProgramDatabase::sample(int island, Rng& rng) const {
  if (!best_) throw std::logic_error("database: sample() on an empty database");
  ParentSample out;
  out.island = std::clamp(island, 0, options_.islands - 1);
  const auto& members = islands_[std::size_t(out.island)];

  // Parent. Every branch draws a fixed number of values for a given state, so the stream
  // stays reproducible.
  const bool from_archive = rng.chance(options_.archive_rate);
  if (members.empty() || (from_archive && !archive_.empty())) {
    out.parent = archive_.empty() ? *best_ : rng.pick(archive_);
  } else if (rng.chance(options_.exploit_rate)) {
    const auto order = ranked(members);
    const std::size_t top = std::max<std::size_t>(1, (members.size() + 2) / 3);
    out.parent = members[order[rng.index(top)]];
  } else if (grid_.empty() || rng.chance(0.5)) {
    out.parent = rng.pick(members);
  } else {
    out.parent = grid_[rng.index(grid_.size())].second;
  }

  // Inspirations: distinct programs from the island (best first) and the grid (by cell),
  // other than the parent, chosen by binary tournaments that prefer an uncovered grid cell
  // (diversity) and then the better score.
  if (options_.inspirations == 0) return out;
  // The pool points into the database (nothing is added while sampling): only the chosen
  // inspirations are copied.
  std::vector<const Candidate*> pool; // offered in this order: the island ranked, then the grid
  for (const std::size_t i : ranked(members))
    pool.push_back(&members[i]);
  for (const auto& [key, elite] : grid_)
    pool.push_back(&elite);
  // Keep the first of each program, and none equal to the parent: candidates are compared in
  // full only when their quick keys match (sorted by key, then by place in the pool).
  const std::uint64_t parent_key = quick_key(out.parent.program);
  std::vector<std::pair<std::uint64_t, std::size_t>> by_key;
  by_key.reserve(pool.size());
  for (std::size_t k = 0; k < pool.size(); ++k)
    by_key.emplace_back(quick_key(pool[k]->program), k);
  std::sort(by_key.begin(), by_key.end());
  std::vector<char> keep(pool.size(), 1);
  for (std::size_t a = 0; a < by_key.size(); ++a) {
    const auto [key, k] = by_key[a];
    const Candidate& c = *pool[k];
    if (c.id == out.parent.id || (key == parent_key && c.program == out.parent.program)) {
      keep[k] = 0;
      continue;
    }
    for (std::size_t b = a; b-- > 0 && by_key[b].first == key;)
      if (keep[by_key[b].second] && pool[by_key[b].second]->program == c.program) {
        keep[k] = 0;
        break;
      }
  }
  std::size_t kept = 0;
  for (std::size_t k = 0; k < pool.size(); ++k)
    if (keep[k]) pool[kept++] = pool[k];
  pool.resize(kept);

  std::vector<Cell> covered{cell(out.parent.program)};
  auto is_covered = [&](const Candidate& c) {
    return std::find(covered.begin(), covered.end(), cell(c.program)) != covered.end();
  };
  while (out.inspirations.size() < std::size_t(options_.inspirations) && !pool.empty()) {
    std::size_t a = rng.index(pool.size());
    const std::size_t b = rng.index(pool.size());
    const bool new_a = !is_covered(*pool[a]), new_b = !is_covered(*pool[b]);
    if (new_b != new_a ? new_b : better(*pool[b], *pool[a])) a = b;
    covered.push_back(cell(pool[a]->program));
    out.inspirations.push_back(*pool[a]);
    pool.erase(pool.begin() + std::ptrdiff_t(a));
  }
  return out;
}

std::vector<Candidate> ProgramDatabase::held() const {
  std::vector<Candidate> out;
  for (const auto& island : islands_)
    out.insert(out.end(), island.begin(), island.end());
  out.insert(out.end(), archive_.begin(), archive_.end());
  for (const auto& [cell, c] : grid_)
    out.push_back(c);
  if (best_) out.push_back(*best_);
  std::sort(out.begin(), out.end(),
            [](const Candidate& a, const Candidate& b) { return a.id < b.id; });
  out.erase(std::unique(out.begin(), out.end(),
                        [](const Candidate& a, const Candidate& b) { return a.id == b.id; }),
            out.end());
  return out;
}

const Candidate& ProgramDatabase::best() const {
  if (!best_) throw std::logic_error("database: best() on an empty database");
  return *best_;
}

std::size_t ProgramDatabase::size() const {
  return added_;
}

int ProgramDatabase::islands() const {
  return options_.islands;
}

std::size_t ProgramDatabase::occupied_cells() const {
  return grid_.size();
}

nlohmann::json ProgramDatabase::to_json() const {
  json islands = json::array();
  for (const auto& island : islands_) {
    json members = json::array();
    for (const Candidate& c : island)
      members.push_back(candidate_to_json(c));
    islands.push_back(std::move(members));
  }
  json archive = json::array();
  for (const Candidate& c : archive_)
    archive.push_back(candidate_to_json(c));
  json grid = json::array();
  for (const auto& [key, c] : grid_)
    grid.push_back(
        json{{"rules", key.first}, {"features", key.second}, {"elite", candidate_to_json(c)}});
  return json{{"version", 1},
              {"options", options_to_json(options_)},
              {"added", added_},
              {"islands", std::move(islands)},
              {"archive", std::move(archive)},
              {"grid", std::move(grid)},
              {"best", best_ ? candidate_to_json(*best_) : json(nullptr)}};
}

ProgramDatabase ProgramDatabase::from_json(const nlohmann::json& j) {
  if (!j.is_object()) fail("state is not a JSON object");
  if (get_int(j, "version", "", 1, 1) != 1) fail("unsupported version");
  ProgramDatabase db(options_from_json(field(j, "options", "")));
  const int n = db.options_.islands;
  db.added_ = std::size_t(get_u64(j, "added", ""));

  const json& islands = get_array(j, "islands", "");
  if (islands.size() != std::size_t(n))
    fail("field 'islands' has " + std::to_string(islands.size()) + " islands, options say " +
         std::to_string(n));
  for (std::size_t i = 0; i < islands.size(); ++i) {
    const std::string w = "islands[" + std::to_string(i) + "]";
    if (!islands[i].is_array()) fail(w + " is not an array");
    if (islands[i].size() > std::size_t(db.options_.island_capacity))
      fail(w + " holds more than island_capacity programs");
    for (std::size_t k = 0; k < islands[i].size(); ++k) {
      const std::string wk = w + "[" + std::to_string(k) + "]";
      Candidate c = candidate_from_json(islands[i][k], wk, n);
      if (c.island != int(i)) fail(wk + " names island " + std::to_string(c.island));
      if (find_program(db.islands_[i], c.program) >= 0) fail(wk + " duplicates a program");
      db.islands_[i].push_back(std::move(c));
    }
  }

  const json& archive = get_array(j, "archive", "");
  if (archive.size() > std::size_t(db.options_.archive_size))
    fail("field 'archive' holds more than archive_size programs");
  for (std::size_t k = 0; k < archive.size(); ++k) {
    const std::string w = "archive[" + std::to_string(k) + "]";
    Candidate c = candidate_from_json(archive[k], w, n);
    if (find_program(db.archive_, c.program) >= 0) fail(w + " duplicates a program");
    if (!db.archive_.empty() && better(c, db.archive_.back())) fail(w + " is out of order");
    db.archive_.push_back(std::move(c));
  }

  const json& grid = get_array(j, "grid", "");
  for (std::size_t k = 0; k < grid.size(); ++k) {
    const std::string w = "grid[" + std::to_string(k) + "]";
    const Cell key{int(get_int(grid[k], "rules", w, 0, 5)),
                   int(get_int(grid[k], "features", w, 0, 31))};
    Candidate c = candidate_from_json(field(grid[k], "elite", w), w + ".elite", n);
    if (cell(c.program) != key) fail(w + " elite does not belong to its cell");
    if (!db.grid_.empty() && !(db.grid_.back().first < key)) fail(w + " is out of order");
    db.grid_.emplace_back(key, std::move(c));
  }

  const json& best = field(j, "best", "");
  if (!best.is_null()) db.best_ = candidate_from_json(best, "best", n);
  const bool any =
      !db.archive_.empty() || !db.grid_.empty() ||
      std::any_of(db.islands_.begin(), db.islands_.end(), [](const auto& v) { return !v.empty(); });
  if (any && !db.best_) fail("field 'best' is null but the database holds programs");
  if (!any && (db.best_ || db.added_ != 0)) fail("field 'best' or 'added' set without programs");
  return db;
}

} // namespace tv
