#pragma once
/// The decision-tree baseline, AutoHeuristic style: a tree fitted on the exhaustive training
/// table (every config timed on every training shape) whose leaves are configs, grown greedily
/// best-first to a leaf limit, and written as a rule program of the IR.
///
/// A node's config is its best single config (least weighted sum of log times over its shapes);
/// a split `feature <= t` is chosen to lower that sum the most, with t halfway between two
/// neighbouring training values (as scikit-learn's trees place their thresholds). Features are
/// M, N, K and derived ones (M * N, tile counts of reference tiles).
#include "eval/score.hpp"
#include "ir/program.hpp"

#include <string>
#include <vector>

namespace tv {

/// What a tree may split on and how big it may grow.
struct TreeOptions {
  int max_leaves = 8;
  int min_leaf_shapes = 1; ///< no leaf smaller than this
  /// The features, as comparisons whose op and value are ignored (tile sizes matter).
  std::vector<Comparison> features;
  /// 0: thresholds halfway between neighbouring training values (scikit-learn's rule). Else
  /// the GPU's SM/CU count, and thresholds are the round values an engineer would write where
  /// one lies between the two training values: for tile counts a multiple of half the units
  /// (whole waves and half waves), for the other features a power of two (or 1.5 times one);
  /// halfway only when no such value lies between them.
  int round_thresholds_units = 0;
  /// 0: each node takes the split that lowers its cost the most (greedy). k > 0: of its k
  /// best splits, the one whose own gain plus the better child's best split gain is largest
  /// (a two-step lookahead: a split that sets up a good next split can beat a slightly better
  /// one that does not).
  int lookahead = 0;
  /// 0: a leaf's config is the one its shapes' costs favour. p > 0, with a prior table (the
  /// `prior` of fit_tree, of the cost table's layout): a leaf of n shapes weighs config c at
  /// the sum of its shapes' costs plus p / n times the sum of their priors, as if the leaf held
  /// p more shapes on which c costs the mean prior; the split search compares children so
  /// weighed. A leaf of few shapes leans on the prior where its own costs hardly differ; a
  /// large one hardly at all.
  double prior_shapes = 0;
  /// True: each tree is returned simplified (ir/simplify.hpp). False: as grown, one rule per
  /// leaf but the last: the same config for every shape, for callers that only evaluate the
  /// trees (simplifying is most of a small fit's time).
  bool simplified = true;
};

/// The threshold t (a <= t < b) `o` puts between neighbouring training values a < b of `f`.
std::int64_t tree_threshold(const Comparison& f, std::int64_t a, std::int64_t b,
                            const TreeOptions& o);

/// The default features: M, N, K, M * N, and the tile counts of 64x64 and 128x128 tiles.
std::vector<Comparison> default_tree_features();
/// Parses a feature list like "M,N,K,MN,tiles64x64" ("tilesAxB" for cdiv(M, A) * cdiv(N, B));
/// throws InputError for an unknown or repeated name.
std::vector<Comparison> parse_tree_features(const std::string& text);
/// The names of `features` as parse_tree_features reads them.
std::string tree_features_text(const std::vector<Comparison>& features);

/// Fits the tree on the training rows of `train` and returns it as a simplified program
/// (one rule per leaf but the last, which becomes the default).
Program fit_decision_tree(const Scorer& train, const TreeOptions& options);

/// The same fit on any cost table: `cost[i * configs.size() + c]` is what config c costs on
/// shape i (e.g. weight x log time; lower is better); empty features mean the defaults.
/// `prior`, empty or of the same layout, is what TreeOptions::prior_shapes weighs.
Program fit_tree(const std::vector<Shape>& shapes, const std::vector<Config>& configs,
                 const std::vector<double>& cost, const TreeOptions& options,
                 const std::vector<double>& prior = {});

/// The trees fit_tree returns for 1, 2, ..., options.max_leaves leaves, from one growth: the
/// tree grows best-first, so the tree of L leaves is the first L - 1 splits of the largest
/// (element L - 1 equals fit_tree with max_leaves L).
std::vector<Program> fit_tree_sequence(const std::vector<Shape>& shapes,
                                       const std::vector<Config>& configs,
                                       const std::vector<double>& cost, const TreeOptions& options,
                                       const std::vector<double>& prior = {});

} // namespace tv
