// floor: the result is held to what a user gets without the tool. Among the program the passes
// before it return and the simple candidates the run has timed on every training shape (the
// vendor library everywhere, where the run times it; the best single config; the expert), it
// returns the one whose estimate of the speedup over the expert on shapes it was not fitted on
// is best:
//   - the vendor library and the expert are fitted on nothing: their training figure is that
//     estimate;
//   - the best single config is chosen on the training shapes: its estimate is the held-out
//     figure of the config each fold's complement chooses (the same folds as refit validation);
//   - the result: a tree refitted by refit validation has its held-out figure there; a searched
//     program its training figure less the optimism refit validation charged it (the optimism of
//     a refitted tree of as many leaves; none on the analytic model).
// So a run never ends below the vendor library on its own training shapes: the result is kept
// only where its charged estimate, at most its training figure, beats the library's. The pairs
// of the result the run lacks (a refitted tree may choose a config it never timed on a shape)
// are timed first, within the cap.
//
// Report data: "candidates" (each: "name", "speedup" its estimate as a geometric-mean speedup
// over the expert, "train" its training speedup), "chosen" (the name kept).
#include "evolve/passes/pass.hpp"

#include "evolve/evolution_options.hpp"
#include "evolve/measured_tree.hpp"
#include "evolve/refit_validation.hpp"
#include "ir/hash.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <unordered_map>

namespace tv {

namespace {

/// One program the floor weighs.
struct FloorCandidate {
  std::string name;
  Program program;
  double estimate = 0; ///< weighted mean held-out log speedup over the expert
  double train = 0;    ///< weighted mean training log speedup over the expert
};

struct ConfigHash {
  std::size_t operator()(const Config& c) const { return std::size_t(hash_value(c)); }
};

class FloorPass final : public Pass {
public:
  const char* name() const override { return "floor"; }
  const char* help() const override {
    return "returns the vendor library, the best single config or the expert instead where the "
           "result's held-out estimate is lower";
  }
  std::string not_for(const PassContext&) const override { return ""; }
  PassReport run(PassContext& ctx, ReturnedProgram& result) const override {
    const Problem& problem = ctx.problem;
    const std::vector<std::size_t>& rows = problem.train_rows;
    const std::size_t n = rows.size();
    PassReport r;
    std::vector<double> w(n), expert(n);
    double total = 0;
    for (std::size_t i = 0; i < n; ++i) {
      w[i] = std::max(0.0, ctx.train_shapes[i].weight);
      total += w[i];
      expert[i] = ctx.eval.cached_time(rows[i], problem.expert.choose(ctx.train_shapes[i]));
    }
    if (!(total > 0)) return r;
    // The result's pairs the run lacks, config by config.
    std::vector<std::pair<Config, std::vector<std::size_t>>> missing;
    for (std::size_t i = 0; i < n; ++i) {
      const Config c = result.best.program.choose(ctx.train_shapes[i]);
      if (ctx.eval.timed(rows[i], c)) continue;
      auto it =
          std::find_if(missing.begin(), missing.end(), [&](const auto& m) { return m.first == c; });
      if (it == missing.end()) it = missing.insert(missing.end(), {c, {}});
      it->second.push_back(i);
    }
    for (const auto& [config, which] : missing)
      if (const long long left = ctx.ledger.left(); left != 0)
        ctx.time_config(name(), config, which, left);
    // Mean log speedup over the expert of per-shape times `t` (nullopt where one is missing).
    const auto mean_log = [&](const std::vector<double>& t) -> std::optional<double> {
      double sum = 0;
      for (std::size_t i = 0; i < n; ++i) {
        if (!(t[i] > 0 && std::isfinite(t[i]) && expert[i] > 0 && std::isfinite(expert[i])))
          return std::nullopt;
        sum += w[i] * std::log(expert[i] / t[i]);
      }
      return sum / total;
    };
    std::vector<FloorCandidate> candidates;
    {
      const std::optional<double> train =
          mean_log(ctx.eval.cached_times(result.best.program, rows));
      if (!train) {
        r.summary = "the result kept: a pair of it could not be timed within the cap";
        return r;
      }
      FloorCandidate c{"the result", result.best.program, *train, *train};
      const PassReport* refit = ctx.report("refit-validation");
      const bool refitted = result.selected_from.rfind("tree", 0) == 0;
      if (refit && refit->ran && refit->data.value("folds", 0) > 0)
        c.estimate = refitted ? std::log(refit->data.at("chosen_held_out_speedup").get<double>())
                              : *train - refit->data.at("optimism_charge").get<double>();
      candidates.push_back(std::move(c));
    }
    // Every config the run timed on every training shape, with its times.
    std::unordered_map<Config, std::vector<double>, ConfigHash> everywhere;
    for (const auto& [secs, c] : ctx.eval.fastest(rows[0], std::size_t(-1)))
      if (std::isfinite(secs)) everywhere[c].assign(n, secs);
    for (std::size_t i = 1; i < n && !everywhere.empty(); ++i) {
      std::unordered_map<Config, double, ConfigHash> here;
      for (const auto& [secs, c] : ctx.eval.fastest(rows[i], std::size_t(-1)))
        if (std::isfinite(secs)) here[c] = secs;
      for (auto it = everywhere.begin(); it != everywhere.end();) {
        const auto at = here.find(it->first);
        if (at == here.end()) {
          it = everywhere.erase(it);
        } else {
          it->second[i] = at->second;
          ++it;
        }
      }
    }
    const auto fixed = [&](const std::string& label, const Config& c) {
      const auto it = everywhere.find(c);
      if (it == everywhere.end()) return;
      Program p;
      p.default_config = c;
      if (const std::optional<double> m = mean_log(it->second))
        candidates.push_back({label, p, *m, *m});
    };
    if (problem.spec.vendor_dispatch) fixed("the vendor library", vendor_config());
    // The expert: its own training figure (0 in log speedup over itself).
    candidates.push_back({"the expert", problem.expert, 0.0, 0.0});
    // The best single config, and the held-out figure of choosing one on the folds.
    std::vector<Config> configs;
    for (const auto& [c, t] : everywhere)
      if (!c.vendor && mean_log(t)) configs.push_back(c);
    std::sort(configs.begin(), configs.end(), [](const Config& a, const Config& b) {
      return print_config(a) < print_config(b); // an order that does not depend on hashing
    });
    if (!configs.empty()) {
      const auto fitted_log = [&](const Config& c, const std::vector<bool>& out) {
        const std::vector<double>& t = everywhere.at(c);
        double sum = 0;
        for (std::size_t i = 0; i < n; ++i)
          if (!out[i]) sum += w[i] * std::log(expert[i] / t[i]);
        return sum;
      };
      const auto best_on = [&](const std::vector<bool>& out) {
        std::size_t best = 0;
        double best_sum = -INFINITY;
        for (std::size_t k = 0; k < configs.size(); ++k)
          if (const double s = fitted_log(configs[k], out); s > best_sum) {
            best_sum = s;
            best = k;
          }
        return configs[best];
      };
      const Config single = best_on(std::vector<bool>(n, false));
      const auto folds =
          deal_shape_folds(ctx.train_shapes, kRefitFolds, ctx.options.seed, folds_by_size(problem));
      double held = 0, held_weight = 0;
      for (const auto& fold : folds) {
        std::vector<bool> out(n, false);
        for (std::size_t i : fold)
          out[i] = true;
        const std::vector<double>& t = everywhere.at(best_on(out));
        for (std::size_t i : fold) {
          held += w[i] * std::log(expert[i] / t[i]);
          held_weight += w[i];
        }
      }
      Program p;
      p.default_config = single;
      const double train = *mean_log(everywhere.at(single));
      if (held_weight > 0 && !single.vendor)
        candidates.push_back({fmt::format("the best single config ({})", single.brief()), p,
                              held / held_weight, train});
    }
    std::size_t chosen = 0;
    for (std::size_t k = 1; k < candidates.size(); ++k)
      if (candidates[k].estimate > candidates[chosen].estimate &&
          candidates[k].program != result.best.program) // the result by another name: kept
        chosen = k;
    nlohmann::json list = nlohmann::json::array();
    for (const FloorCandidate& c : candidates)
      list.push_back(
          {{"name", c.name}, {"speedup", std::exp(c.estimate)}, {"train", std::exp(c.train)}});
    r.data = {{"candidates", list}, {"chosen", candidates[chosen].name}};
    const auto pct = [](double log_ratio) { return 100 * std::expm1(log_ratio); };
    if (chosen == 0) {
      double next = -INFINITY;
      for (std::size_t k = 1; k < candidates.size(); ++k)
        next = std::max(next, candidates[k].estimate);
      r.summary = fmt::format("the result kept: its estimate on unseen shapes is {:+.2f}% above "
                              "the best simple candidate's",
                              pct(candidates[0].estimate - next));
      return r;
    }
    const FloorCandidate& c = candidates[chosen];
    r.summary = fmt::format("{} returned instead of the result: {:+.2f}% by the estimate on "
                            "unseen shapes",
                            c.name, pct(c.estimate - candidates[0].estimate));
    result.best.program = c.program;
    result.best.id = 0;
    result.reply.clear();
    result.diff.clear();
    result.op = "floor";
    result.selected_from = c.name;
    return r;
  }
};

} // namespace

std::unique_ptr<Pass> floor_pass() {
  return std::make_unique<FloorPass>();
}

} // namespace tv
