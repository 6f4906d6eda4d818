#include "cli/experiment_options.hpp"

#include "cli/number_checks.hpp"
#include "evolve/evolution.hpp"
#include "evolve/passes/pipeline.hpp"
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
         "the most (shape, config) pairs a run may time, e.g. 2000, or a share of exhaustive "
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
                 "the analytic model and 0.01 on recorded or measured timings")
      ->check(number_in(0, 0.5));
}

void add_race_batch_option(CLI::App& cmd, int& race_batch) {
  cmd.add_option(
         "--race-batch", race_batch,
         fmt::format("racing (only runs with a kernel-run cap race): once a run has spent {:g}% "
                     "of its cap, and before that where a child's new training pairs would take "
                     "{:g}% or more of what is left, a child past the probe shapes is timed on its "
                     "new pairs this many at a time, in a fixed random order, and stopped once its "
                     "parent surely beats it (2 standard errors past --probe-margin); 0 = off",
                     100 * kRaceFromCapShare, 100 * kRaceCostlyChildShare))
      ->check(integer_in(0, 1 << 20))
      ->capture_default_str();
}

void add_result_options(CLI::App& cmd, EvolutionOptions& o) {
  std::string passes;
  for (const auto& p : pipeline_passes())
    passes += fmt::format("\n{}: {}", p->name(), p->help());
  cmd.add_option_function<std::vector<std::string>>(
         "--skip-pass",
         [&o](const std::vector<std::string>& names) {
           for (const std::string& name : names) {
             check_pass_name(name);
             o.skip(name);
           }
         },
         "do not run this pass (repeat for more); the passes after the search, in the order "
         "they run:" +
             passes)
      ->type_name("NAME")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cmd.add_option("--sampled-sizes", o.sampled_sizes,
                 "sampled-sizes: draw this many sizes inside the training shapes' range (M, N "
                 "and K each log-uniform between the smallest and largest training value) and "
                 "time on them the programs whose training figure is within 0.1% of the best "
                 "(at most 16); default 64 on the analytic model, the one backend that times any "
                 "size; 0 = the pass does not run; other backends refuse it")
      ->check(integer_in(0, 100000));
  const auto off = [&cmd](const char* name, bool& flag, const std::string& help) {
    cmd.add_flag_callback(
        name, [&flag] { flag = false; }, help);
  };
  off("--no-optimism-charge", o.optimism_charge,
      "in refit-validation, compare the tree's held-out figure with the searched program's "
      "training figure as it is (by default, on recorded or measured timings, that figure is "
      "first lowered by the optimism of a refitted tree of as many leaves: how much better the "
      "folds' trees fit their own shapes than the held-out ones; never on the analytic model)");
  off("--no-refit-lookahead", o.refit_lookahead,
      "in refit-validation, cross-validate greedy trees only (by default trees grown with a "
      "two-step lookahead, each node taking of its 10 best splits the one whose own gain plus "
      "its better child's best gain is largest, are cross-validated on the same folds too, and "
      "the growth with the better held-out figure is refitted; no kernel runs either way)");
  off("--no-refit-complexity", o.refit_complexity,
      "in refit-validation, choose the refitted tree's leaf count as the one with the best "
      "held-out figure on the folds (by default a charge per leaf is chosen on the folds, as "
      "CART's cost-complexity pruning does, and the tree is the one that charge picks from the "
      "fit on every training shape, which may have more leaves than the folds' trees; no kernel "
      "runs either way)");
  off("--no-refit-extremes", o.refit_extremes,
      "in refit-validation's cost-complexity, keep the charge per leaf with the best held-out "
      "figure on the folds for every shape (by default, of the charges within one standard "
      "error of it, the one whose trees do best on up to six more folds that hold out the "
      "training shapes of the largest and of the smallest M, N and K sizes a second tree, which "
      "decides the shapes outside the box of the training shapes: random folds cannot tell "
      "those sizes apart, the extremes say which carries over past the training shapes' range; "
      "no kernel runs either way)");
  off("--no-model-prior", o.model_prior,
      fmt::format("refit on the run's measurements alone (by default every refit of them, the "
                  "search's, leaf exploration's, refit validation's and the cost-matched tree's, "
                  "leans on the analytic model where the model orders the fitted shapes' timed "
                  "pairs of configs as they measured with a Kendall's tau of {:g} or more: each "
                  "leaf then counts {:g} more shape, of the model's log slowdowns, so a leaf of "
                  "few shapes whose measured configs nearly tie takes the one the model ranks "
                  "first; no kernel runs either way; always off on the analytic backend, whose "
                  "timings are the model's own)",
                  kModelPriorTau, kModelPriorShapes));
  off("--no-guard-returns", o.guard_returns,
      "leave the wave guards without return rules (by default a shape one tile row high, M <= "
      "BM, that a rule's guard or its bounds on N, M * N or tile counts would send on to a later "
      "rule or the default whose tile is the rule's made taller, where it would launch the same "
      "tiles, each padding more rows, gets the rule's config back from a rule just before that "
      "one; no training shape changes its config)");
  off("--no-wave-floors", o.wave_floors,
      "leave the wave guards without floors (by default a rule each of whose training shapes "
      "fills at least two waves of its own tile gets cdiv(M, BM) * cdiv(N, BN) >= the GPU's "
      "units, so an unseen shape that would leave units idle goes on to the later rules; guard "
      "validation judges each floor apart)");
  off("--no-analytic-seed", o.analytic_seed,
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
