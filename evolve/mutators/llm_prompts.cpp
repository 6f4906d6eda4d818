// Placeholder values: everything computed here comes from the request, the GPU profile and the
// launch rules of models/launch.hpp (numbers in the prompt are measured from the same functions
// the static check uses, not restated).
#include "evolve/mutators/llm_prompts.hpp"

#include "eval/replay_backend.hpp"
#include "evolve/mutators/exchange_log.hpp"
#include "ir/text.hpp"
#include "models/launch.hpp"
#include "models/resource_dir.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <set>

namespace tv {

namespace {

std::string list_ints(const std::vector<int>& v) {
  return fmt::format("{}", fmt::join(v, ", "));
}

std::string dtype_list(const std::vector<DType>& d) {
  std::vector<std::string> names;
  for (DType t : d)
    names.emplace_back(dtype_name(t));
  return names.empty() ? "bf16" : fmt::format("{}", fmt::join(names, ", "));
}

/// The widest dtype of the workload (the one that needs most shared memory).
DType widest(const std::vector<DType>& d) {
  DType w = d.empty() ? DType::bf16 : d.front();
  for (DType t : d)
    if (dtype_bytes(t) > dtype_bytes(w)) w = t;
  return w;
}

std::string unit_name(const Gpu& g) {
  return g.vendor == "amd" ? "CUs" : "SMs";
}

std::string gpu_limits(const PromptTarget& t) {
  const Gpu& g = t.gpu;
  const bool amd = g.vendor == "amd";
  const std::string unit = amd ? "CU" : "SM";
  const DType d = widest(t.dtypes);
  std::string out;
  out += fmt::format("- {} {}, {} size {}, at most {} threads per block.\n", g.units, unit_name(g),
                     amd ? "wavefront" : "warp", g.warp_size, g.max_threads_per_block);
  // The register rule, measured from registers_per_thread on a reference tile.
  Config ref;
  ref.BM = 256;
  ref.BN = 128;
  ref.warps = 4;
  const int threads = ref.threads(g.warp_size);
  const int overhead = registers_per_thread(ref, g) - (ref.BM * ref.BN + threads - 1) / threads;
  const int need = registers_per_thread(ref, g);
  out += fmt::format(
      "- Registers: {} 32-bit registers per {}, at most {} per thread. A config needs "
      "ceil(BM * BN / (warps * {})) + {} registers per thread (fp32 accumulators plus a fixed "
      "overhead), and registers per thread x threads must fit in the {}: e.g. BM=256, BN=128, "
      "warps=4 needs {} per thread, so it {}.\n",
      g.registers_per_unit, unit, g.max_registers_per_thread, g.warp_size, overhead, unit, need,
      need > g.max_registers_per_thread ? "cannot launch" : "fits");
  // The shared-memory rule: how many operand buffers `stages` keeps, from the same function.
  Config s3 = ref;
  s3.stages = 3;
  const long long per_buffer = (long long)(s3.BM + s3.BN) * s3.BK * dtype_bytes(d);
  const long long buffers = shared_memory_bytes(s3, g, d) / per_buffer;
  const std::string formula =
      buffers == 3 ? "stages" : (buffers == 2 ? "max(1, stages - 1)" : fmt::format("{}", buffers));
  out += fmt::format("- {}: {} * (BM + BN) * BK * {} bytes ({}) per block, at most {} bytes "
                     "per block and {} per {}.\n",
                     amd ? "LDS" : "Shared memory", formula, dtype_bytes(d), dtype_name(d),
                     g.shared_per_block, g.shared_per_unit, unit);
  out += "- A config that breaks any limit is rejected before it is timed, and so is the whole "
         "program.";
  return out;
}

std::string legal_values(const PromptTarget& t) {
  const Gpu& g = t.gpu;
  const DType d = widest(t.dtypes);
  std::string out;
  if (!t.closed_space.empty()) {
    out += fmt::format("This backend replays recorded measurements: only these {} configs can "
                       "be timed, and a program returning any other config is rejected:\n",
                       t.closed_space.size());
    for (const Config& c : t.closed_space)
      out += "- " + print_config(c) + "\n";
    return out;
  }
  const ConfigSpace& s = g.space;
  out += fmt::format("- BM: {}\n- BN: {}\n- BK: {}\n- warps: {}\n- stages: {}\n- group: {}\n",
                     list_ints(s.BM), list_ints(s.BN), list_ints(s.BK), list_ints(s.warps),
                     list_ints(s.stages), list_ints(s.group));
  if (!s.waves_per_eu.empty()) out += "- waves_per_eu: " + list_ints(s.waves_per_eu) + "\n";
  if (!s.matrix_instr_nonkdim.empty())
    out += "- matrix_instr_nonkdim: " + list_ints(s.matrix_instr_nonkdim) +
           " (must divide BM and BN)\n";
  if (!s.kpack.empty()) out += "- kpack: " + list_ints(s.kpack) + "\n";
  if (s.waves_per_eu.empty() && s.matrix_instr_nonkdim.empty() && s.kpack.empty())
    out += "- waves_per_eu, matrix_instr_nonkdim and kpack do not exist on this GPU: leave "
           "them out.\n";
  out += fmt::format("Tiles BM x BN that can launch ({}, with some BK and stages), by warps:\n",
                     dtype_name(d));
  for (int w : s.warps) {
    std::vector<std::string> tiles;
    for (int bm : s.BM)
      for (int bn : s.BN) {
        bool ok = false;
        for (int bk : s.BK)
          for (int st : s.stages) {
            if (ok) break;
            Config c;
            c.BM = bm;
            c.BN = bn;
            c.BK = bk;
            c.warps = w;
            c.stages = st;
            c.group = s.group.empty() ? 1 : s.group.front();
            if (!s.waves_per_eu.empty()) c.waves_per_eu = s.waves_per_eu.front();
            if (!s.matrix_instr_nonkdim.empty())
              for (int k : s.matrix_instr_nonkdim)
                if (bm % k == 0 && bn % k == 0) c.matrix_instr_nonkdim = k;
            if (!s.kpack.empty()) c.kpack = s.kpack.front();
            ok = !launch_problem(c, g, d);
          }
        if (ok) tiles.push_back(fmt::format("{}x{}", bm, bn));
      }
    out += fmt::format("- warps={}: {}\n", w,
                       tiles.empty() ? "none" : fmt::format("{}", fmt::join(tiles, ", ")));
  }
  return out;
}

std::string vendor_dispatch(const PromptTarget& t) {
  const std::string lib = t.gpu.vendor == "amd" ? "hipBLASLt" : "cuBLAS";
  if (t.vendor_timed)
    return fmt::format("`return \"vendor\"` hands the shapes of that rule to the vendor library "
                       "({}, what torch.matmul calls) instead of the Triton kernel. This backend "
                       "times the vendor library, so use it where the library beats every tile "
                       "config.",
                       lib);
  return fmt::format("`return \"vendor\"` (hand the shapes to the vendor library, {}) exists "
                     "in the language, but this backend cannot time the vendor library: a "
                     "program that returns it is rejected here, so do not use it.",
                     lib);
}

std::string set_text(std::set<std::int64_t> v) {
  return fmt::format("{{{}}}", fmt::join(v, ", "));
}

std::string training_shapes(const MutationRequest& r) {
  if (r.feedback.empty()) return "(not given)";
  std::set<std::int64_t> ms, ns, ks;
  for (const auto& f : r.feedback) {
    ms.insert(f.shape.M);
    ns.insert(f.shape.N);
    ks.insert(f.shape.K);
  }
  return fmt::format("{} shapes; M in {}; N in {}; K in {}", r.feedback.size(), set_text(ms),
                     set_text(ns), set_text(ks));
}

struct Group {
  const char* name;
  const char* range;
  bool (*in)(std::int64_t);
};

const Group kGroups[] = {
    {"decode", "M <= 16", [](std::int64_t m) { return m <= 16; }},
    {"mid", "16 < M < 1024", [](std::int64_t m) { return m > 16 && m < 1024; }},
    {"prefill", "M >= 1024", [](std::int64_t m) { return m >= 1024; }},
};

/// Weighted geometric mean of ratios num/den over `fs`.
double geomean(const std::vector<const ShapeFeedback*>& fs, double ShapeFeedback::*num,
               double ShapeFeedback::*den) {
  double s = 0, w = 0;
  for (const auto* f : fs) {
    const double a = f->*num, b = f->*den;
    if (!(a > 0) || !(b > 0) || !std::isfinite(a) || !std::isfinite(b)) continue;
    s += f->shape.weight * std::log(a / b);
    w += f->shape.weight;
  }
  return w > 0 ? std::exp(s / w) : 0.0;
}

std::string group_scores(const MutationRequest& r) {
  std::string out;
  for (const Group& g : kGroups) {
    std::vector<const ShapeFeedback*> fs;
    for (const auto& f : r.feedback)
      if (g.in(f.shape.M)) fs.push_back(&f);
    if (fs.empty()) continue;
    const double parent = geomean(fs, &ShapeFeedback::expert_seconds, &ShapeFeedback::seconds);
    const double best = geomean(fs, &ShapeFeedback::expert_seconds, &ShapeFeedback::best_seconds);
    const double reach = geomean(fs, &ShapeFeedback::best_seconds, &ShapeFeedback::seconds);
    if (parent > 0)
      out += fmt::format("- {} ({}, {} shapes): the parent is {:.3f}x the expert's speed; the "
                         "best config measured per shape would give {:.3f}x.\n",
                         g.name, g.range, fs.size(), parent, best);
    else
      out += fmt::format("- {} ({}, {} shapes): the parent reaches {:.1f}% of the best speed "
                         "measured per shape.\n",
                         g.name, g.range, fs.size(), 100 * reach);
  }
  return out.empty() ? "(no training shapes given)\n" : out;
}

std::string micros(double s) {
  return fmt::format("{:.1f} us", s * 1e6);
}

std::string worst_shapes(const MutationRequest& r) {
  std::vector<const ShapeFeedback*> fs;
  for (const auto& f : r.feedback)
    if (f.best_seconds > 0 && std::isfinite(f.seconds) && f.seconds > 1.005 * f.best_seconds)
      fs.push_back(&f);
  std::stable_sort(fs.begin(), fs.end(), [](const ShapeFeedback* a, const ShapeFeedback* b) {
    return a->seconds / a->best_seconds > b->seconds / b->best_seconds;
  });
  if (fs.size() > 6) fs.resize(6);
  if (fs.empty())
    return "On every training shape the parent is as fast as the best config measured so far.\n";
  std::string out;
  for (const auto* f : fs) {
    out += fmt::format("- {} (M={}, N={}, K={}, {}): the parent's {} takes {}; ", f->shape.label(),
                       f->shape.M, f->shape.N, f->shape.K, dtype_name(f->shape.dtype),
                       print_config(f->config), micros(f->seconds));
    if (f->best_config)
      out += fmt::format("{} ran in {} ({:.2f}x faster).\n", print_config(*f->best_config),
                         micros(f->best_seconds), f->seconds / f->best_seconds);
    else
      out += fmt::format("the best time measured is {} ({:.2f}x faster).\n",
                         micros(f->best_seconds), f->seconds / f->best_seconds);
  }
  return out;
}

std::string fenced(const std::string& program) {
  std::string p = program;
  if (!p.empty() && p.back() != '\n') p += '\n';
  return "```python\n" + p + "```\n";
}

std::string inspirations(const MutationRequest& r) {
  if (r.inspiration_texts.empty()) return "(none)\n";
  std::string out;
  for (std::size_t i = 0; i < r.inspiration_texts.size(); ++i) {
    const std::string score = i < r.inspiration_scores.size()
                                  ? fmt::format(" (train speedup {:.3f}x)", r.inspiration_scores[i])
                                  : "";
    out += fmt::format("Inspiration {}{}:\n{}", i + 1, score, fenced(r.inspiration_texts[i]));
  }
  return out;
}

std::string best_program(const MutationRequest& r) {
  if (r.best_text.empty() || r.best_text == r.parent_text)
    return "The parent is the best program found so far.\n";
  return fmt::format("The best program found so far (train speedup {:.3f}x):\n{}", r.best_score,
                     fenced(r.best_text));
}

std::string previous_attempts(const MutationRequest& r) {
  if (r.previous_attempts.empty()) return "(none yet: this is the first edit of this parent)\n";
  std::string out;
  for (const auto& a : r.previous_attempts)
    out += fmt::format("- {}: {}\n", a.stage, a.outcome);
  return out;
}

std::string candidate_note(const MutationRequest& r) {
  if (r.candidates <= 1) return "";
  return fmt::format(" This is candidate {} of {} proposed for this parent at once: propose an "
                     "edit that differs from the most obvious one.",
                     r.candidate + 1, r.candidates);
}

const char* kSystem = "system.txt";
const char* kDiff = "diff_request.txt";
const char* kFull = "full_rewrite.txt";

} // namespace

PromptTarget prompt_target_for(const Problem& problem) {
  PromptTarget t;
  t.gpu = problem.gpu;
  if (dynamic_cast<const ReplayBackend*>(problem.backend.get()))
    t.closed_space = problem.table->configs();
  t.dtypes = problem.dtypes();
  t.backend = problem.backend->name();
  t.vendor_timed = !problem.train_rows.empty() &&
                   problem.backend->vendor_time(problem.shape(problem.train_rows.front()));
  return t;
}

const std::vector<std::string>& LlmPrompts::placeholders() {
  static const std::vector<std::string> names{"gpu",
                                              "units",
                                              "unit_name",
                                              "gpu_limits",
                                              "legal_values",
                                              "dtypes",
                                              "vendor_dispatch",
                                              "backend",
                                              "training_shapes",
                                              "parent",
                                              "parent_score",
                                              "group_scores",
                                              "worst_shapes",
                                              "best_program",
                                              "best_score",
                                              "inspirations",
                                              "previous_attempts",
                                              "candidate",
                                              "candidates",
                                              "candidate_note"};
  return names;
}

std::string LlmPrompts::default_dir() {
  if (const char* env = std::getenv("TILEVOLVE_PROMPTS"); env && *env) return env;
  return resource_dir() + "/prompts";
}

LlmPrompts LlmPrompts::load(const std::string& dir) {
  LlmPrompts p;
  p.dir_ = dir.empty() ? default_dir() : dir;
  const auto& known = placeholders();
  p.system_ = PromptTemplate::load(p.dir_ + "/" + kSystem, known, {"gpu_limits", "legal_values"});
  p.diff_ = PromptTemplate::load(p.dir_ + "/" + kDiff, known, {"parent"});
  p.full_ = PromptTemplate::load(p.dir_ + "/" + kFull, known, {"parent"});
  p.digest_ = body_digest(p.system_.text() + '\0' + p.diff_.text() + '\0' + p.full_.text());
  return p;
}

std::map<std::string, std::string> prompt_values(const MutationRequest& r, const PromptTarget& t) {
  std::string parent = r.parent_text;
  while (!parent.empty() && parent.back() == '\n')
    parent.pop_back();
  return {{"gpu", fmt::format("{} ({})", t.gpu.full_name, t.gpu.name)},
          {"units", std::to_string(t.gpu.units)},
          {"unit_name", unit_name(t.gpu)},
          {"gpu_limits", gpu_limits(t)},
          {"legal_values", legal_values(t)},
          {"dtypes", dtype_list(t.dtypes)},
          {"vendor_dispatch", vendor_dispatch(t)},
          {"backend", t.backend},
          {"training_shapes", training_shapes(r)},
          {"parent", parent},
          {"parent_score", fmt::format("{:.3f}x", r.parent_score)},
          {"group_scores", group_scores(r)},
          {"worst_shapes", worst_shapes(r)},
          {"best_program", best_program(r)},
          {"best_score", fmt::format("{:.3f}x", r.best_score)},
          {"inspirations", inspirations(r)},
          {"previous_attempts", previous_attempts(r)},
          {"candidate", std::to_string(r.candidate + 1)},
          {"candidates", std::to_string(r.candidates)},
          {"candidate_note", candidate_note(r)}};
}

std::vector<ChatMessage> LlmPrompts::messages(const MutationRequest& request,
                                              const PromptTarget& target, PromptKind kind) const {
  const auto values = prompt_values(request, target);
  return {{"system", system_.fill(values)},
          {"user", (kind == PromptKind::full ? full_ : diff_).fill(values)}};
}

} // namespace tv
