#include "eval/baselines.hpp"

#include "eval/decision_tree.hpp"
#include "ir/plural.hpp"
#include "ir/simplify.hpp"
#include "models/progress.hpp"

#include <atomic>

#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <map>
#include <omp.h>
#include <vector>

namespace tv {

namespace {

/// Column minimising the weighted sum of log times over `rows` (indices into scorer rows).
/// Columns are costed in parallel (each sum in row order, so the result does not depend on
/// the thread count), then the first cheapest wins.
int best_column(const Scorer& s, const std::vector<std::size_t>& which) {
  const TimeTable& t = s.table();
  const long long n = (long long)t.configs().size();
  std::vector<double> cost(std::size_t(n), 0.0);
  const bool report = std::size_t(n) * which.size() >= (std::size_t(1) << 24);
  std::atomic<long long> done{0};
#pragma omp parallel for schedule(dynamic, 16)
  for (long long c = 0; c < n; ++c) {
    double sum = 0;
    for (std::size_t i : which)
      sum += s.weights()[i] * std::log(t.time(s.rows()[i], std::size_t(c)));
    cost[std::size_t(c)] = sum;
    const long long d = done.fetch_add(1) + 1;
    if (report && omp_get_thread_num() == 0)
      report_progress("baselines (configs costed)", std::size_t(d), std::size_t(n));
  }
  if (report) report_progress("baselines (configs costed)", std::size_t(n), std::size_t(n));
  int best = -1;
  double best_cost = std::numeric_limits<double>::infinity();
  for (long long c = 0; c < n; ++c)
    if (cost[std::size_t(c)] < best_cost) {
      best_cost = cost[std::size_t(c)];
      best = int(c);
    }
  return best;
}

std::vector<std::size_t> all_indices(const Scorer& s) {
  std::vector<std::size_t> v(s.rows().size());
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = i;
  return v;
}

} // namespace

Program best_single_config(const Scorer& train) {
  Program p;
  const int c = best_column(train, all_indices(train));
  if (c >= 0) p.default_config = train.table().configs()[std::size_t(c)];
  return p;
}

Program per_m_table(const Scorer& train) {
  std::map<std::int64_t, std::vector<std::size_t>> by_m;
  for (std::size_t i = 0; i < train.rows().size(); ++i)
    by_m[train.table().shapes()[train.rows()[i]].M].push_back(i);
  Program p;
  const bool report =
      train.rows().size() * train.table().configs().size() >= (std::size_t(1) << 24);
  std::size_t done = 0;
  for (auto it = by_m.begin(); it != by_m.end(); ++it) {
    if (report) report_progress("baselines (per-M table, M values)", done++, by_m.size());
    const int c = best_column(train, it->second);
    const Config cfg = c >= 0 ? train.table().configs()[std::size_t(c)] : Config{};
    if (std::next(it) == by_m.end()) {
      p.default_config = cfg;
    } else {
      Rule r;
      r.condition.terms.push_back({Feature::M, CmpOp::le, it->first});
      r.config = cfg;
      p.rules.push_back(r);
    }
  }
  if (report) report_progress("baselines (per-M table, M values)", by_m.size(), by_m.size());
  return simplify(p);
}

std::optional<std::vector<double>> vendor_times(const Scorer& s, const TimingBackend* backend) {
  if (!backend) return std::nullopt;
  std::vector<double> out;
  out.reserve(s.rows().size());
  for (std::size_t r : s.rows()) {
    const auto t = backend->vendor_time(s.table().shapes()[r]);
    if (!t) return std::nullopt;
    out.push_back(*t);
  }
  return out;
}

std::optional<MethodResult> vendor_method(const Scorer& train, const Scorer& test,
                                          const TimingBackend* backend) {
  const auto tr = vendor_times(train, backend);
  const auto te = vendor_times(test, backend);
  if (!tr || !te) return std::nullopt;
  MethodResult v;
  v.key = "vendor";
  v.label = fmt::format("vendor library ({})", backend->vendor_label());
  v.train = train.score_times(*tr);
  v.test = test.score_times(*te);
  v.kernel_runs = 0;
  v.cost_note = "a library, not a heuristic";
  return v;
}

std::vector<MethodResult> compute_baselines(const Scorer& train, const Scorer& test,
                                            const Program& expert, const TimingBackend* backend,
                                            int tree_leaves) {
  const long long n_configs = (long long)train.table().configs().size();
  const long long n_train = (long long)train.rows().size();
  std::vector<MethodResult> out;

  // A method defined by a program: scored on both halves.
  auto program_method = [&](std::string key, std::string label, Program prog, long long runs,
                            std::string note) {
    MethodResult m;
    m.key = std::move(key);
    m.label = std::move(label);
    m.train = train.score(prog);
    m.test = test.score(prog);
    m.program = std::move(prog);
    m.kernel_runs = runs;
    m.cost_note = std::move(note);
    return m;
  };
  const std::string tuning = fmt::format("{} configs x {} training shapes", n_configs, n_train);
  // A table of what was measured so far holds only some configs: say so in every label that
  // searched it.
  const bool partial = backend && !backend->complete_table();
  const std::string over =
      partial ? fmt::format(" over {} measured configs", n_configs) : std::string();
  out.push_back(program_method("expert", "expert", expert, 0, "hand-written"));
  const Program single = best_single_config(train);
  out.push_back(program_method(
      "best_single", fmt::format("best single config ({}){}", single.default_config.brief(), over),
      single, n_configs * n_train, tuning));
  const Program table = per_m_table(train);
  out.push_back(program_method(
      "per_m_table",
      fmt::format("per-M table ({}){}", counted(long(table.rules.size()), "rule", "rules"), over),
      table, n_configs * n_train, tuning));

  TreeOptions tree_options;
  tree_options.max_leaves = tree_leaves;
  const Program tree = fit_decision_tree(train, tree_options);
  out.push_back(
      program_method("tree",
                     fmt::format("decision tree ({}, M/N/K/M*N/tiles){}",
                                 counted(long(tree.rules.size()) + 1, "leaf", "leaves"), over),
                     tree, n_configs * n_train, tuning));

  if (auto v = vendor_method(train, test, backend)) out.push_back(std::move(*v));

  MethodResult o;
  o.key = "oracle";
  o.label = partial ? "oracle" + over : "per-shape oracle";
  o.train = train.oracle();
  o.test = test.oracle();
  o.kernel_runs = n_configs * (long long)train.table().shapes().size();
  o.cost_note = fmt::format("{} configs x every shape, again for each new shape", n_configs);
  out.push_back(o);
  return out;
}

} // namespace tv
