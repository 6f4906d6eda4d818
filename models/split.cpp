#include "models/split.hpp"

#include "ir/error.hpp"
#include "ir/rng.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <numeric>
#include <string_view>

namespace tv {

namespace {

/// "names look like '<first name>'" - a hint for a model split that matched nothing.
std::string name_hint(const std::vector<Shape>& shapes) {
  for (const Shape& s : shapes)
    if (!s.name.empty()) return fmt::format("names look like '{}'", s.label());
  return "the shapes have no names";
}

Split random_split(const std::vector<Shape>& shapes, std::uint64_t seed) {
  const std::size_t n = shapes.size();
  if (n < 2)
    throw InputError(
        fmt::format("split 'random' needs at least 2 shapes to fill both halves, got {}", n));
  // Shuffling positions is the same permutation as shuffling the shapes themselves.
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t(0));
  Rng rng(seed);
  rng.shuffle(order);
  const auto mid = order.begin() + std::ptrdiff_t((n + 1) / 2);
  // Each half keeps file order, so the output is stable and readable.
  std::sort(order.begin(), mid);
  std::sort(mid, order.end());
  Split out;
  for (auto it = order.begin(); it != order.end(); ++it)
    (it < mid ? out.train : out.test).push_back(shapes[*it]);
  out.description = fmt::format("random half/half (seed {})", seed);
  return out;
}

Split grouped_split(const std::vector<Shape>& shapes, std::uint64_t seed) {
  // Groups of shapes with the same (M, N, K), in order of first appearance.
  std::vector<std::vector<std::size_t>> groups;
  std::vector<std::array<std::int64_t, 3>> keys;
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const std::array<std::int64_t, 3> k{shapes[i].M, shapes[i].N, shapes[i].K};
    const auto it = std::find(keys.begin(), keys.end(), k);
    if (it == keys.end()) {
      keys.push_back(k);
      groups.push_back({i});
    } else {
      groups[std::size_t(it - keys.begin())].push_back(i);
    }
  }
  if (groups.size() < 2)
    throw InputError(fmt::format("split 'random-mnk' needs at least 2 distinct (M, N, K) to fill "
                                 "both halves, got {}",
                                 groups.size()));
  std::vector<std::size_t> order(groups.size());
  std::iota(order.begin(), order.end(), std::size_t(0));
  Rng rng(seed);
  rng.shuffle(order);
  // Whole groups go to train until it holds at least half of the shapes; the last group always
  // goes to test, so neither half is empty.
  std::vector<bool> in_train(shapes.size(), false);
  std::size_t count = 0;
  for (std::size_t g = 0; g + 1 < order.size() && 2 * count < shapes.size(); ++g)
    for (std::size_t i : groups[order[g]]) {
      in_train[i] = true;
      ++count;
    }
  Split out;
  for (std::size_t i = 0; i < shapes.size(); ++i)
    (in_train[i] ? out.train : out.test).push_back(shapes[i]);
  out.description = fmt::format("random half/half by (M, N, K) (seed {}; {} train, {} test)", seed,
                                out.train.size(), out.test.size());
  return out;
}

Split range_split(const std::vector<Shape>& shapes, std::uint64_t seed) {
  const RangeSide side = range_split_side(seed);
  const auto value = [&](const Shape& s) {
    switch (side.feature) {
    case 0:
      return double(s.M) * double(s.N) * double(s.K);
    case 1:
      return double(s.M);
    case 2:
      return double(s.N);
    default:
      return double(s.K);
    }
  };
  std::vector<double> values;
  for (const Shape& s : shapes)
    values.push_back(value(s));
  std::sort(values.begin(), values.end());
  values.erase(std::unique(values.begin(), values.end()), values.end());
  if (values.size() < 2)
    throw InputError(fmt::format("split 'range' (seed {}) needs at least 2 distinct values of {} "
                                 "to fill both sides, got {}",
                                 seed, side.name, values.size()));
  if (!side.train_smallest) std::reverse(values.begin(), values.end());
  // Whole values go to train until it holds at least half of the shapes; the last value always
  // goes to test, so neither side is empty.
  std::size_t count = 0, taken = 0;
  while (taken + 1 < values.size() && 2 * count < shapes.size()) {
    for (const Shape& s : shapes)
      count += value(s) == values[taken];
    ++taken;
  }
  const double cut = values[taken - 1]; // the last value on the training side
  Split out;
  for (const Shape& s : shapes) {
    const bool train = side.train_smallest ? value(s) <= cut : value(s) >= cut;
    (train ? out.train : out.test).push_back(s);
  }
  out.description =
      fmt::format("range: train on the {} shapes of {} {}, test on the {} of {} (seed {})",
                  out.train.size(), side.train_smallest ? "smallest" : "largest", side.name,
                  out.test.size(), side.train_smallest ? "largest" : "smallest", seed);
  return out;
}

Split model_split(const std::vector<Shape>& shapes, const std::string& spec,
                  std::string_view model) {
  if (model.empty())
    throw InputError(fmt::format("split '{}' needs a model name (model:NAME)", spec));
  const std::string prefix = std::string(model) + ":";
  Split out;
  for (const Shape& s : shapes)
    (s.name.starts_with(prefix) ? out.train : out.test).push_back(s);
  if (out.train.empty())
    throw InputError(
        fmt::format("split '{}' selects no training shapes; {}", spec, name_hint(shapes)));
  if (out.test.empty())
    throw InputError(
        fmt::format("split '{}' leaves no test shapes: all {} shapes are from model {}", spec,
                    shapes.size(), model));
  out.description = fmt::format("train on model {} ({} shapes), test on the rest ({})", model,
                                out.train.size(), out.test.size());
  return out;
}

} // namespace

Split make_split(const std::vector<Shape>& shapes, const std::string& spec, std::uint64_t seed) {
  constexpr std::string_view model_tag = "model:";
  if (spec == "random") return random_split(shapes, seed);
  if (spec == "random-mnk") return grouped_split(shapes, seed);
  if (spec == "range") return range_split(shapes, seed);
  if (spec.starts_with(model_tag))
    return model_split(shapes, spec, std::string_view(spec).substr(model_tag.size()));
  if (spec == "none") {
    if (shapes.empty()) throw InputError("split 'none' has no shapes to train or test on");
    Split out{shapes, shapes, ""};
    out.description = fmt::format("no split: train and test are all {} shapes", shapes.size());
    return out;
  }
  throw InputError(fmt::format(
      "unknown split '{}' (expected random, random-mnk, range, model:NAME or none)", spec));
}

RangeSide range_split_side(std::uint64_t seed) {
  static constexpr std::array<const char*, 4> kNames{"M*N*K", "M", "N", "K"};
  const int feature = int(seed / 2 % 4);
  return {feature, kNames[std::size_t(feature)], seed % 2 == 0};
}

} // namespace tv
