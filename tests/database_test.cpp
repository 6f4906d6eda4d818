#include "evolve/database.hpp"
#include "ir/error.hpp"
#include "ir/rng.hpp"
#include "tests/support/random_program.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace database_test {

using namespace tv;

namespace {

/// A program with one rule per entry of `features`, each testing that feature; `tag` makes
/// programs of the same shape distinct (it sets the default config's group).
Program prog(const std::vector<Feature>& features, int tag = 0) {
  Program p;
  for (std::size_t i = 0; i < features.size(); ++i) {
    Rule r;
    r.condition.terms.push_back(Comparison{features[i], CmpOp::le, std::int64_t(16 * (i + 1))});
    p.rules.push_back(r);
  }
  p.default_config.group = 1 + tag;
  return p;
}

/// A distinct rule-less program per tag.
Program plain(int tag) {
  return prog({}, tag);
}

Candidate cand(std::uint64_t id, double score, int island = 0, Program p = {}) {
  Candidate c;
  c.id = id;
  c.parent = id > 1 ? id - 1 : 0;
  c.program = p == Program{} ? plain(int(id)) : std::move(p);
  c.score = score;
  c.island = island;
  return c;
}

std::vector<std::uint64_t> ids(const nlohmann::json& list) {
  std::vector<std::uint64_t> out;
  for (const auto& c : list)
    out.push_back(c["id"].get<std::uint64_t>());
  return out;
}

std::vector<std::uint64_t> island_ids(const ProgramDatabase& db, int island) {
  auto v = ids(db.to_json()["islands"][std::size_t(island)]);
  std::sort(v.begin(), v.end());
  return v;
}

/// A database filled with `n` random programs (ids 1..n) spread over its islands.
ProgramDatabase filled(DatabaseOptions o, int n, std::uint64_t seed) {
  ProgramDatabase db(o);
  Rng gen(seed), rng(seed + 1);
  for (int i = 1; i <= n; ++i) {
    Candidate c;
    c.id = std::uint64_t(i);
    c.parent = std::uint64_t(i - 1);
    c.program = test::random_program(gen, 10);
    c.score = double(gen.uniform_int(0, 40)) / 8.0; // many ties
    c.island = i % o.islands;
    db.add(c, rng);
  }
  return db;
}

/// Everything a sample returns, flattened for equality checks.
std::vector<double> flat(const ParentSample& s) {
  std::vector<double> out{double(s.island), double(s.parent.id), s.parent.score,
                          double(std::hash<Program>{}(s.parent.program) % 1000003)};
  for (const auto& c : s.inspirations) {
    out.push_back(double(c.id));
    out.push_back(c.score);
  }
  return out;
}

std::string error_of(const nlohmann::json& j) {
  try {
    (void)ProgramDatabase::from_json(j);
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("database: island capacity evicts the worst, ties the oldest") {
  DatabaseOptions o;
  o.islands = 1;
  o.island_capacity = 3;
  ProgramDatabase db(o);
  Rng rng(1);
  const double scores[] = {1, 5, 3, 2, 4};
  for (int i = 0; i < 5; ++i)
    db.add(cand(std::uint64_t(i + 1), scores[i]), rng);
  CHECK(island_ids(db, 0) == std::vector<std::uint64_t>{2, 3, 5});
  CHECK(db.size() == 5);
  // A newcomer worse than everyone is evicted at once.
  db.add(cand(6, 0.5), rng);
  CHECK(island_ids(db, 0) == std::vector<std::uint64_t>{2, 3, 5});

  DatabaseOptions t;
  t.islands = 1;
  t.island_capacity = 2;
  ProgramDatabase ties(t);
  for (std::uint64_t id = 1; id <= 3; ++id)
    ties.add(cand(id, 1.0), rng);
  CHECK(island_ids(ties, 0) == std::vector<std::uint64_t>{2, 3});

  // Out-of-range islands are clamped.
  DatabaseOptions two;
  two.islands = 2;
  ProgramDatabase clamp(two);
  clamp.add(cand(1, 1.0, 7), rng);
  clamp.add(cand(2, 1.0, -3), rng);
  CHECK(island_ids(clamp, 1) == std::vector<std::uint64_t>{1});
  CHECK(island_ids(clamp, 0) == std::vector<std::uint64_t>{2});
  CHECK(clamp.to_json()["islands"][1][0]["island"] == 1);
}

TEST_CASE("database: identical programs keep only the better one") {
  DatabaseOptions o;
  o.islands = 2;
  ProgramDatabase db(o);
  Rng rng(2);
  const Program p = prog({Feature::M});
  db.add(cand(1, 1.0, 0, p), rng);
  db.add(cand(2, 2.0, 0, p), rng);
  db.add(cand(3, 0.5, 0, p), rng);
  db.add(cand(4, 2.0, 0, p), rng); // a tie keeps the earlier one
  CHECK(island_ids(db, 0) == std::vector<std::uint64_t>{2});
  const auto j = db.to_json();
  CHECK(ids(j["archive"]) == std::vector<std::uint64_t>{2});
  CHECK(j["grid"].size() == 1);
  CHECK(j["grid"][0]["elite"]["id"] == 2);
  CHECK(db.size() == 4);
  // The same program on another island is another member.
  db.add(cand(5, 0.1, 1, p), rng);
  CHECK(island_ids(db, 1) == std::vector<std::uint64_t>{5});
  CHECK(ids(db.to_json()["archive"]) == std::vector<std::uint64_t>{2});
}

TEST_CASE("database: grid cells of hand-made programs") {
  using F = Feature;
  CHECK(ProgramDatabase::cell(Program{}) == std::pair{0, 0});
  CHECK(ProgramDatabase::cell(prog({F::M})) == std::pair{1, 1});
  CHECK(ProgramDatabase::cell(prog({F::N})) == std::pair{1, 2});
  CHECK(ProgramDatabase::cell(prog({F::N, F::K})) == std::pair{2, 6});
  CHECK(ProgramDatabase::cell(prog({F::M, F::M, F::M})) == std::pair{3, 1});
  CHECK(ProgramDatabase::cell(prog({F::K, F::K, F::K, F::K})) == std::pair{3, 4});
  CHECK(ProgramDatabase::cell(prog(std::vector<F>(5, F::M))) == std::pair{4, 1});
  CHECK(ProgramDatabase::cell(prog({F::M, F::N, F::K, F::M, F::M, F::M, F::M, F::M})) ==
        std::pair{4, 7});
  CHECK(ProgramDatabase::cell(prog(std::vector<F>(9, F::N))) == std::pair{5, 2});
  CHECK(ProgramDatabase::cell(prog(std::vector<F>(40, F::K))) == std::pair{5, 4});
  // A rule without comparisons uses no feature; several terms in one rule all count.
  Program p;
  p.rules.push_back(Rule{});
  CHECK(ProgramDatabase::cell(p) == std::pair{1, 0});
  p.rules[0].condition.terms = {Comparison{F::K, CmpOp::gt, 1}, Comparison{F::M, CmpOp::lt, 9}};
  CHECK(ProgramDatabase::cell(p) == std::pair{1, 5});

  ProgramDatabase db;
  Rng rng(3);
  db.add(cand(1, 1.0, 0, prog({F::M}, 1)), rng);
  db.add(cand(2, 3.0, 0, prog({F::M}, 2)), rng);
  db.add(cand(3, 2.0, 0, prog({F::M}, 3)), rng);
  db.add(cand(4, 0.5, 0, prog({F::N, F::K})), rng);
  CHECK(db.occupied_cells() == 2);
  const auto grid = db.to_json()["grid"];
  REQUIRE(grid.size() == 2);
  CHECK(grid[0]["rules"] == 1);
  CHECK(grid[0]["features"] == 1);
  CHECK(grid[0]["elite"]["id"] == 2);
  CHECK(grid[1]["rules"] == 2);
  CHECK(grid[1]["elite"]["id"] == 4);
}

TEST_CASE("database: the archive keeps the best distinct programs, best first") {
  DatabaseOptions o;
  o.archive_size = 3;
  o.islands = 2;
  ProgramDatabase db(o);
  Rng rng(4);
  const double scores[] = {1, 4, 2, 4, 3, 0.5};
  for (int i = 0; i < 6; ++i)
    db.add(cand(std::uint64_t(i + 1), scores[i], i % 2), rng);
  CHECK(ids(db.to_json()["archive"]) == std::vector<std::uint64_t>{2, 4, 5});
  db.add(cand(7, 3.5), rng);
  CHECK(ids(db.to_json()["archive"]) == std::vector<std::uint64_t>{2, 4, 7});
}

TEST_CASE("database: best is the highest score, ties the earliest") {
  ProgramDatabase db;
  Rng rng(5);
  CHECK_THROWS_AS(db.best(), std::logic_error);
  db.add(cand(1, 2.0), rng);
  db.add(cand(2, 2.0, 1), rng);
  CHECK(db.best().id == 1);
  db.add(cand(3, std::numeric_limits<double>::quiet_NaN()), rng);
  db.add(cand(4, std::numeric_limits<double>::infinity()), rng);
  CHECK(db.size() == 2);
  CHECK(db.best().id == 1);
  db.add(cand(5, 2.5, 3), rng);
  CHECK(db.best().id == 5);
  CHECK(db.best().score == 2.5);
}

TEST_CASE("database: migration copies each island's best into the next island") {
  DatabaseOptions o;
  o.islands = 3;
  o.island_capacity = 2;
  o.migration_interval = 4;
  ProgramDatabase db(o);
  Rng rng(6);
  db.add(cand(1, 5.0, 0), rng);
  db.add(cand(2, 1.0, 0), rng);
  db.add(cand(3, 2.0, 1), rng);
  CHECK(island_ids(db, 1) == std::vector<std::uint64_t>{3});
  db.add(cand(4, 3.0, 2), rng); // 4th add: migration
  // 0 -> 1: 1 joins island 1 (room left); 1 -> 2: 3 joins; 2 -> 0: 4 replaces the worst (2).
  CHECK(island_ids(db, 1) == std::vector<std::uint64_t>{1, 3});
  CHECK(island_ids(db, 2) == std::vector<std::uint64_t>{3, 4});
  CHECK(island_ids(db, 0) == std::vector<std::uint64_t>{1, 4});
  const auto j = db.to_json();
  for (std::size_t i = 0; i < 3; ++i)
    for (const auto& c : j["islands"][i])
      CHECK(c["island"] == int(i));
  // The newcomers (0.1) are evicted at once. Next migration: 1 already lives in island 1 and
  // 4 in island 0, so those copies are skipped; island 2 gets 1 (5.0) in place of 3 (2.0).
  for (std::uint64_t id = 5; id <= 8; ++id)
    db.add(cand(id, 0.1, 0), rng);
  CHECK(island_ids(db, 2) == std::vector<std::uint64_t>{1, 4});
  CHECK(island_ids(db, 0) == std::vector<std::uint64_t>{1, 4});
}

TEST_CASE("database: samples are existing candidates and respect the island") {
  DatabaseOptions o;
  o.islands = 3;
  o.island_capacity = 8;
  o.inspirations = 3;
  const int n = 60;
  ProgramDatabase db = filled(o, n, 7);
  const auto j = db.to_json();
  Rng rng(8);
  int with_inspirations = 0;
  for (int k = 0; k < 600; ++k) {
    const int island = k % 3;
    const ParentSample s = db.sample(island, rng);
    CHECK(s.island == island);
    CHECK(s.parent.id >= 1);
    CHECK(s.parent.id <= std::uint64_t(n));
    CHECK(s.inspirations.size() <= 3);
    std::set<std::uint64_t> seen{s.parent.id};
    for (const auto& c : s.inspirations) {
      CHECK(seen.insert(c.id).second);
      CHECK_FALSE(c.program == s.parent.program);
      CHECK(c.id >= 1);
      CHECK(c.id <= std::uint64_t(n));
    }
    with_inspirations += !s.inspirations.empty();
  }
  CHECK(with_inspirations == 600);

  // Pure exploitation: the parent is one of the island's best third.
  DatabaseOptions x = o;
  x.archive_rate = 0;
  x.exploit_rate = 1;
  ProgramDatabase ex = filled(x, n, 7);
  const auto ej = ex.to_json();
  for (int k = 0; k < 300; ++k) {
    const int island = k % 3;
    const ParentSample s = ex.sample(island, rng);
    CHECK(s.parent.island == island);
    std::vector<double> scores;
    for (const auto& c : ej["islands"][std::size_t(island)])
      scores.push_back(c["score"]);
    std::sort(scores.rbegin(), scores.rend());
    const std::size_t top = (scores.size() + 2) / 3;
    CHECK(s.parent.score >= scores[top - 1]);
  }

  // Without archive or exploitation the parent comes from the island or a grid elite.
  DatabaseOptions u = o;
  u.archive_rate = 0;
  u.exploit_rate = 0;
  ProgramDatabase un = filled(u, n, 7);
  const auto uj = un.to_json();
  std::set<std::uint64_t> grid_ids;
  for (const auto& g : uj["grid"])
    grid_ids.insert(g["elite"]["id"].get<std::uint64_t>());
  for (int k = 0; k < 300; ++k) {
    const ParentSample s = un.sample(1, rng);
    const auto isl = island_ids(un, 1);
    const bool in_island = std::find(isl.begin(), isl.end(), s.parent.id) != isl.end();
    CHECK((in_island || grid_ids.count(s.parent.id) == 1));
  }
}

TEST_CASE("database: an empty island falls back to the archive") {
  DatabaseOptions o;
  o.islands = 3;
  o.archive_rate = 0;
  ProgramDatabase db(o);
  Rng rng(9);
  CHECK_THROWS_AS((void)db.sample(0, rng), std::logic_error);
  db.add(cand(1, 1.0, 0), rng);
  db.add(cand(2, 2.0, 0), rng);
  for (int k = 0; k < 50; ++k) {
    const ParentSample s = db.sample(2, rng);
    CHECK(s.island == 2);
    CHECK((s.parent.id == 1 || s.parent.id == 2));
    CHECK(s.inspirations.size() <= 1); // the other program only
  }
}

TEST_CASE("database: same adds and same seeds sample identically") {
  DatabaseOptions o;
  o.islands = 4;
  o.island_capacity = 6;
  o.migration_interval = 7;
  ProgramDatabase a(o), b(o);
  Rng ga(11), gb(11), ra(12), rb(12);
  bool differed = false;
  std::vector<double> first;
  for (int i = 1; i <= 200; ++i) {
    Candidate ca{std::uint64_t(i), 0, test::random_program(ga, 10), double(ga.uniform_int(0, 20)),
                 int(ga.uniform_int(0, 3))};
    Candidate cb{std::uint64_t(i), 0, test::random_program(gb, 10), double(gb.uniform_int(0, 20)),
                 int(gb.uniform_int(0, 3))};
    a.add(ca, ra);
    b.add(cb, rb);
    const auto sa = flat(a.sample(i % 4, ra)), sb = flat(b.sample(i % 4, rb));
    CHECK(sa == sb);
    if (first.empty()) first = sa;
    differed = differed || sa != first;
  }
  CHECK(differed);
  CHECK(a.to_json() == b.to_json());
  CHECK(a.best().id == b.best().id);
}

TEST_CASE("database: json round trip behaves identically") {
  DatabaseOptions o;
  o.islands = 3;
  o.island_capacity = 5;
  o.archive_size = 4;
  o.migration_interval = 9;
  o.inspirations = 2;
  o.exploit_rate = 0.55;
  o.archive_rate = 0.2;
  ProgramDatabase a = filled(o, 40, 13);
  const auto j = a.to_json();
  ProgramDatabase b = ProgramDatabase::from_json(nlohmann::json::parse(j.dump()));
  CHECK(b.to_json() == j);
  CHECK(b.size() == a.size());
  CHECK(b.islands() == 3);
  CHECK(b.occupied_cells() == a.occupied_cells());
  CHECK(b.best().id == a.best().id);
  CHECK(b.best().program == a.best().program);

  // Scores survive exactly, even ones without a short decimal form.
  ProgramDatabase c;
  Rng r(14);
  c.add(cand(1, 1.0 / 3.0), r);
  c.add(cand(2, 0.1 + 0.2), r);
  const auto cj = ProgramDatabase::from_json(nlohmann::json::parse(c.to_json().dump()));
  CHECK(cj.best().score == 1.0 / 3.0);
  const auto archive = cj.to_json()["archive"];
  REQUIRE(archive.size() == 2);
  CHECK(archive[1]["score"].get<double>() == 0.1 + 0.2);

  Rng gen_a(15), gen_b(15), ra(16), rb(16);
  for (int i = 41; i <= 120; ++i) {
    Candidate ca{std::uint64_t(i), 1, test::random_program(gen_a, 10),
                 double(gen_a.uniform_int(0, 40)) / 8.0, i % 3};
    Candidate cb{std::uint64_t(i), 1, test::random_program(gen_b, 10),
                 double(gen_b.uniform_int(0, 40)) / 8.0, i % 3};
    a.add(ca, ra);
    b.add(cb, rb);
    CHECK(flat(a.sample(i % 3, ra)) == flat(b.sample(i % 3, rb)));
  }
  CHECK(a.to_json() == b.to_json());
  CHECK(ra.state() == rb.state());

  // An empty database round-trips too.
  ProgramDatabase e;
  CHECK(ProgramDatabase::from_json(e.to_json()).to_json() == e.to_json());
}

TEST_CASE("database: from_json rejects malformed state") {
  ProgramDatabase db = filled(DatabaseOptions{}, 12, 17);
  const nlohmann::json good = db.to_json();
  CHECK(error_of(good) == "no error");

  auto without = [&](const char* key) {
    auto j = good;
    j.erase(key);
    return j;
  };
  CHECK(error_of(without("islands")) == "database: field 'islands' missing");
  CHECK(error_of(without("options")) == "database: field 'options' missing");
  CHECK(error_of(without("best")) == "database: field 'best' missing");
  CHECK(error_of(nlohmann::json::array()).find("not a JSON object") != std::string::npos);
  CHECK(error_of(nlohmann::json::parse("null")).find("database:") == 0);

  auto j = good;
  j["islands"].erase(0);
  CHECK(error_of(j).find("islands") != std::string::npos);

  j = good;
  j["islands"][0][0]["program"] = "def choose(M, N, K):\n    return nonsense\n";
  CHECK(error_of(j).find("islands[0][0].program") != std::string::npos);

  j = good;
  j["islands"][0][0].erase("score");
  CHECK(error_of(j) == "database: field 'score' missing in islands[0][0]");

  j = good;
  j["islands"][0][0]["score"] = "high";
  CHECK(error_of(j).find("'score' is not a number") != std::string::npos);

  j = good;
  j["islands"][0][0]["id"] = -4;
  CHECK(error_of(j).find("'id'") != std::string::npos);

  j = good;
  j["options"]["islands"] = 0;
  CHECK(error_of(j).find("'islands' is out of range in options") != std::string::npos);

  j = good;
  j["options"]["exploit_rate"] = 1.5;
  CHECK(error_of(j).find("exploit_rate") != std::string::npos);

  j = good;
  j["grid"][0]["rules"] = (j["grid"][0]["rules"].get<int>() + 1) % 6; // another bucket
  CHECK(error_of(j).find("grid[0]") != std::string::npos);

  j = good;
  j["best"] = nullptr;
  CHECK(error_of(j).find("'best'") != std::string::npos);

  j = good;
  j["version"] = 2;
  CHECK(error_of(j).find("'version'") != std::string::npos);

  j = good;
  j["archive"] = 3;
  CHECK(error_of(j) == "database: field 'archive' is not an array");

  DatabaseOptions bad;
  bad.island_capacity = 0;
  CHECK_THROWS_AS(ProgramDatabase{bad}, InputError);
}

} // namespace database_test
