// Benchmark: the static check (stage 0 of the cascade) on programs with many rules.
// Target (issue 13): near linear in the rule count; 20k rules took 10 s when every rule's
// region was computed against all earlier rules.
// Input: a program of N rules generated from a fixed seed (or a program file): rules that bound
// M (a per-M table, the shape evolution and the per-M baseline produce), a third of them also
// bounding N or K, configs from the h100 space; `--write FILE` saves it.
// Also the parse of a 20-rule program's text (the cascade parses every proposed program):
// target < 100 us (optimised builds take ~10-20 us; it was a timed unit test until a loaded
// sanitizer build missed a bound of 2 ms).
// Usage: bench_static_check [rules=20000] [program.py | --write FILE]
#include "bench/bench_target.hpp"
#include "ir/rng.hpp"
#include "ir/text.hpp"
#include "models/gpu.hpp"
#include "models/static_check.hpp"

#include <chrono>
#include <fmt/format.h>
#include <fstream>
#include <string>

namespace {

tv::Program generated(int rules) {
  const tv::Gpu g = tv::find_gpu("h100");
  const std::vector<tv::Config> space = tv::all_configs(g);
  tv::Rng rng(13);
  tv::Program p;
  std::int64_t m = 0;
  for (int i = 0; i < rules; ++i) {
    m += 1 + std::int64_t(rng.uniform_int(0, 7));
    tv::Rule r;
    r.condition.terms.push_back({tv::Feature::M, tv::CmpOp::le, m});
    if (i % 3 == 1) r.condition.terms.push_back({tv::Feature::N, tv::CmpOp::ge, 4096});
    if (i % 3 == 2) r.condition.terms.push_back({tv::Feature::K, tv::CmpOp::le, 8192});
    r.config = space[rng.index(space.size())];
    p.rules.push_back(r);
  }
  p.default_config = space.front();
  return p;
}

double seconds_of(const tv::Program& p, const tv::Gpu& g, std::size_t& issues) {
  const auto t0 = std::chrono::steady_clock::now();
  issues = tv::static_check(p, g, {tv::DType::bf16}).size();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

static int bench_main(int argc, char** argv) {
  const int rules = argc > 1 ? int(tv::bench::integer(argv[1])) : 20000;
  const std::string arg = argc > 2 ? argv[2] : "";
  const tv::Gpu g = tv::find_gpu("h100");
  if (arg == "--write") {
    if (argc < 4) {
      fmt::print(stderr, "usage: bench_static_check RULES --write FILE\n");
      return 2;
    }
    std::ofstream(argv[3]) << tv::print_program(generated(rules));
    return 0;
  }
  const tv::Program p = arg.empty() ? generated(rules) : tv::load_program_file(arg);
  // The same program cut to a quarter and a half shows how the time grows.
  for (std::size_t n : {p.rules.size() / 4, p.rules.size() / 2, p.rules.size()}) {
    tv::Program q = p;
    q.rules.resize(n);
    std::size_t issues = 0;
    const double s = seconds_of(q, g, issues);
    fmt::print("bench_static_check: {:6} rules: {:.3f} s ({} unlaunchable branches)\n", n, s,
               issues);
  }
  // Parsing: a 20-rule program of the same kind, text printed once, parsed many times.
  const std::string text = tv::print_program(generated(20));
  const int reps = 20000;
  std::size_t ok = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i)
    ok += tv::parse_program(text).ok() ? 1 : 0;
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count() /
      reps;
  fmt::print("bench_static_check: parse of a 20-rule program ({} bytes): {:.2f} us ({} of {} "
             "parsed)\n",
             text.size(), us, ok, reps);
  if (ok != std::size_t(reps)) return 1;
  return tv::bench::report("bench_static_check",
                           {{"parse of a 20-rule program", us, 100.0, true, "us"}});
}

int main(int argc, char** argv) {
  return tv::bench::run(argc, argv,
                        "Usage: bench_static_check [rules=20000] [program.py | --write FILE]",
                        bench_main);
}
