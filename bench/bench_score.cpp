// Benchmark: score programs on the 88 lecture shapes from the time table.
// Target (issue 2): over 1 million shape evaluations per second.
// Usage: bench_score [program=data/experts/lecture.py] [seconds=1]
#include "bench/bench_target.hpp"
#include "eval/problem.hpp"
#include "ir/text.hpp"

#include <chrono>
#include <fmt/format.h>
#include <string>

static int bench_main(int argc, char** argv) {
  tv::ProblemSpec spec;
  spec.split = "none"; // score on all 88 shapes
  auto p = tv::load_problem(spec);
  const tv::Program prog = argc > 1 ? tv::load_program_file(argv[1]) : p->expert;
  const double seconds = argc > 2 ? tv::bench::number(argv[2]) : 1.0;
  const tv::Program table_prog = [&] {
    // A larger program too: the per-M table shape (8 rules) is typical of evolved programs.
    tv::Program q = prog;
    for (int m : {16, 32, 64, 128, 256, 512, 1024}) {
      tv::Rule r;
      r.condition.terms.push_back({tv::Feature::M, tv::CmpOp::le, m});
      r.config = prog.default_config;
      q.rules.push_back(r);
    }
    return q;
  }();
  std::vector<tv::bench::Target> targets;
  for (const auto* q : {&prog, &table_prog}) {
    long long evals = 0;
    double checksum = 0;
    const auto t0 = std::chrono::steady_clock::now();
    double elapsed = 0;
    while (elapsed < seconds) {
      for (int i = 0; i < 100; ++i) {
        checksum += p->train->score(*q).fraction_of_oracle;
        evals += (long long)p->train->rows().size();
      }
      elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    }
    fmt::print("bench_score: {}-rule program on {} shapes: {:.2f} M shape evaluations/s "
               "(target > 1 M/s; checksum {:.3f})\n",
               q->rules.size(), p->train->rows().size(), evals / elapsed / 1e6,
               checksum / (evals / double(p->train->rows().size())));
    targets.push_back({fmt::format("shape evaluations of the {}-rule program", q->rules.size()),
                       evals / elapsed / 1e6, 1, false, "M/s"});
  }
  return tv::bench::report("bench_score", targets);
}

int main(int argc, char** argv) {
  return tv::bench::run(
      argc, argv, "Usage: bench_score [program=data/experts/lecture.py] [seconds=1]", bench_main);
}
