// The sentence catalogues (data/lang/*.json): every language has exactly the English keys with
// the same placeholders in the same order, and the catalogue reader fails loudly on bad input.
#include "experiments/catalogue.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <doctest/doctest.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace catalogue_test {

using namespace tv;

TEST_CASE("catalogue: every language has exactly the English keys, with the same placeholders") {
  const auto langs = catalogue_languages();
  REQUIRE(std::find(langs.begin(), langs.end(), "en") != langs.end());
  REQUIRE(std::find(langs.begin(), langs.end(), "zh") != langs.end());
  const Catalogue en = load_catalogue("en");
  CHECK(en.entries().size() > 100);
  for (const auto& lang : langs) {
    if (lang == "en") continue;
    const Catalogue other = load_catalogue(lang);
    std::vector<std::string> missing, extra;
    for (const auto& entry : en.entries())
      if (!other.entries().count(entry.first)) missing.push_back(entry.first);
    for (const auto& entry : other.entries())
      if (!en.entries().count(entry.first)) extra.push_back(entry.first);
    INFO("data/lang/" << lang << ".json");
    CHECK_MESSAGE(missing.empty(), "missing keys: " << fmt::format("{}", fmt::join(missing, ", ")));
    CHECK_MESSAGE(extra.empty(),
                  "keys English does not have: " << fmt::format("{}", fmt::join(extra, ", ")));
    // The same placeholders in the same order, so both print the same figures in the same order.
    for (const auto& entry : en.entries()) {
      const auto it = other.entries().find(entry.first);
      if (it == other.entries().end()) continue;
      INFO("key " << entry.first);
      CHECK(placeholders(it->second) == placeholders(entry.second));
      CHECK(!it->second.empty());
    }
  }
}

TEST_CASE("catalogue: placeholders are filled by name, and braces are escaped by doubling") {
  const Catalogue c("xx", "xx.json",
                    {{"a", "{n} runs of {what}, {{literal}}"}, {"b", "no {missing}"}, {"c", "x"}});
  CHECK(c.text("a", {{"n", "12"}, {"what", "kernels"}}) == "12 runs of kernels, {literal}");
  CHECK(placeholders("{n} runs of {what}, {{literal}}") == std::vector<std::string>{"n", "what"});
  const auto parts = c.parts("a", {{"n", CellRef{0, 1, 2}}, {"what", Part("kernels")}});
  REQUIRE(parts.size() == 4);
  CHECK(parts[0].cell.has_value());
  CHECK(parts[0].name == "n");
  CHECK(parts[1].text == " runs of ");
  CHECK(parts[2].name == "what");
  CHECK(parts[3].text == ", {literal}");
  CHECK_THROWS_WITH_AS(c.text("b"), "xx.json: sentence 'b': no value for {missing}", InputError);
  CHECK_THROWS_WITH_AS(c.text("nosuch"), "xx.json: no sentence 'nosuch'", InputError);
  CHECK_THROWS_AS(sentence_pieces("a { b"), InputError);
  CHECK_THROWS_AS(sentence_pieces("a } b"), InputError);
  CHECK_THROWS_AS(sentence_pieces("a {} b"), InputError);
}

TEST_CASE("catalogue: an unknown language names the ones there are") {
  try {
    (void)load_catalogue("klingon");
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string what = e.what();
    CHECK(what.find("unknown language 'klingon'") != std::string::npos);
    CHECK(what.find("en, zh") != std::string::npos);
  }
  CHECK_THROWS_AS(load_catalogue("../lang/en"), InputError); // not a catalogue name
}

} // namespace catalogue_test
