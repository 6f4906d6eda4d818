#include "evolve/leaf_explore.hpp"

#include "ir/plural.hpp"

#include <algorithm>
#include <cmath>
#include <fmt/format.h>
#include <map>

namespace tv {

long long uncapped_explore_limit(long long exhaustive, long long so_far) {
  const auto share = [&](double s) { return static_cast<long long>(s * double(exhaustive)); };
  return std::max(0LL,
                  std::min(share(kUncappedExploreShare), share(kUncappedExploreCeiling) - so_far));
}

std::string ExploredLeaves::summary() const {
  return fmt::format("{} timed in {}{}", counted(pairs, "pair", "pairs"),
                     counted(rounds, "round", "rounds"),
                     limited ? " (stopped at the kernel-run limit)" : "");
}

namespace {

/// Configs that rank among the two fastest measured on the shapes `which`, by how many of
/// them they rank on (first place counts two, second one), ties in first-seen order.
std::vector<Config> leaf_candidates(const std::vector<std::size_t>& which,
                                    const ExploreHooks& hooks, std::size_t depth) {
  std::vector<Config> order;
  std::map<std::size_t, int> points; // index into order -> points
  for (std::size_t i : which) {
    const std::vector<Config> top = hooks.fastest(i, depth);
    for (std::size_t rank = 0; rank < top.size(); ++rank) {
      auto at = std::find(order.begin(), order.end(), top[rank]);
      const std::size_t k = std::size_t(at - order.begin());
      if (at == order.end()) order.push_back(top[rank]);
      points[k] += int(depth - rank);
    }
  }
  std::vector<std::size_t> idx(order.size());
  for (std::size_t k = 0; k < idx.size(); ++k)
    idx[k] = k;
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return points[a] > points[b]; });
  std::vector<Config> out;
  for (std::size_t k : idx)
    out.push_back(order[k]);
  return out;
}

/// The configs of hooks.space whose prior summed over `which` is finite, least first (ties:
/// the earlier), ranked lazily: a leaf mostly takes the first few of thousands.
class PriorRanking {
public:
  PriorRanking(const std::vector<std::size_t>& which, const ExploreHooks& hooks) {
    if (hooks.space.empty() || !hooks.prior) return;
    // Row by row (each config's sum adds the shapes in the same order as one at a time would).
    std::vector<double> sum(hooks.space.size(), 0.0);
    for (std::size_t i : which) {
      const double* row = hooks.prior(i);
      for (std::size_t k = 0; k < sum.size(); ++k)
        sum[k] += row[k];
    }
    ranked_.reserve(sum.size());
    for (std::size_t k = 0; k < sum.size(); ++k)
      if (std::isfinite(sum[k])) ranked_.emplace_back(sum[k], k);
  }
  std::size_t size() const { return ranked_.size(); }
  /// The index into hooks.space of the `j`th ranked config (j < size()).
  std::size_t at(std::size_t j) {
    if (j >= sorted_) {
      // (sum, index) is a total order: the first ones come out as a stable sort by sum puts them.
      const std::size_t upto = std::min(ranked_.size(), std::max<std::size_t>(2 * j + 8, 16));
      std::partial_sort(ranked_.begin() + std::ptrdiff_t(sorted_),
                        ranked_.begin() + std::ptrdiff_t(upto), ranked_.end());
      sorted_ = upto;
    }
    return ranked_[j].second;
  }

private:
  std::vector<std::pair<double, std::size_t>> ranked_;
  std::size_t sorted_ = 0; ///< ranked_[0, sorted_) is in its final order
};

} // namespace

ExploredLeaves explore_leaves(const std::vector<Shape>& shapes, const ExploreHooks& hooks,
                              int per_leaf, int max_rounds) {
  ExploredLeaves out;
  for (int round = 0; round < max_rounds; ++round) {
    const Program tree = hooks.fit();
    std::vector<std::vector<std::size_t>> leaf(tree.rules.size() + 1);
    for (std::size_t i = 0; i < shapes.size(); ++i) {
      const int r = tree.deciding_rule(shapes[i]);
      leaf[r < 0 ? tree.rules.size() : std::size_t(r)].push_back(i);
    }
    long long timed_now = 0;
    for (std::size_t l = 0; l < leaf.size(); ++l) {
      if (leaf[l].empty()) continue;
      // The leaf's config, then the measured winners and the prior's choices in turn.
      const std::vector<Config> won = leaf_candidates(leaf[l], hooks, 2);
      PriorRanking priored(leaf[l], hooks);
      // The candidates in turn: the leaf's config, then a measured winner and the prior's next
      // choice, one of each in turn.
      const Config& own = l < tree.rules.size() ? tree.rules[l].config : tree.default_config;
      const std::size_t count = 1 + won.size() + priored.size();
      std::size_t from_won = 0, from_prior = 0;
      int tried = 0;
      std::vector<Config> seen;
      for (std::size_t n = 0; n < count; ++n) {
        if (tried >= per_leaf) break;
        // n = 0: the leaf's own; then won[0], prior 0, won[1], prior 1, ... (either list may
        // end first, the other goes on).
        const Config* candidate = &own;
        if (n > 0) {
          const bool take_won =
              from_won < won.size() && (from_won <= from_prior || from_prior >= priored.size());
          candidate = take_won ? &won[from_won++] : &hooks.space[priored.at(from_prior++)];
        }
        const Config& c = *candidate;
        if (std::find(seen.begin(), seen.end(), c) != seen.end()) continue;
        seen.push_back(c);
        std::vector<std::size_t> missing;
        for (std::size_t i : leaf[l])
          if (!hooks.timed(i, c)) missing.push_back(i);
        if (missing.empty()) continue;
        ++tried;
        if (!hooks.time(c, missing)) {
          out.limited = true;
          out.pairs += timed_now;
          if (timed_now > 0) ++out.rounds;
          return out;
        }
        timed_now += (long long)missing.size();
      }
    }
    if (timed_now == 0) break;
    out.pairs += timed_now;
    ++out.rounds;
  }
  return out;
}

} // namespace tv
