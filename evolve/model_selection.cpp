#include "evolve/model_selection.hpp"

#include "eval/cascade.hpp"
#include "evolve/evolution.hpp"
#include "evolve/mock_llm.hpp"
#include "evolve/refit_validation.hpp"
#include "ir/error.hpp"
#include "ir/hash.hpp"
#include "ir/rng.hpp"
#include "ir/threshold_placement.hpp"
#include "ir/wave_guards.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>
#include <memory>

namespace tv {

std::vector<double> selection_penalties() {
  return {0.0, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05};
}

std::vector<int> selection_tree_leaves() {
  return {2, 3, 4, 6, 8, 12, 16};
}

nlohmann::json ModelSelection::to_json(bool with_cache) const {
  nlohmann::json j{{"folds", folds},
                   {"penalties", penalties},
                   {"held_out", held_out},
                   {"mean_sizes", mean_sizes},
                   {"penalty", penalty},
                   {"leaves", leaves},
                   {"tree_held_out", tree_held_out},
                   {"tree_leaves", tree_leaves},
                   {"kernel_runs", kernel_runs}};
  if (with_cache) j["cache"] = cache;
  return j;
}

ModelSelection ModelSelection::from_json(const nlohmann::json& j) {
  ModelSelection m;
  try {
    m.folds = j.at("folds").get<int>();
    m.penalties = j.at("penalties").get<std::vector<double>>();
    m.held_out = j.at("held_out").get<std::vector<double>>();
    m.mean_sizes = j.at("mean_sizes").get<std::vector<double>>();
    m.penalty = j.at("penalty").get<double>();
    m.leaves = j.at("leaves").get<std::vector<int>>();
    m.tree_held_out = j.at("tree_held_out").get<std::vector<double>>();
    m.tree_leaves = j.at("tree_leaves").get<int>();
    m.kernel_runs = j.at("kernel_runs").get<long long>();
    m.cache = j.contains("cache") ? j.at("cache") : nlohmann::json::array();
  } catch (const nlohmann::json::exception& e) {
    throw InputError(fmt::format("model selection: malformed ({})", e.what()));
  }
  if (m.held_out.size() != m.penalties.size() || m.mean_sizes.size() != m.penalties.size() ||
      m.tree_held_out.size() != m.leaves.size() || !(m.penalty >= 0 && m.penalty < 1) ||
      m.tree_leaves < 0)
    throw InputError("model selection: inconsistent fields");
  return m;
}

ModelSelection cross_validate(const Problem& problem, const Mutator& mutator,
                              const EvolutionOptions& options) {
  ModelSelection out;
  out.penalties = selection_penalties();
  out.held_out.assign(out.penalties.size(), 0.0);
  out.mean_sizes.assign(out.penalties.size(), 0.0);
  out.leaves = selection_tree_leaves();
  out.tree_held_out.assign(out.leaves.size(), 0.0);
  out.cache = nlohmann::json::array();
  const std::size_t n = problem.train_rows.size();
  const int k = std::min<int>(options.folds, int(n / 2));
  if (k < 2) return out;
  out.folds = k;
  // Dealt by the training shapes' places, not their table rows, and each fold kept in the
  // training shapes' order: a split a study derives from another's table (resplit) numbers its
  // rows differently from a fresh load of the same split and must deal the same folds.
  std::vector<std::size_t> places(n);
  for (std::size_t i = 0; i < n; ++i)
    places[i] = i;
  std::vector<std::vector<std::size_t>> folds;
  for (const auto& fold : deal_folds(places, k, options.seed)) {
    folds.emplace_back();
    for (std::size_t i : fold)
      folds.back().push_back(problem.train_rows[i]);
  }
  std::vector<std::size_t> place_of(problem.table->shapes().size(), 0);
  for (std::size_t i = 0; i < n; ++i)
    place_of[problem.train_rows[i]] = i;
  const auto by_place = [&](std::size_t a, std::size_t b) { return place_of[a] < place_of[b]; };

  // The union of what the folds timed. Each fold starts from it: a pair one fold timed is a
  // cache hit for the next, so the folds' cost grows by what is new to them.
  CascadeEvaluator pairs(problem, options.cascade);
  // The expert on every training shape first, as the main run would start: every fold run
  // starts from it too, so no fold's cap goes to timing its own start.
  if (const Evaluation ev = pairs.evaluate(problem.expert, 0.0); ev.stage != Stage::full)
    throw InputError(fmt::format("the expert program could not be evaluated: {}", ev.reason));
  nlohmann::json timed = pairs.cache_to_json();
  const auto collect = [&](const nlohmann::json& cache) {
    for (const auto& e : cache)
      timed.push_back(e);
    pairs.cache_from_json(timed);
    timed = pairs.cache_to_json(); // each pair once: a fold's cache repeats what it was given
    return (long long)pairs.cached_pairs();
  };
  // Under a kernel-run cap the folds together time at most kSelectionCapShare of it, so the
  // main search keeps the rest: each fold has an equal part of what is left, half for its
  // search and the rest for timing its choices on its held-out shapes.
  const long long cap =
      options.kernel_runs.any() ? options.kernel_runs.cap(pairs.exhaustive_train_runs()) : 0;
  const long long allowance =
      cap > 0 ? std::max(1LL, (long long)(kSelectionCapShare * double(cap))) : -1;
  long long spent = (long long)pairs.cached_pairs(); // distinct pairs timed so far
  double weight_total = 0;
  for (int f = 0; f < k; ++f) {
    std::vector<std::size_t> fit_rows;
    for (int g = 0; g < k; ++g)
      if (g != f) fit_rows.insert(fit_rows.end(), folds[g].begin(), folds[g].end());
    std::sort(fit_rows.begin(), fit_rows.end(), by_place);
    const auto fit = sub_problem(problem, fit_rows, folds[f]);
    const auto held = sub_problem(problem, folds[f], fit_rows);

    const long long fold_allowance =
        allowance > 0 ? std::max(0LL, (allowance - spent) / (k - f)) : -1;
    EvolutionOptions fo = options;
    fo.folds = 0;
    fo.seed = hash_mix(options.seed, std::uint64_t(f) + 1);
    if (fold_allowance >= 0) {
      fo.kernel_runs = KernelRunBudget{};
      fo.kernel_runs.runs = std::max(1LL, fold_allowance / 2);
    } else {
      // Without a cap, leaf exploration's own allowance is the main run's to spend: a fold
      // run's front and timed pairs are what selection reads.
      fo.explore = false;
    }
    std::unique_ptr<Mutator> m = mutator.fork();
    if (!m) m = std::make_unique<MockLlm>(problem.gpu, mock_options_for(problem, {}));
    Evolution run(*fit, *m, fo);
    run.know_pairs(timed);
    const EvolutionResult r = run.run();
    const long long before = spent;
    spent = collect(run.timed_pairs());
    // What the fold may still time for its held-out choices (-1: no cap).
    long long held_left =
        fold_allowance >= 0 ? std::max(0LL, fold_allowance - (spent - before)) : -1;

    std::vector<Shape> fit_shapes;
    for (std::size_t row : fit_rows)
      fit_shapes.push_back(problem.shape(row));
    CascadeEvaluator held_eval(*held, options.cascade);
    held_eval.cache_from_json(timed);
    std::map<std::uint64_t, double> log_speedup_of; // by program id
    const double w = double(folds[f].size());
    weight_total += w;
    const auto held_out_log = [&](const Program& placed) {
      const Evaluation ev = held_eval.evaluate(placed, 0.0, held_left);
      if (held_left >= 0) held_left = std::max(0LL, held_left - ev.kernel_runs);
      // A choice that cannot be timed on the held-out fold (a failed pair, or more new pairs
      // than the cap leaves) counts as a large loss (as the expert's time it would flatter
      // it), so it is never chosen.
      return ev.stage == Stage::full && ev.train.valid ? std::log(ev.train.speedup_vs_expert)
                                                       : -std::log(2.0);
    };
    for (std::size_t i = 0; i < out.leaves.size(); ++i)
      out.tree_held_out[i] += w * held_out_log(run.measured_tree(out.leaves[i]));
    for (std::size_t i = 0; i < out.penalties.size(); ++i) {
      const auto e = r.front.choose(out.penalties[i]);
      if (!e) throw std::logic_error("cross-validation: a fold run has an empty front");
      auto it = log_speedup_of.find(e->candidate.id);
      if (it == log_speedup_of.end()) {
        // As the run would return it: thresholds placed, then wave guards.
        Program placed =
            place_thresholds(e->candidate.program, fit_shapes, problem.gpu.units).program;
        if (options.wave_guards)
          placed =
              guard_waves(placed, fit_shapes, problem.gpu.units,
                          {.with_floors = options.wave_floors, .returns = options.guard_returns})
                  .program;
        it = log_speedup_of.emplace(e->candidate.id, held_out_log(placed)).first;
      }
      out.held_out[i] += w * it->second;
      out.mean_sizes[i] += double(program_size(e->candidate.program)) / double(k);
    }
    spent = collect(held_eval.cache_to_json());
  }
  for (double& v : out.held_out)
    v = std::exp(v / weight_total);
  std::size_t pick = 0;
  for (std::size_t i = 1; i < out.penalties.size(); ++i)
    if (out.held_out[i] >= out.held_out[pick]) pick = i; // ties: the larger charge
  out.penalty = out.penalties[pick];
  for (double& v : out.tree_held_out)
    v = std::exp(v / weight_total);
  // A tree wins only when it does strictly better than the front's best choice.
  std::size_t best_tree = 0;
  for (std::size_t i = 1; i < out.leaves.size(); ++i)
    if (out.tree_held_out[i] > out.tree_held_out[best_tree]) best_tree = i;
  if (!out.leaves.empty() && out.tree_held_out[best_tree] > out.held_out[pick])
    out.tree_leaves = out.leaves[best_tree];
  out.cache = pairs.cache_to_json();
  out.kernel_runs = spent;
  return out;
}

} // namespace tv
