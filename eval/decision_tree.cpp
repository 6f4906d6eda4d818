#include "eval/decision_tree.hpp"

#include "ir/error.hpp"
#include "ir/simplify.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <limits>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>

namespace tv {

namespace {

Comparison feature(Feature f, int tm = 0, int tn = 0) {
  Comparison c;
  c.feature = f;
  c.tile_m = tm;
  c.tile_n = tn;
  return c;
}

/// The best split of one node.
struct NodeSplit {
  double gain = 0;
  std::size_t feature = 0;
  std::int64_t threshold = 0;
  std::vector<std::size_t> left, right;
};

struct Node {
  std::vector<std::size_t> items; ///< indices into the scorer's rows
  /// Per feature, the items by (the feature's value, index): split children filter their
  /// parent's lists instead of sorting again.
  std::vector<std::vector<std::size_t>> sorted;
  Condition path;
  int config = -1;
  double cost = 0;
  std::optional<NodeSplit> split; ///< best split, computed once
  /// Per column, the sum of the items' costs (without the prior), as leaf() leaves it: the
  /// split search's totals.
  std::vector<double> sums;
};

/// `Cost` is the element type of the cost table: double, or float for a table too large to
/// hold in doubles (sums are taken in double either way).
template <class Cost> class TreeFitter {
public:
  /// `prior`: empty, or the prior table TreeOptions::prior_shapes weighs.
  TreeFitter(const std::vector<Shape>& shapes, const std::vector<Config>& configs,
             const std::vector<Cost>& cost, const TreeOptions& o,
             const std::vector<double>& prior = {})
      : shapes_(shapes), configs_(configs), o_(o), cols_(configs.size()), logt_(&cost),
        prior_(o.prior_shapes > 0 && !prior.empty() ? &prior : nullptr) {
    drop_dominated();
    vals_.resize(o_.features.size());
    for (std::size_t f = 0; f < o_.features.size(); ++f) {
      vals_[f].reserve(shapes_.size());
      for (const Shape& sh : shapes_)
        vals_[f].push_back(o_.features[f].value_of(sh));
    }
  }

  /// Best config of `n`'s items and its cost (with a prior, as TreeOptions::prior_shapes weighs
  /// it), into n.config and n.cost; n.sums gets the column sums.
  void leaf(Node& n) const {
    const std::vector<std::size_t>& items = n.items;
    std::vector<double> sum(cols_, 0.0);
    for (std::size_t i : items)
      for (std::size_t c = 0; c < cols_; ++c)
        sum[c] += (*logt_)[i * cols_ + c];
    n.sums = sum;
    if (prior_ && !items.empty()) {
      const double k = o_.prior_shapes / double(items.size());
      for (std::size_t i : items)
        for (std::size_t c = 0; c < cols_; ++c)
          sum[c] += k * (*prior_)[i * cols_ + c];
    }
    const auto it = std::min_element(sum.begin(), sum.end());
    n.config = int(it - sum.begin());
    n.cost = *it;
  }

  /// The node's best split (see TreeOptions::lookahead); `look` false: the greedy one.
  std::optional<NodeSplit> best_split(const Node& n, bool look = true) const {
    std::optional<NodeSplit> best;
    const bool ahead = look && o_.lookahead > 0;
    std::vector<NodeSplit> candidates; // with `ahead`: every split that gains (no item lists)
    const std::size_t m = n.items.size();
    if (m < 2 * std::size_t(std::max(1, o_.min_leaf_shapes))) return best;
    std::vector<double> prefix(cols_);
    const std::vector<double>& total = n.sums; // leaf() summed the items' columns
    // With a prior, its prefix and total sums too (empty without).
    std::vector<double> prefix_p, total_p;
    if (prior_) {
      prefix_p.resize(cols_);
      total_p.assign(cols_, 0.0);
      for (std::size_t i : n.items)
        for (std::size_t c = 0; c < cols_; ++c)
          total_p[c] += (*prior_)[i * cols_ + c];
    }
    for (std::size_t f = 0; f < o_.features.size(); ++f) {
      const std::vector<std::size_t>& order = n.sorted[f];
      const std::vector<std::int64_t>& value = vals_[f];
      std::fill(prefix.begin(), prefix.end(), 0.0);
      std::fill(prefix_p.begin(), prefix_p.end(), 0.0);
      for (std::size_t k = 0; k + 1 < m; ++k) {
        const std::size_t i = order[k];
        const auto* row = &(*logt_)[i * cols_];
        const bool cut = value[i] != value[order[k + 1]] &&
                         k + 1 >= std::size_t(o_.min_leaf_shapes) &&
                         m - k - 1 >= std::size_t(o_.min_leaf_shapes);
        if (!cut) {
          for (std::size_t c = 0; c < cols_; ++c)
            prefix[c] += row[c];
          if (prior_)
            for (std::size_t c = 0; c < cols_; ++c)
              prefix_p[c] += (*prior_)[i * cols_ + c];
          continue;
        }
        const auto [left, right] =
            prior_ ? children_with_prior(row, &(*prior_)[i * cols_], prefix, total, prefix_p,
                                         total_p, k + 1, m - k - 1)
                   : children(row, prefix, total);
        const double gain = n.cost - left - right;
        const bool greedy_best = gain > 1e-12 && (!best || gain > best->gain + 1e-12);
        if (greedy_best || (ahead && gain > 1e-12)) {
          NodeSplit s;
          s.gain = gain;
          s.feature = f;
          s.threshold = tree_threshold(o_.features[f], value[i], value[order[k + 1]], o_);
          if (ahead) candidates.push_back(s);
          if (greedy_best) best = s;
        }
      }
    }
    if (ahead && best) best = look_ahead(n, *best, std::move(candidates));
    if (best) {
      const std::vector<std::int64_t>& value = vals_[best->feature];
      for (std::size_t i : n.items)
        (value[i] <= best->threshold ? best->left : best->right).push_back(i);
    }
    return best;
  }

  /// Adds `row` to `prefix` and returns the best costs of the children it and `total` give:
  /// the prefix update and the two minima in one pass, four lanes each (costs are finite,
  /// never NaN, so the minima are the same in any order).
  std::pair<double, double> children(const Cost* row, std::vector<double>& prefix,
                                     const std::vector<double>& total) const {
    constexpr double inf = std::numeric_limits<double>::infinity();
    double l[4] = {inf, inf, inf, inf}, r[4] = {inf, inf, inf, inf};
    std::size_t c = 0;
    for (; c + 4 <= cols_; c += 4)
      for (std::size_t j = 0; j < 4; ++j) {
        prefix[c + j] += row[c + j];
        l[j] = std::min(l[j], prefix[c + j]);
        r[j] = std::min(r[j], total[c + j] - prefix[c + j]);
      }
    for (; c < cols_; ++c) {
      prefix[c] += row[c];
      l[0] = std::min(l[0], prefix[c]);
      r[0] = std::min(r[0], total[c] - prefix[c]);
    }
    return {std::min(std::min(l[0], l[1]), std::min(l[2], l[3])),
            std::min(std::min(r[0], r[1]), std::min(r[2], r[3]))};
  }

  /// As children(), each child's config weighed with the prior (TreeOptions::prior_shapes)
  /// over its `nl` and `nr` shapes; `prow` is the prior's row of the shape `row` is of.
  std::pair<double, double>
  children_with_prior(const Cost* row, const double* prow, std::vector<double>& prefix,
                      const std::vector<double>& total, std::vector<double>& prefix_p,
                      const std::vector<double>& total_p, std::size_t nl, std::size_t nr) const {
    const double kl = o_.prior_shapes / double(nl), kr = o_.prior_shapes / double(nr);
    double l = std::numeric_limits<double>::infinity(), r = l;
    for (std::size_t c = 0; c < cols_; ++c) {
      prefix[c] += row[c];
      prefix_p[c] += prow[c];
      l = std::min(l, prefix[c] + kl * prefix_p[c]);
      r = std::min(r, total[c] - prefix[c] + kr * (total_p[c] - prefix_p[c]));
    }
    return {l, r};
  }

  /// Of the greedy split `greedy` and the next best `candidates` by gain, `o_.lookahead` in
  /// all, the one with the largest own gain plus the better child's greedy split gain (ties:
  /// the earlier, so weighing one is greedy growth; item lists left empty).
  NodeSplit look_ahead(const Node& n, const NodeSplit& greedy,
                       std::vector<NodeSplit> candidates) const {
    const auto same = [&](const NodeSplit& s) {
      return s.feature == greedy.feature && s.threshold == greedy.threshold;
    };
    candidates.erase(std::remove_if(candidates.begin(), candidates.end(), same), candidates.end());
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const NodeSplit& a, const NodeSplit& b) { return a.gain > b.gain; });
    candidates.insert(candidates.begin(), greedy);
    if (candidates.size() > std::size_t(o_.lookahead)) candidates.resize(std::size_t(o_.lookahead));
    std::size_t pick = 0;
    double best_score = -1;
    for (std::size_t k = 0; k < candidates.size(); ++k) {
      const NodeSplit& s = candidates[k];
      Node l, r;
      split_items(n, s.feature, s.threshold, l, r);
      double next = 0;
      for (Node* c : {&l, &r}) {
        leaf(*c);
        if (const auto g = best_split(*c, false)) next = std::max(next, g->gain);
      }
      const double score = s.gain + next;
      if (score > best_score + 1e-12) {
        best_score = score;
        pick = k;
      }
    }
    return candidates[pick];
  }

  /// The tree of at most max_leaves leaves; with `each`, also the tree after every split (and
  /// the one-leaf tree) in growth order, padded with the last when growth stops early.
  Program fit(std::vector<Program>* each = nullptr) {
    std::vector<Node> leaves(1);
    leaves[0].items.resize(shapes_.size());
    std::iota(leaves[0].items.begin(), leaves[0].items.end(), std::size_t(0));
    leaves[0].sorted.resize(o_.features.size());
    for (std::size_t f = 0; f < o_.features.size(); ++f) {
      const std::vector<std::int64_t>& value = vals_[f];
      std::vector<std::size_t>& order = leaves[0].sorted[f];
      order = leaves[0].items;
      std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
        return value[a] < value[b] || (value[a] == value[b] && a < b);
      });
    }
    leaf(leaves[0]);
    leaves[0].split = best_split(leaves[0]);
    if (each) each->push_back(program_of(leaves));
    while (int(leaves.size()) < std::max(1, o_.max_leaves)) {
      std::ptrdiff_t pick = -1;
      for (std::size_t k = 0; k < leaves.size(); ++k)
        if (leaves[k].split &&
            (pick < 0 || leaves[k].split->gain > leaves[std::size_t(pick)].split->gain))
          pick = std::ptrdiff_t(k);
      if (pick < 0) break;
      Node parent = std::move(leaves[std::size_t(pick)]);
      leaves.erase(leaves.begin() + pick);
      NodeSplit& split = parent.split.value(); // engaged: only a leaf with a split is picked
      Comparison le = o_.features[split.feature];
      le.op = CmpOp::le;
      le.value = split.threshold;
      Comparison gt = le;
      gt.op = CmpOp::gt;
      Node l, r;
      split_sorted(parent, split.feature, split.threshold, l, r);
      l.items = std::move(split.left);
      r.items = std::move(split.right);
      l.path = r.path = parent.path;
      l.path.terms.push_back(le);
      r.path.terms.push_back(gt);
      for (Node* c : {&l, &r}) {
        leaf(*c);
        c->split = best_split(*c);
      }
      // Keep leaves in tree order (left before right) so the program reads like the tree.
      leaves.insert(leaves.begin() + pick, std::move(r));
      leaves.insert(leaves.begin() + pick, std::move(l));
      if (each) each->push_back(program_of(leaves));
    }
    if (each) {
      while (int(each->size()) < std::max(1, o_.max_leaves))
        each->push_back(each->back());
      return each->back();
    }
    return program_of(leaves);
  }

private:
  /// The items of `n` on each side of `threshold` of feature `f`, into `l` and `r` (items in
  /// `n`'s order, and the per-feature sorted lists).
  void split_items(const Node& n, std::size_t f, std::int64_t threshold, Node& l, Node& r) const {
    const std::vector<std::int64_t>& value = vals_[f];
    for (std::size_t i : n.items)
      (value[i] <= threshold ? l : r).items.push_back(i);
    split_sorted(n, f, threshold, l, r);
  }
  /// `n`'s sorted lists filtered into `l` and `r` by feature `f` against `threshold`.
  void split_sorted(const Node& n, std::size_t f, std::int64_t threshold, Node& l, Node& r) const {
    const std::vector<std::int64_t>& value = vals_[f];
    std::size_t left = 0;
    for (std::size_t i : n.items)
      left += value[i] <= threshold;
    l.sorted.resize(n.sorted.size());
    r.sorted.resize(n.sorted.size());
    for (std::size_t g = 0; g < n.sorted.size(); ++g) {
      l.sorted[g].resize(left);
      r.sorted[g].resize(n.items.size() - left);
      std::size_t a = 0, b = 0;
      for (std::size_t i : n.sorted[g])
        if (value[i] <= threshold)
          l.sorted[g][a++] = i;
        else
          r.sorted[g][b++] = i;
    }
  }

  /// Drops the columns no subset of the items can prefer: a column d dominates c when its cost
  /// is at most c's on every item (and its prior's too) and d comes first or is below c on every
  /// item. A dominated column's sum over any items is then at least d's, so no split's children
  /// cost less for it, and the first column of least sum (leaf) is never it: the tree is the same
  /// to the bit. A full exhaustive table keeps a few hundred of thousands of configs (the
  /// lecture's h100 table 207 of 4,184), and every split scans each kept column once per item.
  void drop_dominated() {
    const std::size_t n = shapes_.size();
    // Below a million cells the splits cost less than the search for dominated columns.
    constexpr std::size_t kPruneCells = std::size_t(1) << 20;
    if (cols_ < 2 || n == 0 || n * cols_ < kPruneCells) return;
    const std::vector<Cost>& t = *logt_;
    std::vector<double> total(cols_, 0.0);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t c = 0; c < cols_; ++c)
        total[c] += t[i * cols_ + c];
    std::vector<std::size_t> order(cols_);
    std::iota(order.begin(), order.end(), std::size_t(0));
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
      return total[a] < total[b] || (total[a] == total[b] && a < b);
    });
    const auto below = [&](std::size_t d, std::size_t c, bool& strict) {
      strict = true;
      for (std::size_t i = 0; i < n; ++i) {
        const double x = double(t[i * cols_ + d]), y = double(t[i * cols_ + c]);
        if (!(x <= y)) return false; // also NaN: keep both
        strict = strict && x < y;
        if (prior_) {
          const double px = (*prior_)[i * cols_ + d], py = (*prior_)[i * cols_ + c];
          if (!(px <= py)) return false;
          strict = strict && px < py;
        }
      }
      return true;
    };
    std::vector<bool> dropped(cols_, false);
    std::vector<std::size_t> live; // kept so far, in `order`
    // Each column is held against the kept ones of least total only (a dominator has a total at
    // most its own, and one of the first few usually is one): a column kept for want of a
    // longer search costs time, never a different tree.
    constexpr std::size_t kDominators = 32;
    for (std::size_t c : order) {
      bool gone = false;
      for (std::size_t j = 0; j < live.size() && j < kDominators; ++j) {
        const std::size_t d = live[j];
        bool strict = false;
        if (below(d, c, strict) && (d < c || strict)) {
          gone = true;
          break;
        }
      }
      if (gone)
        dropped[c] = true;
      else
        live.push_back(c);
    }
    if (live.size() == cols_) return;
    for (std::size_t c = 0; c < cols_; ++c)
      if (!dropped[c]) keep_.push_back(c);
    const std::size_t k = keep_.size();
    own_.resize(n * k);
    for (std::size_t i = 0; i < n; ++i)
      for (std::size_t j = 0; j < k; ++j)
        own_[i * k + j] = t[i * cols_ + keep_[j]];
    if (prior_) {
      own_prior_.resize(n * k);
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < k; ++j)
          own_prior_[i * k + j] = (*prior_)[i * cols_ + keep_[j]];
      prior_ = &own_prior_;
    }
    logt_ = &own_;
    cols_ = k;
  }

  /// The config of column `c` of the cost table the fitter reads.
  const Config& config_of(int c) const {
    return configs_[keep_.empty() ? std::size_t(c) : keep_[std::size_t(c)]];
  }

  /// The leaves as a simplified program: one rule per leaf but the last, the default.
  Program program_of(const std::vector<Node>& leaves) const {
    Program p;
    for (std::size_t k = 0; k + 1 < leaves.size(); ++k)
      p.rules.push_back(Rule{leaves[k].path, config_of(leaves[k].config)});
    p.default_config = config_of(leaves.back().config);
    return o_.simplified ? simplify(p) : p;
  }

  const Shape& shape(std::size_t i) const { return shapes_[i]; }

  const std::vector<Shape>& shapes_;
  const std::vector<Config>& configs_;
  const TreeOptions& o_;
  std::size_t cols_ = 0;
  const std::vector<Cost>* logt_;              ///< cost (weight x log time), items x columns
  const std::vector<double>* prior_ = nullptr; ///< the prior, items x columns (nullptr: none)
  /// With dominated columns dropped: the kept columns' configs (indices into configs_), and the
  /// compacted tables logt_ and prior_ then point at. Empty: every column kept.
  std::vector<std::size_t> keep_;
  std::vector<Cost> own_;
  std::vector<double> own_prior_;
  /// Per feature, its value on every item.
  std::vector<std::vector<std::int64_t>> vals_;
};

} // namespace

std::int64_t tree_threshold(const Comparison& f, std::int64_t a, std::int64_t b,
                            const TreeOptions& o) {
  const std::int64_t half = a + (b - a - 1) / 2; // halfway, as an integer: a <= t < b
  if (o.round_thresholds_units <= 0) return half;
  // Round values in [a, b - 1], the one nearest halfway wins (the smaller on ties).
  std::optional<std::int64_t> best;
  auto consider = [&](std::int64_t v) {
    if (v < a || v > b - 1) return;
    if (!best || std::abs(v - half) < std::abs(*best - half)) best = v;
  };
  if (f.feature == Feature::tiles) {
    const std::int64_t step = std::max(1, o.round_thresholds_units / 2);
    for (std::int64_t v = (a / step) * step; v <= b - 1 && v <= kDimMax - step; v += step)
      consider(v);
  } else {
    for (std::int64_t p = 1; p <= b - 1 && p <= kDimMax / 2; p *= 2) {
      consider(p);
      consider(p + p / 2);
    }
  }
  return best.value_or(half);
}

std::vector<Comparison> default_tree_features() {
  return {feature(Feature::M),
          feature(Feature::N),
          feature(Feature::K),
          feature(Feature::MN),
          feature(Feature::tiles, 64, 64),
          feature(Feature::tiles, 128, 128)};
}

std::vector<Comparison> parse_tree_features(const std::string& text) {
  std::vector<Comparison> out;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t comma = text.find(',', start);
    const std::string name =
        text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    Comparison c;
    int a = 0, b = 0;
    char rest = 0;
    if (name == "M" || name == "N" || name == "K") {
      c = feature(Feature(name == "M" ? 0 : name == "N" ? 1 : 2));
    } else if (name == "MN") {
      c = feature(Feature::MN);
    } else if (std::sscanf(name.c_str(), "tiles%dx%d%c", &a, &b, &rest) == 2 && a >= 1 && b >= 1 &&
               a <= kMaxTileSize && b <= kMaxTileSize) {
      c = feature(Feature::tiles, a, b);
    } else {
      throw InputError(fmt::format("unknown tree feature '{}' (expected M, N, K, MN or tilesAxB, "
                                   "e.g. tiles64x64)",
                                   name));
    }
    for (const auto& o : out)
      if (o.same_feature(c)) throw InputError(fmt::format("tree feature '{}' given twice", name));
    out.push_back(c);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::string tree_features_text(const std::vector<Comparison>& features) {
  std::string out;
  for (const auto& f : features) {
    if (!out.empty()) out += ',';
    if (f.feature == Feature::MN)
      out += "MN";
    else if (f.feature == Feature::tiles)
      out += fmt::format("tiles{}x{}", f.tile_m, f.tile_n);
    else
      out += feature_name(f.feature);
  }
  return out;
}

namespace {

/// `options` with the default features when it names none; throws std::invalid_argument
/// (naming `who`) when the cost table is not shapes x configs or is empty, or a non-empty
/// prior table is not of its size.
TreeOptions checked_tree_options(const std::vector<Shape>& shapes,
                                 const std::vector<Config>& configs,
                                 const std::vector<double>& cost, const TreeOptions& options,
                                 const std::vector<double>& prior, const char* who) {
  if (shapes.empty() || configs.empty() || cost.size() != shapes.size() * configs.size())
    throw std::invalid_argument(std::string(who) +
                                ": the cost table must be shapes x configs, non-empty");
  if (!prior.empty() && prior.size() != cost.size())
    throw std::invalid_argument(std::string(who) + ": the prior table must be shapes x configs");
  TreeOptions o = options;
  if (o.features.empty()) o.features = default_tree_features();
  return o;
}

} // namespace

Program fit_tree(const std::vector<Shape>& shapes, const std::vector<Config>& configs,
                 const std::vector<double>& cost, const TreeOptions& options,
                 const std::vector<double>& prior) {
  const TreeOptions o = checked_tree_options(shapes, configs, cost, options, prior, "fit_tree");
  return TreeFitter<double>(shapes, configs, cost, o, prior).fit();
}

std::vector<Program> fit_tree_sequence(const std::vector<Shape>& shapes,
                                       const std::vector<Config>& configs,
                                       const std::vector<double>& cost, const TreeOptions& options,
                                       const std::vector<double>& prior) {
  const TreeOptions o =
      checked_tree_options(shapes, configs, cost, options, prior, "fit_tree_sequence");
  std::vector<Program> each;
  TreeFitter<double>(shapes, configs, cost, o, prior).fit(&each);
  return each;
}

namespace {

/// The cost table of `train` (weight x log time; pairs that cannot run cost as if e^1000
/// times slower: never chosen while another runs), with elements of type `Cost`.
template <class Cost> std::vector<Cost> cost_table(const Scorer& train) {
  const TimeTable& t = train.table();
  const std::size_t cols = t.configs().size();
  std::vector<Cost> cost(train.rows().size() * cols);
  for (std::size_t i = 0; i < train.rows().size(); ++i)
    for (std::size_t c = 0; c < cols; ++c) {
      const double v = t.time(train.rows()[i], c);
      cost[i * cols + c] = Cost(train.weights()[i] * (std::isfinite(v) ? std::log(v) : 1e3));
    }
  return cost;
}

} // namespace

Program fit_decision_tree(const Scorer& train, const TreeOptions& options) {
  const TimeTable& t = train.table();
  std::vector<Shape> shapes;
  for (std::size_t r : train.rows())
    shapes.push_back(t.shapes()[r]);
  // A table too large to store in the time table (100k shapes: 50k training rows x 4184
  // configs, 1.7 GB in doubles) is held in floats, half the memory; every smaller one in
  // doubles, as before.
  if (shapes.size() * t.configs().size() > kFloatCostCells) {
    TreeOptions o = options;
    if (o.features.empty()) o.features = default_tree_features();
    const std::vector<float> cost = cost_table<float>(train);
    return TreeFitter<float>(shapes, t.configs(), cost, o).fit();
  }
  return fit_tree(shapes, t.configs(), cost_table<double>(train), options);
}

} // namespace tv
