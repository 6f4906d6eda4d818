#include "experiments/lecture_sections.hpp"

#include <cmath>
#include <fmt/format.h>

namespace tv {

std::string method_name(const Catalogue& cat, const MethodResult& m) {
  const std::string key = "method." + m.key;
  if (!cat.entries().count(key)) return m.label;
  CatalogueArgs args;
  if (m.program) {
    args["config"] = m.program->default_config.brief();
    args["rules"] = std::to_string(m.program->rules.size());
    args["leaves"] = std::to_string(m.program->rules.size() + 1);
  }
  return cat.text(key, args);
}

std::string method_cost_note(const Catalogue& cat, const MethodResult& m, std::size_t configs,
                             std::size_t train_shapes) {
  const std::string key = m.key == "best_single" || m.key == "per_m_table" || m.key == "tree"
                              ? std::string("cost.tuning")
                              : "cost." + m.key;
  if (!cat.entries().count(key)) return m.cost_note;
  return cat.text(key,
                  {{"configs", std::to_string(configs)}, {"train", std::to_string(train_shapes)}});
}

std::string split_name(const Catalogue& cat, const std::string& spec) {
  if (spec == "random") return cat.text("split.random.label");
  if (spec.rfind("model:", 0) == 0)
    return cat.text("split.model.label", {{"model", spec.substr(6)}});
  return spec;
}

std::string split_description(const Catalogue& cat, const std::string& spec, std::uint64_t seed,
                              std::size_t train, std::size_t test, const std::string& fallback) {
  const CatalogueArgs counts{{"seed", std::to_string(seed)},
                             {"train", std::to_string(train)},
                             {"test", std::to_string(test)}};
  if (spec == "random") return cat.text("split.random.description", counts);
  if (spec.rfind("model:", 0) == 0) {
    CatalogueArgs a = counts;
    a["model"] = spec.substr(6);
    return cat.text("split.model.description", a);
  }
  return fallback;
}

std::string format_share(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  return fraction < 0.1 ? fmt::format("{:.2f}%", 100.0 * fraction) : format_percent(fraction);
}

} // namespace tv
