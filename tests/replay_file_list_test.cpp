// A replay backend over several AutoHeuristic files ("A,B"): replay_paths splits the list, the
// keys of all files replay together, and files of different devices or of our own format are
// refused with the file named.
#include "eval/measurement_cache.hpp"
#include "eval/replay_backend.hpp"
#include "eval/replay_device.hpp"
#include "ir/error.hpp"
#include "models/data_dir.hpp"
#include "support/fixtures.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>

#include <string>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace replay_file_list_test {

using namespace tv;

TEST_CASE("replay file list: replay_paths splits on commas unless the path is a file") {
  CHECK(replay_paths("a.txt") == std::vector<std::string>{"a.txt"});
  CHECK(replay_paths("a.txt,b/c.txt") == std::vector<std::string>{"a.txt", "b/c.txt"});
  test::ScratchDir dir("tv_replay_list");
  const std::string odd = dir.write("x,y.txt", "");
  CHECK(replay_paths(odd) == std::vector<std::string>{odd});
  CHECK_THROWS_AS(replay_paths("a.txt,,b.txt"), InputError);
  CHECK_THROWS_AS(replay_paths("a.txt,"), InputError);
}

TEST_CASE("replay file list: two A100 files replay their keys together") {
  const std::string hf = data_path("replay/a100_hf_mm.txt");
  const std::string timm = data_path("replay/a100_timm_mm.txt");
  const Gpu& a100 = test::gpu("a100");
  ReplayBackend one(hf, ReplayFilter{}, a100), other(timm, ReplayFilter{}, a100);
  ReplayBackend both(hf + "," + timm, ReplayFilter{}, a100);
  CHECK(both.autoheuristic());
  CHECK(both.shapes().size() == one.shapes().size() + other.shapes().size());
  CHECK(both.configs() == one.configs());
  CHECK(both.name() == "replay:" + hf + "," + timm + " (a100)");
  const Shape s = other.shapes().front();
  const Config c = other.configs().front();
  const auto a = both.time({{s, c}}), b = other.time({{s, c}});
  CHECK(a[0].status == b[0].status);
  CHECK(a[0].seconds == b[0].seconds);
  const auto d = replay_device(hf + "," + timm);
  REQUIRE(d);
  CHECK(d->gpu == "a100");
  CHECK(d->note.find("; each of the 2 files listed records the same device") != std::string::npos);
}

TEST_CASE("replay file list: mixed devices and our own format are refused, naming the file") {
  const std::string h100 = data_path("replay/h100_mm.txt");
  const std::string a100 = data_path("replay/a100_hf_mm.txt");
  CHECK_THROWS_WITH_AS(replay_device(a100 + "," + h100),
                       doctest::Contains("were measured on different devices (a100 and h100)"),
                       InputError);
  const auto error_of = [](const std::string& path) {
    try {
      ReplayBackend(path, ReplayFilter{}, test::gpu("a100"));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  CHECK(error_of(a100 + "," + h100).rfind(h100 + ": measured on a device with 232448 bytes", 0) ==
        0);
  test::ScratchDir dir("tv_replay_list");
  const std::string ours = dir.write("ours.txt", std::string(kMeasurementCacheVersionLine) + "\n");
  CHECK(error_of(a100 + "," + ours)
            .rfind(ours + ": replaying several files at once takes AutoHeuristic datasets only",
                   0) == 0);
}

} // namespace replay_file_list_test
