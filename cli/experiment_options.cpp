#include "cli/experiment_options.hpp"

#include "cli/number_checks.hpp"
#include "evolve/evolution.hpp"
#include "ir/error.hpp"

#include <filesystem>
#include <fmt/format.h>

namespace tv {

void add_threads_option(CLI::App& cmd, int& threads, const std::string& what) {
  cmd.add_option("--threads", threads,
                 "threads for " + what + " (0 = OpenMP default); results do not depend on it")
      ->check(integer_in(0, 4096))
      ->capture_default_str();
}

void add_stagnation_option(CLI::App& cmd, long long& stagnation) {
  cmd.add_option("--stagnation", stagnation,
                 "stop a run after this many programs without a new best (0 = never); default "
                 "0 on the analytic model, 200 on recorded or measured timings")
      ->check(integer_in(0, kMaxCount));
}

void add_kernel_run_budget_option(CLI::App& cmd, KernelRunBudget& budget) {
  cmd.add_option_function<std::string>(
         "--max-kernel-runs",
         [&budget](const std::string& text) { budget = KernelRunBudget::parse(text); },
         "time at most this many (shape, config) pairs, e.g. 2000, or this share of exhaustive "
         "tuning of the training shapes (every config on every training shape), e.g. 30%: the "
         "run stops at the first program whose new pairs do not fit in what is left, without "
         "timing it; a cap below what timing the expert on the training shapes takes (where "
         "every run starts) is refused; default: no cap on the analytic model, 30% on recorded "
         "or measured timings; none: no cap")
      ->type_name("N|P%|none");
}

void add_rule_penalty_option(CLI::App& cmd, double& rule_penalty) {
  cmd.add_option("--rule-penalty", rule_penalty,
                 "the search ranks programs by train speedup x (1 - X)^rules, so a rule must win "
                 "more than that to stay (guards against fitting measurement noise); default 0 on "
                 "the analytic model and 0.01 on recorded or measured timings (0 with --folds)")
      ->check(number_in(0, 0.5));
}

void add_sampled_sizes_option(CLI::App& cmd, int& sampled_sizes) {
  cmd.add_option("--sampled-sizes", sampled_sizes,
                 "draw this many sizes inside the training shapes' range (M, N and K each "
                 "log-uniform between the smallest and largest training value) and time on them "
                 "the programs whose training figure is within 0.1% of the best (at most 16): "
                 "the fastest there is the result, before polish, placement and guards; default "
                 "64 on the analytic model, the one backend that times any size; 0 = off (the "
                 "searched best); other backends refuse it (recorded timings hold no other "
                 "sizes; measured runs: not yet); not with --folds")
      ->check(integer_in(0, 100000));
}

void add_race_batch_option(CLI::App& cmd, int& race_batch) {
  cmd.add_option(
         "--race-batch", race_batch,
         fmt::format("racing (only runs with a kernel-run cap race): once a run has spent {:g}% "
                     "of its cap, and before that where a child's new training pairs would take "
                     "{:g}% or more of what is left, a child past the probe shapes is timed on its "
                     "new pairs this many at a time, in a fixed random order, and stopped once its "
                     "parent surely beats it (2 standard errors past --probe-margin); what racing "
                     "stopped is timed in full at the end where the cap leaves room; 0 = off",
                     100 * kRaceFromCapShare, 100 * kRaceCostlyChildShare))
      ->check(integer_in(0, 1 << 20))
      ->capture_default_str();
}

void add_folds_option(CLI::App& cmd, int& folds) {
  cmd.add_option("--folds", folds,
                 "model selection (experimental): K-fold cross-validation on the training shapes "
                 "picks the result from the run's front of programs by size (thresholds placed "
                 "between training values) or a tree refitted on its measurements; each fold is "
                 "one more search of the same --budget, and under --max-kernel-runs the folds "
                 "share half of the cap; 0 = off: the result is the best training score")
      ->check(CLI::IsMember({0, 2, 3, 4, 5, 6, 7, 8, 9, 10}))
      ->capture_default_str();
}

void add_result_options(CLI::App& cmd, const ResultSwitches& s) {
  const auto off = [&cmd](const char* name, bool& flag, const std::string& help) {
    cmd.add_flag_callback(
        name, [&flag] { flag = false; }, help);
  };
  off("--searched-thresholds", s.place_thresholds,
      "return the searched program's thresholds as they are (by default each one moves between "
      "the training values it separates, near the middle of the gap in log space; no training "
      "shape changes its config)");
  off("--no-refit-validation", s.refit_validation,
      "return the searched program even where a decision tree refitted on the run's own "
      "measurements does better on held-out folds of the training shapes (by default such a "
      "tree is the result when that held-out figure beats the searched program's training "
      "figure, charged as --no-optimism-charge says; no kernel runs either way)");
  off("--no-optimism-charge", s.optimism_charge,
      "in refit validation, compare the tree's held-out figure with the searched program's "
      "training figure as it is (by default, on recorded or measured timings, that figure is "
      "first lowered by the optimism of a refitted tree of as many leaves: how much better the "
      "folds' trees fit their own shapes than the held-out ones; never on the analytic model)");
  off("--no-refit-lookahead", s.refit_lookahead,
      "in refit validation, cross-validate greedy trees only (by default trees grown with a "
      "two-step lookahead, each node taking of its 10 best splits the one whose own gain plus "
      "its better child's best gain is largest, are cross-validated on the same folds too, and "
      "the growth with the better held-out figure is refitted; no kernel runs either way)");
  off("--no-refit-complexity", s.refit_complexity,
      "in refit validation, choose the refitted tree's leaf count as the one with the best "
      "held-out figure on the folds (by default a charge per leaf is chosen on the folds, as "
      "CART's cost-complexity pruning does, and the tree is the one that charge picks from the "
      "fit on every training shape, which may have more leaves than the folds' trees; no kernel "
      "runs either way)");
  off("--no-refit-extremes", s.refit_extremes,
      "in refit validation's cost-complexity, keep the charge per leaf with the best held-out "
      "figure on the folds (by default, of the charges within one standard error of it, the one "
      "whose trees do best on up to six more folds that hold out the training shapes of the "
      "largest and of the smallest M, N and K: random folds cannot tell those sizes apart, the "
      "extremes say which carries over past the training shapes' range; no kernel runs either "
      "way)");
  off("--no-model-prior", s.model_prior,
      fmt::format("refit on the run's measurements alone (by default every refit of them, the "
                  "search's, leaf exploration's, refit validation's and the cost-matched tree's, "
                  "leans on the analytic model where the model orders the fitted shapes' timed "
                  "pairs of configs as they measured with a Kendall's tau of {:g} or more: each "
                  "leaf then counts {:g} more shape, of the model's log slowdowns, so a leaf of "
                  "few shapes whose measured configs nearly tie takes the one the model ranks "
                  "first; no kernel runs either way; always off on the analytic backend, whose "
                  "timings are the model's own)",
                  kModelPriorTau, kModelPriorShapes));
  off("--no-wave-guards", s.wave_guards,
      "return the result's rules without wave guards (by default each rule whose training "
      "shapes fill w waves of its own tile gets `cdiv(M, BM) * cdiv(N, BN) <= w x units`, so an "
      "unseen shape whose grid would spill into one more wave goes on to the later rules; no "
      "training shape changes its config)");
  off("--no-guard-validation", s.guard_validation,
      "give every rule its wave guard (by default guards placed on folds of the training shapes "
      "are judged on the held-out shapes they send to a later rule, and a rule whose diverted "
      "shapes ran slower in sum, as the run measured them, gets none; the pairs it needs and the "
      "run lacks are timed within --max-kernel-runs)");
  off("--no-guard-returns", s.guard_returns,
      "leave the wave guards without return rules (by default a shape one tile row high, M <= "
      "BM, that a rule's guard or its bounds on N, M * N or tile counts would send on to a later "
      "rule or the default whose tile is the rule's made taller, where it would launch the same "
      "tiles, each padding more rows, gets the rule's config back from a rule just before that "
      "one; no training shape changes its config)");
  off("--no-wave-floors", s.wave_floors,
      "leave the wave guards without floors (by default a rule each of whose training shapes "
      "fills at least two waves of its own tile gets cdiv(M, BM) * cdiv(N, BN) >= the GPU's "
      "units, so an unseen shape that would leave units idle goes on to the later rules; guard "
      "validation judges each floor apart)");
  off("--no-polish", s.polish,
      "return the searched program's configs as they are (by default each rule's config, and "
      "the default's, is replaced by a config one field away that is faster on the training "
      "shapes the rule decides, while one is; it times at most half as many pairs again as the "
      "search did, within --max-kernel-runs; not with --folds)");
  off("--no-explore", s.explore,
      "leave unspent what the search did not spend of --max-kernel-runs (by default it goes to "
      "leaf exploration: on each leaf of decision trees refitted on the run's measurements, the "
      "leaf's config, the configs measured fastest on its shapes and, on a table, those the "
      "analytic model ranks first are timed on the leaf's shapes, before polish and refit "
      "validation; without a cap, at most 1% of the kernel runs of exhaustive tuning of the "
      "training shapes, and never past 4% for the whole run; not with --folds)");
  off("--no-analytic-seed", s.analytic_seed,
      "start the search from the expert alone (by default, on a recorded table under a "
      "kernel-run cap, the decision tree the analytic model of the GPU fits on the training "
      "shapes starts it too: timed on the training shapes raced against the expert, so where "
      "the model misjudges the table it stops after a few kernel runs)");
}

void check_report_dir(const std::string& out) {
  if (!out.empty() && std::filesystem::exists(out) && !std::filesystem::is_directory(out))
    throw InputError(fmt::format("--out {}: exists and is not a directory", out));
}

} // namespace tv
