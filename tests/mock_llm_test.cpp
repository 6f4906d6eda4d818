#include "eval/replay_backend.hpp"
#include "evolve/mock_llm.hpp"
#include "ir/diff.hpp"
#include "ir/error.hpp"
#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "models/analytic_model.hpp"
#include "models/data_dir.hpp"
#include "models/launch.hpp"
#include "tests/support/random_program.hpp"

#include "support/fixtures.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace mock_llm_test {

using namespace tv;

namespace {

using tv::test::gpu;

const Program& lecture(const Gpu& g) {
  static const Program nvidia = load_program_file(data_path("experts/lecture.py"));
  static const Program amd = load_program_file(data_path("experts/lecture_amd.py"));
  return g.vendor == "amd" ? amd : nvidia;
}

const Program& lecture() {
  return lecture(gpu("h100"));
}

using tv::test::shape;

/// A config with every field drawn from `g`'s space (AMD knobs set half the time when legal).
Config legal_config(Rng& rng, const Gpu& g) {
  const ConfigSpace& s = g.space;
  Config c;
  c.BM = rng.pick(s.BM);
  c.BN = rng.pick(s.BN);
  c.BK = rng.pick(s.BK);
  c.warps = rng.pick(s.warps);
  c.stages = rng.pick(s.stages);
  c.group = rng.pick(s.group);
  if (!s.waves_per_eu.empty() && rng.chance(0.5)) c.waves_per_eu = rng.pick(s.waves_per_eu);
  if (!s.matrix_instr_nonkdim.empty() && rng.chance(0.5))
    c.matrix_instr_nonkdim = rng.pick(s.matrix_instr_nonkdim);
  if (!s.kpack.empty() && rng.chance(0.5)) c.kpack = rng.pick(s.kpack);
  return c;
}

/// A random program over `g`'s space: up to 5 rules of up to 2 comparisons (mostly on M).
Program legal_program(Rng& rng, const Gpu& g) {
  static const std::vector<std::int64_t> values{1,   8,   16,   32,   48,   64,   128,  256,
                                                384, 512, 1024, 2048, 4096, 8192, 16384};
  Program p;
  const int n = int(rng.uniform_int(0, 5));
  for (int i = 0; i < n; ++i) {
    Rule r;
    const int terms = int(rng.uniform_int(0, 2));
    for (int j = 0; j < terms; ++j) {
      Comparison t;
      t.feature = rng.chance(0.7) ? Feature::M : Feature(rng.uniform_int(1, 2));
      t.op = CmpOp(rng.uniform_int(0, 4));
      t.value = rng.chance(0.8) ? rng.pick(values) : rng.uniform_int(1, 20000);
      r.condition.terms.push_back(t);
    }
    r.config = legal_config(rng, g);
    p.rules.push_back(r);
  }
  p.default_config = legal_config(rng, g);
  return p;
}

/// A request for `parent` with two inspirations drawn from `g`'s space.
MutationRequest request_for(const Program& parent, const Gpu& g, std::uint64_t seed) {
  MutationRequest r;
  r.parent_text = print_program(parent);
  r.seed = seed;
  Rng rng(seed ^ 0x5eedULL);
  for (int i = 0; i < 2; ++i)
    r.inspiration_texts.push_back(print_program(legal_program(rng, g)));
  return r;
}

/// Applies a reply to the parent text; nullopt unless every block applied and the result parses.
std::optional<Program> apply_reply(const std::string& parent_text, const std::string& reply) {
  const auto blocks = parse_diff(reply);
  if (blocks.empty()) return std::nullopt;
  const DiffResult d = apply_diff(parent_text, blocks);
  if (!d.all_applied()) return std::nullopt;
  ParseResult p = parse_program(d.text);
  return p.program;
}

bool in_space(const Config& c, const Gpu& g) {
  const ConfigSpace& s = g.space;
  auto in = [](const std::vector<int>& v, int x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  auto knob = [&](const std::optional<int>& k, const std::vector<int>& v) {
    return !k || in(v, *k);
  };
  return in(s.BM, c.BM) && in(s.BN, c.BN) && in(s.BK, c.BK) && in(s.warps, c.warps) &&
         in(s.stages, c.stages) && in(s.group, c.group) && knob(c.waves_per_eu, s.waves_per_eu) &&
         knob(c.matrix_instr_nonkdim, s.matrix_instr_nonkdim) && knob(c.kpack, s.kpack);
}

int field_diffs(const Config& a, const Config& b) {
  return (a.BM != b.BM) + (a.BN != b.BN) + (a.BK != b.BK) + (a.warps != b.warps) +
         (a.stages != b.stages) + (a.group != b.group) + (a.waves_per_eu != b.waves_per_eu) +
         (a.matrix_instr_nonkdim != b.matrix_instr_nonkdim) + (a.kpack != b.kpack);
}

/// Config fields plus comparison constants that differ; -1 when the structure differs.
int structural_diffs(const Program& a, const Program& b) {
  if (a.rules.size() != b.rules.size()) return -1;
  int n = field_diffs(a.default_config, b.default_config);
  for (std::size_t i = 0; i < a.rules.size(); ++i) {
    const auto& ta = a.rules[i].condition.terms;
    const auto& tb = b.rules[i].condition.terms;
    if (ta.size() != tb.size()) return -1;
    for (std::size_t j = 0; j < ta.size(); ++j) {
      if (ta[j].feature != tb[j].feature || ta[j].op != tb[j].op) return -1;
      n += ta[j].value != tb[j].value;
    }
    n += field_diffs(a.rules[i].config, b.rules[i].config);
  }
  return n;
}

/// The lecture-like shapes of the hill-climb test.
std::vector<Shape> climb_shapes() {
  std::vector<Shape> out;
  for (std::int64_t m : {1, 32, 128, 1024, 8192})
    for (auto [n, k] : {std::pair{4096, 4096}, std::pair{1280, 8192}})
      out.push_back(shape(m, n, k));
  return out;
}

/// Sum of log model times (lower is better; +inf when a chosen config cannot launch).
double log_time(const Program& p, const std::vector<Shape>& shapes, const Gpu& g) {
  double sum = 0;
  for (const auto& s : shapes)
    sum += std::log(model_time(s, p.choose(s), g));
  return sum;
}

} // namespace

TEST_CASE("mock_llm: names and operators") {
  MockLlm full(gpu("h100"));
  MockLlm small(gpu("h100"), MockLlmOptions{true});
  CHECK(full.name() == "mock-llm");
  CHECK(small.name() == "mock-llm (one-field)");
  CHECK(full.operators() == std::vector<std::string>{"tweak", "targeted", "threshold", "split",
                                                     "delete", "crossover", "refit", "waves"});
  CHECK(small.operators() == std::vector<std::string>{"tweak", "threshold"});
}

TEST_CASE("mock_llm: the same request gives the same reply") {
  const Gpu& g = gpu("h100");
  Rng rng(7);
  std::set<std::string> distinct;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    const Program parent = seed % 3 ? legal_program(rng, g) : lecture();
    MutationRequest r = request_for(parent, g, seed);
    r.feedback.push_back(ShapeFeedback{shape(64, 4096, 4096), parent.choose(shape(64, 4096, 4096)),
                                       3e-5, 1.5e-5, std::nullopt});
    MockLlm a(g), b(g);
    const MutationReply ra = a.propose(r);
    const MutationReply rb = b.propose(r);
    const MutationReply ra2 = a.propose(r);
    CHECK(ra.ok);
    CHECK(ra.text == rb.text);
    CHECK(ra.op == rb.op);
    CHECK(ra.text == ra2.text);
    distinct.insert(ra.text);
  }
  CHECK(distinct.size() > 250); // different seeds give different replies
}

TEST_CASE("mock_llm: a request that carries its parent as a value gets the reply its text gets") {
  const Gpu& g = gpu("h100");
  Rng rng(21);
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    // The parent as the evolution holds it: parsed from its printed text.
    const Program drawn = seed % 3 ? legal_program(rng, g) : lecture();
    const Program parent = *parse_program(print_program(drawn)).program;
    MutationRequest r = request_for(parent, g, seed);
    r.feedback.push_back(ShapeFeedback{shape(64, 4096, 4096), parent.choose(shape(64, 4096, 4096)),
                                       3e-5, 1.5e-5, std::nullopt});
    const MockLlm llm(g);
    const MockProposal from_text = llm.propose_detailed(r);
    r.parent_program = &parent;
    const MockProposal from_value = llm.propose_detailed(r);
    CHECK(from_value.reply.text == from_text.reply.text);
    CHECK(from_value.reply.op == from_text.reply.op);
    CHECK(from_value.child == from_text.child);
  }
}

TEST_CASE("mock_llm: every operator appears and every reply applies cleanly") {
  for (const std::string name : {"h100", "mi300x"}) {
    CAPTURE(name);
    const Gpu& g = gpu(name);
    MockLlm llm(g);
    Rng rng(11);
    std::map<std::string, int> ops;
    int changed = 0, total = 0;
    for (std::uint64_t seed = 0; seed < 2000; ++seed) {
      const Program parent = seed % 4 == 0 ? lecture(g) : legal_program(rng, g);
      const MutationRequest r = request_for(parent, g, seed);
      const MockProposal p = llm.propose_detailed(r);
      REQUIRE(p.reply.ok);
      REQUIRE(p.child);
      ops[p.reply.op]++;
      const auto child = apply_reply(r.parent_text, p.reply.text);
      INFO(r.parent_text, "\n---\n", p.reply.text);
      REQUIRE(child);
      CHECK(*child == *p.child); // the diff produces exactly the intended program
      ++total;
      changed += *child != parent;
    }
    // Without feedback the operators that read it (refit, waves) cannot apply; they
    // have a test of their own below.
    for (const std::string op : {"tweak", "targeted", "threshold", "split", "delete", "crossover"})
      CHECK_MESSAGE(ops[op] > 20, op);
    CHECK(ops.size() == 6);
    CHECK(changed >= total * 95 / 100);
  }
}

TEST_CASE("mock_llm: blocks are minimal and unique") {
  const Gpu& g = gpu("h100");
  MockLlm llm(g);
  // Two rules share a config: editing either one's return line needs the `if` line as context.
  Program p;
  p.rules.push_back(Rule{Condition{{{Feature::M, CmpOp::le, 16}}}, Config{}});
  p.rules.push_back(Rule{Condition{{{Feature::M, CmpOp::le, 256}}}, Config{}});
  p.default_config = Config{};
  const std::string text = print_program(p);
  int checked = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    MutationRequest r;
    r.parent_text = text;
    r.seed = seed;
    const MutationReply reply = llm.propose(r);
    const auto blocks = parse_diff(reply.text);
    REQUIRE(blocks.size() == 1);
    const DiffResult d = apply_diff(text, blocks);
    REQUIRE(d.all_applied());
    if (reply.op == "tweak" || reply.op == "targeted") {
      // One config changes: SEARCH is at most the `if` line plus the return line.
      const auto lines = std::count(blocks[0].search.begin(), blocks[0].search.end(), '\n');
      CHECK(lines <= 2);
      CHECK(lines >= 1);
      CHECK(blocks[0].search.find("def choose") == std::string::npos);
      ++checked;
    }
  }
  CHECK(checked > 50);
}

TEST_CASE("mock_llm: one-field mode changes exactly one field or one constant") {
  for (const std::string name : {"h100", "mi300x"}) {
    const Gpu& g = gpu(name);
    MockLlm llm(g, MockLlmOptions{true});
    Rng rng(3);
    std::map<std::string, int> ops;
    for (std::uint64_t seed = 0; seed < 1500; ++seed) {
      const Program parent = seed % 5 == 0 ? lecture(g) : legal_program(rng, g);
      const MutationRequest r = request_for(parent, g, seed);
      const MutationReply reply = llm.propose(r);
      REQUIRE(reply.ok);
      ops[reply.op]++;
      const auto child = apply_reply(r.parent_text, reply.text);
      REQUIRE(child);
      INFO(r.parent_text, "\n---\n", reply.text);
      CHECK(structural_diffs(parent, *child) == 1);
    }
    CHECK(ops.size() == 2);
    CHECK(ops["tweak"] > 0);
    CHECK(ops["threshold"] > 0);
  }
}

TEST_CASE("mock_llm: targeted edits are launchable and every config comes from the space") {
  for (const std::string name : {"h100", "mi300x"}) {
    CAPTURE(name);
    const Gpu& g = gpu(name);
    MockLlm llm(g);
    Rng rng(5);
    int targeted = 0;
    for (std::uint64_t seed = 0; seed < 2000; ++seed) {
      const Program parent = seed % 4 == 0 ? lecture(g) : legal_program(rng, g);
      MutationRequest r = request_for(parent, g, seed);
      if (seed % 2) // feedback on two shapes, one losing a lot
        for (std::int64_t m : {48, 3000})
          r.feedback.push_back(
              ShapeFeedback{shape(m, 4096, 4096), parent.choose(shape(m, 4096, 4096)),
                            m == 48 ? 4e-5 : 1e-4, m == 48 ? 1e-5 : 9e-5, std::nullopt});
      const MockProposal p = llm.propose_detailed(r);
      REQUIRE(p.child);
      const Program& child = *p.child;
      CHECK(in_space(child.default_config, g));
      for (const auto& rule : child.rules)
        CHECK(in_space(rule.config, g));
      if (p.reply.op == "targeted") {
        ++targeted;
        REQUIRE(child.rules.size() == parent.rules.size());
        for (std::size_t i = 0; i <= child.rules.size(); ++i) {
          const Config& a =
              i < parent.rules.size() ? parent.rules[i].config : parent.default_config;
          const Config& b = i < child.rules.size() ? child.rules[i].config : child.default_config;
          if (a != b) CHECK_MESSAGE(!launch_problem(b, g, DType::bf16), b.brief());
        }
      }
    }
    CHECK(targeted > 300);
  }
}

TEST_CASE("mock_llm: split inserts a narrower rule directly above an existing one") {
  const Gpu& g = gpu("h100");
  MockLlm llm(g);
  Rng rng(9);
  int splits = 0;
  for (std::uint64_t seed = 0; seed < 1500; ++seed) {
    const Program parent = seed % 3 == 0 ? lecture(g) : legal_program(rng, g);
    const MockProposal p = llm.propose_detailed(request_for(parent, g, seed));
    if (p.reply.op != "split") continue;
    ++splits;
    const Program& child = *p.child;
    REQUIRE(child.rules.size() == parent.rules.size() + 1);
    std::size_t at = 0;
    while (at < parent.rules.size() && parent.rules[at] == child.rules[at])
      ++at;
    // Everything after the inserted rule is the parent's.
    for (std::size_t i = at; i < parent.rules.size(); ++i)
      CHECK(child.rules[i + 1] == parent.rules[i]);
    // The new rule only accepts shapes the rule below it accepts.
    const Box inner = child.rules[at].condition.box();
    const Box outer = at < parent.rules.size() ? parent.rules[at].condition.box() : Box{};
    for (int d = 0; d < 3; ++d) {
      CHECK(inner.dim[d].lo >= outer.dim[d].lo);
      CHECK(inner.dim[d].hi <= outer.dim[d].hi);
    }
    CHECK(inner != outer);
  }
  CHECK(splits > 150);
}

TEST_CASE("mock_llm: feedback steers edits towards the losing shape") {
  const Gpu& g = gpu("h100");
  MockLlm llm(g);
  const Shape hot = shape(64, 4096, 4096);
  int with = 0, without = 0;
  for (std::uint64_t seed = 0; seed < 600; ++seed) {
    MutationRequest r;
    r.parent_text = print_program(lecture());
    r.seed = seed;
    const auto plain = llm.propose_detailed(r);
    r.feedback.push_back(ShapeFeedback{hot, lecture().choose(hot), 3.3e-5, 1.5e-5, std::nullopt});
    r.feedback.push_back(ShapeFeedback{shape(4, 4096, 4096), lecture().choose(shape(4, 4096, 4096)),
                                       1.3e-5, 1.29e-5, std::nullopt});
    const auto guided = llm.propose_detailed(r);
    without += plain.child->choose(hot) != lecture().choose(hot);
    with += guided.child->choose(hot) != lecture().choose(hot);
    if (guided.reply.text.find("64x4096x4096") != std::string::npos) CHECK(guided.child);
  }
  MESSAGE("hot shape's config changed in ", with, " of 600 with feedback, ", without, " without");
  CHECK(with > without + 60);
}

TEST_CASE("mock_llm: odd programs (illegal configs, strange constants) still get exact diffs") {
  for (const std::string name : {"h100", "mi300x"}) {
    CAPTURE(name);
    MockLlm llm(gpu(name));
    Rng rng(21);
    const std::int64_t big = std::numeric_limits<std::int64_t>::max();
    int changed = 0;
    for (std::uint64_t seed = 0; seed < 1500; ++seed) {
      Program parent = test::random_program(rng, 8, seed % 2 ? 64 : 100000);
      if (seed % 5 == 0 && !parent.rules.empty()) {
        auto& terms = parent.rules[0].condition.terms;
        terms.push_back(Comparison{Feature::M, CmpOp::le, seed % 3 ? big : -big});
        terms.push_back(Comparison{Feature::K, CmpOp::gt, 0});
      }
      MutationRequest r;
      r.parent_text = print_program(parent);
      r.seed = seed;
      r.inspiration_texts = {print_program(test::random_program(rng, 3))};
      if (seed % 3 == 0)
        r.feedback.push_back(
            ShapeFeedback{shape(big, 1, 7), Config{}, INFINITY, 1e-5, std::nullopt});
      if (seed % 3 == 1)
        r.feedback.push_back(ShapeFeedback{shape(5, 5, 5), Config{}, 2, 0, std::nullopt});
      const MockProposal p = llm.propose_detailed(r);
      REQUIRE(p.reply.ok);
      REQUIRE(p.child);
      const auto child = apply_reply(r.parent_text, p.reply.text);
      INFO(r.parent_text, "\n---\n", p.reply.text);
      REQUIRE(child);
      CHECK(*child == *p.child);
      changed += *child != parent;
    }
    CHECK(changed == 1500);
  }
}

TEST_CASE("mock_llm: a bad parent gives ok=false without crashing") {
  MockLlm llm(gpu("h100"));
  const std::vector<std::string> bad{"", "garbage", "def choose(M, N, K):\n    return Config(BM=",
                                     "def choose(M, N, K):\n    if M <= 16\n        return 1\n",
                                     std::string("\0\xff\xfe", 3)};
  for (const auto& text : bad) {
    MutationRequest r;
    r.parent_text = text;
    const MutationReply reply = llm.propose(r);
    CHECK_FALSE(reply.ok);
    CHECK(reply.error.find("does not parse") != std::string::npos);
  }
  // Unparsable inspirations are skipped, not fatal.
  MutationRequest r;
  r.parent_text = print_program(lecture());
  r.inspiration_texts = {"not a program", ""};
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    r.seed = seed;
    const MutationReply reply = llm.propose(r);
    CHECK(reply.ok);
    CHECK(reply.op != "crossover");
  }
}

TEST_CASE("mock_llm: a non-canonical parent text still gets an applicable diff") {
  const Gpu& g = gpu("h100");
  MockLlm llm(g);
  std::string raw = "# hand written\n"
                    "def choose(M, N, K):\n"
                    "    if M <= 16:   # decode\n"
                    "        return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)\n"
                    "\n"
                    "    return Config(BM=128, BN=128, BK=64,\n"
                    "                  warps=4, stages=3, group=8)\n";
  std::string crlf;
  for (char c : raw) {
    if (c == '\n') crlf += '\r';
    crlf += c;
  }
  for (const std::string& text : {raw, crlf}) {
    const Program parent = parse_program_or_throw(text, "raw");
    for (std::uint64_t seed = 0; seed < 200; ++seed) {
      MutationRequest r;
      r.parent_text = text;
      r.seed = seed;
      const MockProposal p = llm.propose_detailed(r);
      const auto child = apply_reply(text, p.reply.text);
      REQUIRE(child);
      CHECK(*child == *p.child);
      CHECK(*child != parent);
    }
  }
}

TEST_CASE("mock_llm: replies mix fences, bare blocks and prose") {
  MockLlm llm(gpu("h100"));
  int python = 0, bare = 0, prose = 0, retry = 0;
  for (std::uint64_t seed = 0; seed < 400; ++seed) {
    MutationRequest r;
    r.parent_text = print_program(lecture());
    r.seed = seed;
    r.previous_outcome = seed % 2 ? "block 1: not_found" : "";
    const std::string text = llm.propose(r).text;
    python += text.find("```python\n<<<<<<< SEARCH") != std::string::npos;
    bare +=
        text.find("\n<<<<<<< SEARCH") != std::string::npos && text.find("```") == std::string::npos;
    prose += std::isalpha(static_cast<unsigned char>(text[0])) &&
             text.find(".\n") < text.find("<<<<<<<");
    retry += text.find("not_found") != std::string::npos;
  }
  CHECK(python > 100);
  CHECK(bare > 100);
  CHECK(prose == 400);
  CHECK(retry > 100);
}

TEST_CASE("mock_llm: keep-if-better hill climbing improves the lecture heuristic") {
  const Gpu& g = gpu("h100");
  const auto shapes = climb_shapes();
  for (bool with_feedback : {false, true}) {
    CAPTURE(with_feedback);
    MockLlm llm(g);
    Program best = lecture();
    double best_fit = log_time(best, shapes, g);
    const double start = best_fit;
    std::vector<double> best_seen(shapes.size(), INFINITY);
    for (std::uint64_t step = 0; step < 200; ++step) {
      MutationRequest r;
      r.parent_text = print_program(best);
      r.seed = step * 7919 + 1;
      if (with_feedback)
        for (std::size_t i = 0; i < shapes.size(); ++i) {
          const Config& c = best.choose(shapes[i]);
          const double t = model_time(shapes[i], c, g);
          best_seen[i] = std::min(best_seen[i], t);
          r.feedback.push_back(ShapeFeedback{shapes[i], c, t, best_seen[i], std::nullopt});
        }
      const MutationReply reply = llm.propose(r);
      const auto child = apply_reply(r.parent_text, reply.text);
      REQUIRE(child);
      const double fit = log_time(*child, shapes, g);
      if (with_feedback)
        for (std::size_t i = 0; i < shapes.size(); ++i)
          best_seen[i] = std::min(best_seen[i], model_time(shapes[i], child->choose(shapes[i]), g));
      if (fit < best_fit) {
        best = *child;
        best_fit = fit;
      }
    }
    const double speedup = std::exp((start - best_fit) / double(shapes.size()));
    MESSAGE("hill climb geomean speedup ", speedup, " with ", best.rules.size(), " rules");
    CHECK(speedup >= 1.10);
  }
}

TEST_CASE("mock_llm: 2,000 proposals in a row, their time reported") {
  const Gpu& g = gpu("h100");
  MockLlm llm(g);
  Rng rng(1);
  std::vector<MutationRequest> requests;
  for (std::uint64_t seed = 0; seed < 2000; ++seed) {
    MutationRequest r = request_for(legal_program(rng, g), g, seed);
    r.feedback.push_back(ShapeFeedback{shape(100, 4096, 4096), Config{}, 2e-5, 1e-5, std::nullopt});
    requests.push_back(std::move(r));
  }
  std::size_t bytes = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& r : requests)
    bytes += llm.propose(r).text.size();
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
      double(requests.size());
  // Reported, not asserted (a wall-clock bound fails on a loaded machine); bench_evolve times
  // the whole loop.
  MESSAGE("mock llm: ", us, " us per proposal");
  CHECK(bytes > 0);
}

namespace {

/// The 29 configs of the committed H100 AutoHeuristic data (eval/replay_backend.hpp).
const std::vector<Config>& h100_replay_space() {
  static const std::vector<Config> space =
      ReplayBackend(data_path("replay/h100_mm.txt"), ReplayFilter{}, gpu("h100")).configs();
  return space;
}

bool listed(const Config& c, const std::vector<Config>& space) {
  return std::find(space.begin(), space.end(), c) != space.end();
}

/// A random program whose configs all come from `space`.
Program program_in(Rng& rng, const std::vector<Config>& space) {
  Program p = legal_program(rng, gpu("h100"));
  for (auto& r : p.rules)
    r.config = rng.pick(space);
  p.default_config = rng.pick(space);
  return p;
}

} // namespace

TEST_CASE("mock_llm: with a closed space every config it writes comes from the list") {
  const std::vector<Config>& space = h100_replay_space();
  REQUIRE(space.size() == 29);
  const Gpu& g = gpu("h100");
  for (const bool one_field : {false, true}) {
    CAPTURE(one_field);
    MockLlmOptions o;
    o.one_field_only = one_field;
    o.space = space;
    MockLlm llm(g, o);
    MockLlm open(g, MockLlmOptions{one_field});
    Rng rng(17);
    std::map<std::string, int> ops;
    int differs_from_open = 0, no_edit = 0;
    for (std::uint64_t seed = 0; seed < 1500; ++seed) {
      const Program parent = program_in(rng, space);
      MutationRequest r;
      r.parent_text = print_program(parent);
      r.seed = seed;
      r.inspiration_texts.push_back(print_program(program_in(rng, space)));
      if (seed % 3 == 0) // a donor from outside the list: crossover must not copy its config
        r.inspiration_texts.push_back(print_program(legal_program(rng, g)));
      if (seed % 2)
        for (std::int64_t m : {32, 1152, 20000})
          r.feedback.push_back(
              ShapeFeedback{shape(m, 2048, 4096), parent.choose(shape(m, 2048, 4096)),
                            m == 1152 ? 4e-5 : 1e-4, m == 1152 ? 1e-5 : 9e-5, std::nullopt});
      const MockProposal p = llm.propose_detailed(r);
      if (!p.child) { // one field at a time may find no neighbour in a sparse list
        CHECK(one_field);
        ++no_edit;
        continue;
      }
      ops[p.reply.op]++;
      const Program& child = *p.child;
      INFO(r.parent_text, "\n---\n", p.reply.text);
      CHECK(!(child == parent));
      CHECK(listed(child.default_config, space));
      for (const auto& rule : child.rules)
        CHECK(listed(rule.config, space));
      const auto applied = apply_reply(r.parent_text, p.reply.text);
      REQUIRE(applied);
      CHECK(*applied == child);
      if (one_field) CHECK(structural_diffs(parent, child) == 1);
      // Deterministic, and really different from the open-space mock.
      CHECK(llm.propose(r).text == p.reply.text);
      differs_from_open += open.propose(r).text != p.reply.text;
    }
    CHECK(differs_from_open > 300);
    CHECK(no_edit < 200); // about 7%
    if (!one_field) {
      CHECK(ops.size() >= 6);   // the feedback's shapes also let the waves operator apply
      CHECK(ops["refit"] == 0); // no measured configs in this feedback
      CHECK(ops["tweak"] > 100);
      CHECK(ops["targeted"] > 100);
      CHECK(ops["split"] > 100);
    }
  }
}

TEST_CASE("mock_llm: a config outside the closed space is brought into it") {
  const std::vector<Config>& space = h100_replay_space();
  MockLlmOptions o;
  o.space = space;
  MockLlm llm(gpu("h100"), o);
  // The lecture expert's default has group=1: not in the list (Inductor always used 8).
  Program parent;
  parent.default_config.BM = 128;
  parent.default_config.BN = 128;
  parent.default_config.BK = 64;
  parent.default_config.warps = 4;
  parent.default_config.stages = 3;
  parent.default_config.group = 1;
  REQUIRE(!listed(parent.default_config, space));
  int moved_in = 0;
  for (std::uint64_t seed = 0; seed < 200; ++seed) {
    MutationRequest r;
    r.parent_text = print_program(parent);
    r.seed = seed;
    const MockProposal p = llm.propose_detailed(r);
    REQUIRE(p.child);
    CHECK((p.reply.op == "tweak" || p.reply.op == "targeted" || p.reply.op == "split"));
    if (p.reply.op == "split") {
      REQUIRE(p.child->rules.size() == 1);
      CHECK(listed(p.child->rules[0].config, space));
    } else {
      CHECK(listed(p.child->default_config, space));
      moved_in += field_diffs(p.child->default_config, parent.default_config) <= 2;
    }
  }
  CHECK(moved_in > 50); // mostly a near config, not an arbitrary one
}

TEST_CASE("mock_llm: split features parse, print and name the mutator") {
  CHECK(parse_split_features("M") == std::vector<Feature>{Feature::M});
  CHECK(parse_split_features("KNM") == std::vector<Feature>{Feature::M, Feature::N, Feature::K});
  CHECK(split_features_text({Feature::K, Feature::M}) == "MK");
  for (const char* bad : {"", "MX", "MM", "m", "M,N"}) {
    INFO(bad);
    CHECK_THROWS_AS(parse_split_features(bad), InputError);
  }
  CHECK_THROWS_WITH_AS(parse_split_features("MNX"), doctest::Contains("'X' is not a feature"),
                       InputError);
  MockLlmOptions o;
  CHECK(MockLlm::name_for(o) == "mock-llm");
  for (const char* f : {"M", "N", "K", "MN", "MK", "NK", "MNK"}) {
    o.split_features = parse_split_features(f);
    const auto back = MockLlm::options_for(MockLlm::name_for(o));
    REQUIRE(back);
    CHECK(split_features_text(back->split_features) == f);
    CHECK(!back->one_field_only);
  }
  o.split_features = parse_split_features("MNK");
  CHECK(MockLlm::name_for(o) == "mock-llm (splits on M, N, K)");
  CHECK(MockLlm(gpu("h100"), o).name() == "mock-llm (splits on M, N, K)");
  o.one_field_only = true;
  CHECK(MockLlm::options_for(MockLlm::name_for(o))->one_field_only);
  CHECK(!MockLlm::options_for("gpt-4o").has_value());
  MockLlmOptions none;
  none.split_features.clear();
  CHECK_THROWS_AS(MockLlm(gpu("h100"), none), std::invalid_argument);
}

TEST_CASE("mock_llm: splits bound only the allowed features") {
  const Gpu& g = gpu("h100");
  for (const char* allowed : {"M", "N", "MK", "MNK"}) {
    CAPTURE(allowed);
    MockLlmOptions o;
    o.split_features = parse_split_features(allowed);
    MockLlm llm(g, o);
    Rng rng(11);
    std::map<Feature, int> added;
    int splits = 0;
    for (std::uint64_t seed = 0; seed < 1500; ++seed) {
      const Program parent = seed % 3 == 0 ? lecture(g) : legal_program(rng, g);
      MutationRequest r = request_for(parent, g, seed);
      if (seed % 2) // a losing shape: splits then isolate it
        r.feedback.push_back(ShapeFeedback{
            shape(96, 1280, 8192), parent.choose(shape(96, 1280, 8192)), 3e-5, 1e-5, std::nullopt});
      const MockProposal p = llm.propose_detailed(r);
      if (p.reply.op != "split") continue;
      ++splits;
      std::size_t at = 0;
      while (at < parent.rules.size() && parent.rules[at] == p.child->rules[at])
        ++at;
      // Terms of the new rule that the rule it was split from does not have.
      const auto& below =
          at < parent.rules.size() ? parent.rules[at].condition.terms : std::vector<Comparison>{};
      for (const Comparison& c : p.child->rules[at].condition.terms)
        if (std::find(below.begin(), below.end(), c) == below.end()) {
          ++added[c.feature];
          CHECK(std::string(allowed).find(feature_name(c.feature)) != std::string::npos);
        }
    }
    CHECK(splits > 100);
    for (const char ch : std::string(allowed)) // every allowed feature is used
      for (Feature f : {Feature::M, Feature::N, Feature::K})
        if (feature_name(f) == std::string_view(&ch, 1)) CHECK(added[f] > 0);
  }
}

TEST_CASE("mock_llm: a split can give its rule the fastest config measured for a shape in it") {
  const Gpu& g = gpu("h100");
  MockLlm llm(g);
  // A config the mock's own designs and one-field tweaks of the lecture configs never write.
  Config measured;
  measured.BM = 32;
  measured.BN = 256;
  measured.BK = 32;
  measured.warps = 8;
  measured.stages = 2;
  measured.group = 4;
  REQUIRE(!launch_problem(measured, g, DType::bf16));
  int with = 0, without = 0;
  for (std::uint64_t seed = 0; seed < 800; ++seed) {
    MutationRequest r = request_for(lecture(), g, seed);
    const Shape hot = shape(512, 4096, 4096);
    r.feedback.push_back(ShapeFeedback{hot, lecture().choose(hot), 4e-5, 1e-5, std::nullopt});
    const MockProposal plain = llm.propose_detailed(r);
    r.feedback.back().best_config = measured;
    const MockProposal guided = llm.propose_detailed(r);
    for (const auto* p : {&plain, &guided}) {
      if (p->reply.op != "split") continue;
      bool uses = false;
      for (const Rule& rule : p->child->rules)
        uses |= rule.config == measured;
      (p == &plain ? without : with) += uses;
    }
  }
  MESSAGE("splits using the measured config: ", with, " with it in the feedback, ", without,
          " without");
  CHECK(without == 0);
  CHECK(with > 20);
}

} // namespace mock_llm_test
