#include "evolve/lineage.hpp"

#include <doctest/doctest.h>

#include <sstream>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace lineage_test {

using namespace tv;

namespace {

LineageNode node(std::uint64_t id, std::string op, double score = 0, std::string stage = "full") {
  return LineageNode{id, std::move(op), std::move(stage), score};
}

/// Non-overlapping occurrences of `needle` in `hay`.
int count(const std::string& hay, const std::string& needle) {
  int n = 0;
  for (auto pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + 1))
    ++n;
  return n;
}

/// seed 1 -> 2 -> 4, 1 -> 3, 3 inspires 4, 5 has an unknown parent.
Lineage sample_lineage() {
  Lineage l;
  l.add(node(1, "seed", 1.0), 0, {});
  l.add(node(2, "targeted", 1.234), 1, {});
  l.add(node(3, "threshold", 1.1), 1, {2});
  l.add(node(4, "tweak", 1.5), 2, {3});
  l.add(node(5, "tweak", 0, "static"), 99, {98, 3});
  return l;
}

} // namespace

TEST_CASE("lineage: ancestry runs root first along parent edges") {
  const Lineage l = sample_lineage();
  CHECK(l.size() == 5);
  CHECK(l.ancestry(4) == std::vector<std::uint64_t>{1, 2, 4});
  CHECK(l.ancestry(3) == std::vector<std::uint64_t>{1, 3});
  CHECK(l.ancestry(1) == std::vector<std::uint64_t>{1});
  CHECK(l.ancestry(42).empty());
}

TEST_CASE("lineage: missing parents and inspirations are skipped") {
  const Lineage l = sample_lineage();
  // 5's parent 99 does not exist: it is a root of its own.
  CHECK(l.ancestry(5) == std::vector<std::uint64_t>{5});
  std::ostringstream out;
  l.write_graphml(out);
  // Edges: 1->2, 1->3, 2->3 (insp), 2->4, 3->4 (insp), 3->5 (insp); none to 98 or 99.
  CHECK(count(out.str(), "<edge ") == 6);
  CHECK(out.str().find("99") == std::string::npos);
}

TEST_CASE("lineage: re-adding a node updates it without a second parent") {
  Lineage l = sample_lineage();
  l.add(node(5, "tweak", 2.0), 3, {});
  CHECK(l.size() == 5);
  CHECK(l.ancestry(5) == std::vector<std::uint64_t>{1, 3, 5});
  l.add(node(5, "tweak", 2.0), 2, {});
  CHECK(l.ancestry(5) == std::vector<std::uint64_t>{1, 3, 5});
  // A parent cycle cannot make ancestry loop forever.
  l.add(node(1, "seed", 1.0), 4, {});
  CHECK(l.ancestry(4).size() <= l.size() + 1);
}

TEST_CASE("lineage: GraphML output holds every node, edge and attribute") {
  const Lineage l = sample_lineage();
  std::ostringstream out;
  l.write_graphml(out);
  const std::string s = out.str();
  CHECK(s.rfind("<?xml", 0) == 0);
  CHECK(count(s, "<node ") == 5);
  CHECK(count(s, "<edge ") == 6);
  CHECK(count(s, "</graphml>") == 1);
  CHECK(count(s, "<graph ") == 1);
  CHECK(count(s, "</graph>") == 1);
  for (const char* attr : {"\"id\"", "\"op\"", "\"stage\"", "\"score\"", "\"kind\""})
    CHECK(s.find(std::string("attr.name=") + attr) != std::string::npos);
  CHECK(s.find("attr.name=\"id\" attr.type=\"string\"") != std::string::npos);
  CHECK(s.find(">targeted<") != std::string::npos);
  CHECK(count(s, ">inspiration<") == 3);
  CHECK(count(s, ">parent<") == 3);
  CHECK(s.find(">static<") != std::string::npos);
}

TEST_CASE("lineage: DOT output labels nodes and styles edges") {
  const Lineage l = sample_lineage();
  std::ostringstream out;
  l.write_dot(out);
  const std::string s = out.str();
  CHECK(s.rfind("digraph", 0) == 0);
  CHECK(s.find("#2 targeted 1.234") != std::string::npos);
  CHECK(s.find("#1 seed 1.000") != std::string::npos);
  CHECK(count(s, "->") == 6);
  CHECK(count(s, "dashed") == 3);
  CHECK(s.find("n1->n2") != std::string::npos);
}

TEST_CASE("lineage: an empty graph writes valid documents and moves") {
  Lineage a;
  std::ostringstream g, d;
  a.write_graphml(g);
  a.write_dot(d);
  CHECK(count(g.str(), "<node ") == 0);
  CHECK(count(g.str(), "</graphml>") == 1);
  CHECK(d.str().find("digraph") != std::string::npos);
  Lineage b = sample_lineage();
  a = std::move(b);
  CHECK(a.size() == 5);
  Lineage c(std::move(a));
  CHECK(c.ancestry(4) == std::vector<std::uint64_t>{1, 2, 4});
}

} // namespace lineage_test
