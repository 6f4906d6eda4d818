#include "models/split.hpp"

#include "ir/error.hpp"
#include "ir/rng.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <string_view>

namespace tv {

namespace {

/// "names look like '<first name>'" - a hint for a model split that matched nothing.
std::string name_hint(const std::vector<Shape>& shapes) {
  for (const Shape& s : shapes)
    if (!s.name.empty()) return fmt::format("names look like '{}'", s.name);
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
  if (spec.starts_with(model_tag))
    return model_split(shapes, spec, std::string_view(spec).substr(model_tag.size()));
  if (spec == "none") {
    if (shapes.empty()) throw InputError("split 'none' has no shapes to train or test on");
    Split out{shapes, shapes, ""};
    out.description = fmt::format("no split: train and test are all {} shapes", shapes.size());
    return out;
  }
  throw InputError(fmt::format("unknown split '{}' (expected random, model:NAME or none)", spec));
}

} // namespace tv
