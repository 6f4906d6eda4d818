// `cmake --install build --prefix P`: P/bin/tilevolve runs from anywhere and reads the data,
// prompts and worker installed in P/share/tilevolve, not the source tree.
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace install_test {

TEST_CASE("install: the installed binary finds its files in PREFIX/share/tilevolve") {
  namespace fs = std::filesystem;
  tv::test::ScratchDir dir("tv_install");
  const std::string prefix = dir.at("prefix");
  const std::string build = fs::path(TILEVOLVE_BINARY).parent_path().string();
  const auto inst = tv::test::run_shell("cmake --install '" + build + "' --prefix '" + prefix +
                                        "' > /dev/null 2>&1");
  REQUIRE(inst.status == 0);
  const std::string share = prefix + "/share/tilevolve";
  CHECK(fs::exists(prefix + "/bin/tilevolve"));
  CHECK(fs::exists(share + "/data/gpus/mi300x.json"));
  CHECK(fs::exists(share + "/data/shapes/lecture.csv"));
  CHECK(fs::exists(share + "/prompts/system.txt"));
  CHECK(fs::exists(share + "/eval/workers/triton_worker.py"));
  // Run from elsewhere: the default worker is the installed one.
  const std::string bin = "cd / && COLUMNS=400 '" + prefix + "/bin/tilevolve'";
  const auto help = tv::test::run_shell(bin + " evolve --help-all");
  REQUIRE(help.status == 0);
  CHECK(help.out.find(share + "/eval/workers/triton_worker.py") != std::string::npos);
  // The data: the default expert is read from the installed data/.
  const auto e = tv::test::run_shell(bin + " baselines --json");
  REQUIRE(e.status == 0);
  const auto j = nlohmann::json::parse(e.out);
  CHECK(j["problem"]["expert_file"].get<std::string>().rfind(share + "/data/", 0) == 0);
}

} // namespace install_test
