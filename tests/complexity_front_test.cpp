#include "evolve/complexity_front.hpp"

#include "ir/error.hpp"
#include "support/fixtures.hpp"

#include <doctest/doctest.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace complexity_front_test {

using namespace tv;

namespace {

FrontEntry entry(std::uint64_t id, std::size_t rules, double speedup) {
  FrontEntry e;
  e.candidate.id = id;
  for (std::size_t i = 0; i < rules; ++i) {
    Rule r;
    r.condition.terms.push_back(Comparison{Feature::M, CmpOp::le, std::int64_t(i + 1)});
    r.config = test::cfg(16, 64, 64, 4, 4, 8);
    e.candidate.program.rules.push_back(r);
  }
  e.candidate.program.default_config = test::cfg(128, 128, 64, 8, 3, 8);
  e.speedup = speedup;
  e.op = "split";
  e.diff = "diff " + std::to_string(id);
  return e;
}

} // namespace

TEST_CASE("the front keeps the best program per rule count, the earlier on ties") {
  ComplexityFront f;
  CHECK(f.empty());
  CHECK_FALSE(f.choose(0.0).has_value());
  f.offer(entry(1, 0, 1.0));
  f.offer(entry(2, 3, 1.20));
  f.offer(entry(3, 3, 1.10)); // worse: ignored
  f.offer(entry(4, 3, 1.20)); // tie: the earlier stays
  f.offer(entry(5, 8, 1.25));
  CHECK(f.entries().size() == 3);
  CHECK(f.entries().at(3).candidate.id == 2);
  CHECK(f.improves(3, 1.21));
  CHECK_FALSE(f.improves(3, 1.20));
  CHECK(f.improves(4, 1.0));
  CHECK_FALSE(f.improves(4, std::nan("")));
}

TEST_CASE("choose trades speedup against a charge per rule") {
  ComplexityFront f;
  f.offer(entry(1, 0, 1.0));
  f.offer(entry(2, 3, 1.20));
  f.offer(entry(5, 8, 1.25));
  CHECK(f.choose(0.0)->candidate.id == 5);   // no charge: the best training score
  CHECK(f.choose(0.005)->candidate.id == 5); // 5 more rules for 4% pay at 0.5% a rule
  CHECK(f.choose(0.02)->candidate.id == 2);  // ... and not at 2%
  CHECK(f.choose(0.2)->candidate.id == 1);   // a large charge: no rules
}

TEST_CASE("the front round-trips through JSON and refuses malformed input") {
  ComplexityFront f;
  f.offer(entry(1, 0, 1.0));
  f.offer(entry(2, 3, 1.20));
  const ComplexityFront g = ComplexityFront::from_json(f.to_json());
  CHECK(g.to_json() == f.to_json());
  CHECK(g.entries().at(3).candidate.program == f.entries().at(3).candidate.program);
  CHECK_THROWS_AS(ComplexityFront::from_json(nlohmann::json::object()), InputError);
  nlohmann::json bad = f.to_json();
  bad[0].erase("speedup");
  CHECK_THROWS_AS(ComplexityFront::from_json(bad), InputError);
  bad = f.to_json();
  bad[0]["program"] = "def choose(:";
  CHECK_THROWS_AS(ComplexityFront::from_json(bad), InputError);
}

} // namespace complexity_front_test
