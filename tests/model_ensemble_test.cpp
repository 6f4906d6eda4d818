#include "evolve/mutators/model_ensemble.hpp"
#include "ir/error.hpp"

#include <doctest/doctest.h>
#include <map>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace model_ensemble_test {

using namespace tv;

TEST_CASE("model_ensemble: names, weights and Ollama tags") {
  const auto e = ModelEnsemble::parse("a:0.8, b:0.2");
  REQUIRE(e.models().size() == 2);
  CHECK(e.models()[0].name == "a");
  CHECK(e.models()[1].weight == doctest::Approx(0.2));
  CHECK(e.describe() == "a:0.8, b:0.2");
  const auto tag = ModelEnsemble::parse("qwen2.5-coder:7b");
  CHECK(tag.models()[0].name == "qwen2.5-coder:7b");
  CHECK(tag.models()[0].weight == 1);
  CHECK(ModelEnsemble::parse("qwen2.5-coder:7b:3,llama3:1").models()[0].name == "qwen2.5-coder:7b");
  CHECK(ModelEnsemble::from_json(e.to_json()).describe() == e.describe());
}

TEST_CASE("model_ensemble: bad lists are refused") {
  CHECK_THROWS_AS(ModelEnsemble::parse(""), InputError);
  CHECK_THROWS_AS(ModelEnsemble::parse("a,,b"), InputError);
  CHECK_THROWS_AS(ModelEnsemble::parse("a:0"), InputError);
  CHECK_THROWS_AS(ModelEnsemble::parse("a:-1"), InputError);
  CHECK_THROWS_AS(ModelEnsemble::parse("a:1,a:2"), InputError);
  CHECK_THROWS_AS(ModelEnsemble::parse(":1"), InputError);
}

TEST_CASE("model_ensemble: the choice follows the seed and the weights") {
  const auto e = ModelEnsemble::parse("a:0.8,b:0.2");
  std::map<std::string, int> n;
  for (std::uint64_t seed = 0; seed < 5000; ++seed) {
    ++n[e.pick(seed)];
    CHECK(e.pick(seed) == e.pick(seed));
  }
  CHECK(n["a"] > 3800);
  CHECK(n["a"] < 4200);
  CHECK(n["b"] == 5000 - n["a"]);
}

} // namespace model_ensemble_test
