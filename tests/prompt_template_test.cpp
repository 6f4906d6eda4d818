#include "evolve/mutators/prompt_template.hpp"
#include "ir/error.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace prompt_template_test {

using namespace tv;

namespace {

const std::vector<std::string> kKnown{"parent", "gpu", "score"};

std::string error_of(const std::string& text, const std::vector<std::string>& required = {}) {
  try {
    PromptTemplate::parse(text, "prompts/x.txt", kKnown, required);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("prompt_template: placeholders are filled and doubled braces are literal") {
  const auto t = PromptTemplate::parse("GPU {gpu}: {{not a placeholder}} {parent}\n{gpu}!", "t",
                                       kKnown, {"parent"});
  CHECK(t.used() == std::vector<std::string>{"gpu", "parent"});
  CHECK(t.fill({{"gpu", "h100"}, {"parent", "def choose"}}) ==
        "GPU h100: {not a placeholder} def choose\nh100!");
  CHECK_THROWS_AS(t.fill({{"gpu", "h100"}}), std::logic_error); // a value the code forgot
}

TEST_CASE("prompt_template: bad templates name the file, line and column") {
  CHECK(error_of("line one\nsee {parnet} here") ==
        "prompts/x.txt:2:5: unknown placeholder {parnet} (known: {parent}, {gpu}, {score})");
  CHECK(error_of("a {b c}") ==
        "prompts/x.txt:1:3: '{' does not start a placeholder {name} (write '{{' for a literal "
        "brace)");
  CHECK(error_of("x\n\xc3\xa9 }") ==
        "prompts/x.txt:2:3: lone '}' (write '}}' for a literal brace)");
  CHECK(error_of("ends with {") != "");
  CHECK(error_of("no parent here", {"parent"}) ==
        "prompts/x.txt: the template never uses the placeholder {parent}, which it needs");
}

TEST_CASE("prompt_template: load reads a file and names a missing one") {
  const test::ScratchDir scratch("tilevolve_prompt_template_test");
  const std::filesystem::path dir = scratch.path;
  const std::string path = (dir / "t.txt").string();
  std::ofstream(path) << "score {score}";
  CHECK(PromptTemplate::load(path, kKnown, {}).fill({{"score", "1.2x"}}) == "score 1.2x");
  try {
    PromptTemplate::load((dir / "missing.txt").string(), kKnown, {});
    FAIL("no error");
  } catch (const InputError& e) {
    CHECK(std::string(e.what()).find("missing.txt") != std::string::npos);
  }
}

} // namespace prompt_template_test
