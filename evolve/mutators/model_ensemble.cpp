#include "evolve/mutators/model_ensemble.hpp"

#include "evolve/mutators/excerpt.hpp"
#include "ir/error.hpp"
#include "ir/rng.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace tv {

namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

/// The number `s` when all of it is one, else false.
bool parse_number(std::string_view s, double& out) {
  if (s.empty()) return false;
  const char* end = s.data() + s.size();
  const auto r = std::from_chars(s.data(), end, out);
  return r.ec == std::errc() && r.ptr == end;
}

std::string fmt_weight(double w) {
  return fmt::format("{:g}", w);
}

} // namespace

ModelEnsemble::ModelEnsemble(std::vector<WeightedModel> models) : models_(std::move(models)) {
  if (models_.empty()) throw InputError("--llm-model: no model given");
  for (std::size_t i = 0; i < models_.size(); ++i) {
    const auto& m = models_[i];
    if (m.name.empty()) throw InputError("--llm-model: empty model name");
    if (!(m.weight > 0) || !std::isfinite(m.weight))
      throw InputError(fmt::format("--llm-model: the weight of '{}' must be a positive number",
                                   excerpt(m.name, 80)));
    for (std::size_t k = 0; k < i; ++k)
      if (models_[k].name == m.name)
        throw InputError(fmt::format("--llm-model: '{}' is given twice", excerpt(m.name, 80)));
  }
}

ModelEnsemble ModelEnsemble::parse(std::string_view text) {
  std::vector<WeightedModel> models;
  std::size_t start = 0;
  while (start <= text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view item = trim(text.substr(start, end - start));
    WeightedModel m;
    m.name = std::string(item);
    if (const auto colon = item.rfind(':'); colon != std::string_view::npos) {
      double w = 0;
      const std::string_view tail = trim(item.substr(colon + 1));
      if (parse_number(tail, w)) {
        m.name = std::string(trim(item.substr(0, colon)));
        m.weight = w;
        if (!(w > 0) || !std::isfinite(w))
          throw InputError(fmt::format("--llm-model '{}': the weight of '{}' must be a positive "
                                       "number, not {}",
                                       excerpt(text, 200), excerpt(m.name, 80), excerpt(tail, 40)));
      }
    }
    if (m.name.empty())
      throw InputError(fmt::format(
          "--llm-model '{}': empty model name (expected NAME[:WEIGHT],...)", excerpt(text, 200)));
    models.push_back(std::move(m));
    start = end + 1;
  }
  return ModelEnsemble(std::move(models));
}

const std::string& ModelEnsemble::pick(std::uint64_t seed) const {
  if (models_.size() == 1) return models_[0].name;
  double total = 0;
  for (const auto& m : models_)
    total += m.weight;
  // A stream of its own: the choice must not disturb what else the seed is used for.
  Rng rng(seed ^ 0x6d6f64656c706b31ULL);
  const double x = rng.uniform01() * total;
  double acc = 0;
  for (const auto& m : models_) {
    acc += m.weight;
    if (x < acc) return m.name;
  }
  return models_.back().name;
}

std::string ModelEnsemble::describe() const {
  if (models_.size() == 1) return models_[0].name;
  std::string out;
  for (const auto& m : models_)
    out += (out.empty() ? "" : ", ") + m.name + ":" + fmt_weight(m.weight);
  return out;
}

nlohmann::json ModelEnsemble::to_json() const {
  nlohmann::json j = nlohmann::json::array();
  for (const auto& m : models_)
    j.push_back({{"name", m.name}, {"weight", m.weight}});
  return j;
}

ModelEnsemble ModelEnsemble::from_json(const nlohmann::json& j) {
  if (!j.is_array()) throw InputError("models: expected an array");
  std::vector<WeightedModel> models;
  for (const auto& m : j) {
    if (!m.is_object() || !m.contains("name") || !m["name"].is_string() || !m.contains("weight") ||
        !m["weight"].is_number())
      throw InputError("models: each entry needs a string 'name' and a number 'weight'");
    models.push_back({m["name"].get<std::string>(), m["weight"].get<double>()});
  }
  return ModelEnsemble(std::move(models));
}

} // namespace tv
