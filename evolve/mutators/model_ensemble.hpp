#pragma once
/// Several models with weights (`--llm-model a:0.8,b:0.2`); each request's model is drawn from
/// its own seed, so the choice is part of the run's seeded stream.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// One model and its share of the requests.
struct WeightedModel {
  std::string name;
  double weight = 1;
};

/// Models and weights.
class ModelEnsemble {
public:
  /// Parses "NAME[:WEIGHT],NAME[:WEIGHT],...". A weight is the number after the last ':'
  /// (so Ollama tags such as "qwen2.5-coder:7b" stay names; write "NAME:1" when a tag is a
  /// plain number). Throws InputError for an empty list or name, a weight that is not a
  /// positive finite number, or a name given twice.
  static ModelEnsemble parse(std::string_view text);
  /// From explicit models (same checks as parse).
  explicit ModelEnsemble(std::vector<WeightedModel> models);
  ModelEnsemble() = default;
  /// The model for the request with `seed` (the same seed always picks the same model).
  const std::string& pick(std::uint64_t seed) const;
  /// Models in the order given.
  const std::vector<WeightedModel>& models() const { return models_; }
  /// "a:0.8, b:0.2", or just "a" for a single model.
  std::string describe() const;
  /// [{"name": ..., "weight": ...}, ...]
  nlohmann::json to_json() const;
  /// Reads to_json's form; throws InputError on a bad field.
  static ModelEnsemble from_json(const nlohmann::json& j);

private:
  std::vector<WeightedModel> models_;
};

} // namespace tv
