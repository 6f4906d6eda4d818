#pragma once
/// The cascaded evaluator: stage 0 static check (free), stage 1 a few probe shapes, stage 2
/// all training shapes, raced against the parent when the caller passes one (a sample of the
/// new pairs first; Evolution does once half its kernel-run cap is spent). Cheap stages run
/// first; each can stop a program with a reason.
/// Timings go through the problem's backend and a per-run cache of (shape, config) pairs.
#include "eval/counters.hpp"
#include "eval/measured_configs.hpp"
#include "eval/problem.hpp"
#include "eval/score.hpp"

#include <cstddef>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace tv {

/// Options of the cascade.
struct CascadeOptions {
  bool enabled = true; ///< false: skip stage 1 (every launchable child is fully timed)
  int probe_count = 6; ///< probe shapes chosen automatically from the training shapes
  std::vector<std::string> probe_shapes; ///< explicit probe shape names (overrides probe_count)
  double probe_margin = 0.03; ///< stop a child whose probe score < (1 - margin) x its parent's
  /// Score stage 1 on the analytic model of the problem's GPU profile (no kernel runs)
  /// instead of the backend; stage 2 still times on the backend.
  bool analytic_probes = false;
  /// Racing in stage 2 (with a parent): the new pairs are timed this many at a time, in a
  /// fixed random order, and the child stops (race_reject) once even kRaceStandardErrors
  /// above its sample's estimate it would score below (1 - probe_margin) x its parent's.
  /// 0 = off (every pair of a child past the probes is timed).
  int race_batch = 8;
};

/// How sure racing must be: the child stops when its estimate plus this many standard errors
/// still loses by the probe margin.
inline constexpr double kRaceStandardErrors = 2.0;

/// Racing's bound, in log score ratio of a child to its parent (weighted mean over all training
/// shapes of log(parent time / child time)): `known` is the weighted sum over the shapes whose
/// both pairs are timed, `sample` the weighted terms (weight x log ratio) of the new pairs timed
/// so far, drawn from `population` new pairs; the unknown rest is estimated from the sample's
/// mean, plus kRaceStandardErrors standard errors (finite population). `total_weight` is the
/// weight of every training shape.
double race_upper_bound(double known, const std::vector<double>& sample, std::size_t population,
                        double total_weight);

/// How far a program got.
enum class Stage {
  mutator_failed,
  diff_failed,
  parse_failed,
  noop,
  static_reject,
  probe_reject,
  race_reject, ///< stage 2: lost surely to its parent on a sample of its new training pairs
  timing_failed,
  over_budget, ///< not timed: the pairs it needs would take the run past its kernel-run cap
  full
};

/// Lowercase name ("probe_reject").
std::string_view stage_name(Stage s);
/// Parses a stage name; returns false when unknown.
bool parse_stage(std::string_view text, Stage& out);

/// The outcome of evaluating one program.
struct Evaluation {
  Stage stage = Stage::full;
  std::string reason;              ///< why it stopped (empty for full)
  SetScore probe;                  ///< probe figures (valid when probes were timed)
  SetScore train;                  ///< training figures (valid when stage == full)
  std::vector<double> train_times; ///< per training row, when stage == full
  long long kernel_runs = 0, cache_hits = 0;
};

/// Runs the cascade for one problem, keeping the run's measurement cache.
class CascadeEvaluator {
public:
  /// Chooses the probe shapes; throws InputError for an unknown explicit probe name.
  CascadeEvaluator(const Problem& problem, CascadeOptions options);
  ~CascadeEvaluator();

  /// Stages 0-2 for `p`; `reference_probe` is the parent's probe speedup (0 = no reference,
  /// so stage 1 never rejects), and with `parent` (fully timed) stage 2 races `p` against it
  /// (CascadeOptions::race_batch) when it has at least `race_from_new_pairs` new training
  /// pairs. Updates the cache. With `max_new_pairs` >= 0, a stage whose uncached pairs would
  /// take the program's kernel runs past it is not timed: stage over_budget (the probe pairs
  /// of a program stopped at stage 2 stay timed and counted).
  Evaluation evaluate(const Program& p, double reference_probe, long long max_new_pairs = -1,
                      const Program* parent = nullptr, long long race_from_new_pairs = 0);
  /// Times `config` on table rows `rows` (distinct; no probe stage, no scoring): stage full
  /// with train_times one per row, static_reject when it cannot launch, timing_failed when a
  /// pair failed, over_budget (nothing timed) when its uncached pairs pass `max_new_pairs`
  /// (< 0: no limit). Updates the cache.
  Evaluation time_config(const Config& config, const std::vector<std::size_t>& rows,
                         long long max_new_pairs = -1);
  /// Probe figures of a program whose pairs are all cached (no kernel runs, no counting).
  SetScore cached_probe_score(const Program& p) const;
  /// Re-measures `p` on the training shapes `samples` more times (samples 1..samples, each an
  /// independent measurement) and scores it on the median of those and `first` (its sample-0
  /// times, one per training row). Stage full with the new figures, or timing_failed with the
  /// reason when a re-measurement failed. Counts kernel runs.
  Evaluation confirm(const Program& p, const std::vector<double>& first, int samples);
  /// Cached times of `p` on `rows` (+inf where a pair is not cached or failed); no counting.
  std::vector<double> cached_times(const Program& p, const std::vector<std::size_t>& rows) const;
  /// Cached time of `config` on table row `row` (+inf when not cached or failed); no counting.
  double cached_time(std::size_t row, const Config& config) const;
  /// True when `config` was timed on table row `row` (ok or not); no counting.
  bool timed(std::size_t row, const Config& config) const;
  /// The fastest ok measurements of table row `row` so far (seconds, config), fastest first
  /// (ties in config order), at most `k`; no counting.
  std::vector<std::pair<double, Config>> fastest(std::size_t row, std::size_t k) const;
  /// fastest(row, k) as a shared list, kept until the row's measurements change (requests
  /// for many parents show the same lists).
  MeasuredConfigs fastest_list(std::size_t row, std::size_t k);
  /// Table rows of the probe shapes.
  const std::vector<std::size_t>& probe_rows() const { return probe_rows_; }
  /// Kernel runs exhaustive per-shape tuning of the training shapes would need.
  long long exhaustive_train_runs() const;
  /// Short category of a static-check reason ("registers", "shared memory", ...).
  static std::string reason_category(const std::string& reason);
  /// Pairs of `p` on table rows `rows` (distinct) not cached yet: the kernel runs timing it
  /// there would cost.
  long long uncached(const Program& p, const std::vector<std::size_t>& rows) const;
  /// Number of distinct (shape, config) pairs cached.
  std::size_t cached_pairs() const { return cache_order_.size(); }
  /// The cached pairs (which (shape, config) pairs were measured), for checkpoints: those
  /// cached from the `from`-th to before the `to`-th in the order they were cached.
  nlohmann::json cache_to_json(std::size_t from = 0, std::size_t to = SIZE_MAX) const;
  /// Restores cached pairs written by cache_to_json, re-reading their values from the
  /// backend without counting kernel runs; they replace the cache, or with `add` join it.
  /// Throws InputError on malformed input.
  void cache_from_json(const nlohmann::json& j, bool add = false);
  /// Throws the InputError cache_from_json would throw for `j`, timing nothing.
  void check_cache_json(const nlohmann::json& j) const { (void)cache_keys(j); }

private:
  struct Key {
    std::size_t row;
    Config config;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const;
  };
  /// The pairs `j` (cache_to_json's form) names, in order; throws InputError on malformed input.
  std::vector<Key> cache_keys(const nlohmann::json& j) const;
  /// True when `p`'s uncached pairs on `rows` fit in `max_new_pairs` (< 0: no limit) less what
  /// `ev` has timed; else sets ev to over_budget, naming `what`, and returns false.
  bool fits(const Program& p, const std::vector<std::size_t>& rows, long long max_new_pairs,
            const char* what, Evaluation& ev) const;
  /// Stage 2's race of `p` against `parent` (cascade_race.cpp): times `p`'s new training pairs
  /// a batch at a time until the rest is too few for a batch (timed then by stage 2 itself);
  /// false when it stopped `p` (ev: race_reject or timing_failed, with the reason). A child
  /// with fewer than `from_new_pairs` new pairs is not raced (true, nothing timed).
  bool race(const Program& p, const Program& parent, Evaluation& ev, long long from_new_pairs);
  /// Times `p` on `rows`, filling `times`; returns false (with reason) if a pair failed.
  bool time_rows(const Program& p, const std::vector<std::size_t>& rows, std::vector<double>& times,
                 Evaluation& ev, std::string& reason);

  const Problem* problem_;
  CascadeOptions options_;
  std::vector<std::size_t> probe_rows_;
  std::unique_ptr<TimeTable> probe_table_; ///< analytic_probes: the model's probe table
  std::unique_ptr<Scorer> probe_scorer_;
  std::unordered_map<Key, Measurement, KeyHash> cache_;
  std::vector<Key> cache_order_; ///< insertion order, for deterministic checkpoints
  /// Ok measurements per table row (seconds, config), fastest first.
  std::vector<std::vector<std::pair<double, Config>>> ok_by_row_;
  /// fastest_list's lists per table row and the k they were made for (k = 0: none yet).
  std::vector<std::pair<std::size_t, MeasuredConfigs>> lists_;
  void remember(const Key& k, const Measurement& m);
};

} // namespace tv
