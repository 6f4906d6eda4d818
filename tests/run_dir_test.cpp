// Reading a run directory's config.json (evolve/run_dir.hpp): a run killed before it wrote its
// configuration, and configurations that are not ours, get messages that say what to do.
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"

#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace run_dir_test {

using namespace tv;

namespace {

std::string error_of(const std::string& dir) {
  try {
    read_run_config(dir);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST_CASE("run_dir: a run stopped before config.json is refused with what to do instead") {
  tv::test::ScratchDir dir("tilevolve_run_dir");
  const std::string d = dir.path;
  // What a run killed between creating its directory and writing config.json leaves behind.
  dir.write("config.json.tmp", "{\"format\": \"tilevolve-");
  const std::string e = error_of(d);
  CHECK(e.find(d + "/config.json: missing: the run in '" + d +
               "' was stopped before it wrote its configuration") == 0);
  CHECK(e.find("start it again with the same options and --out " + d + " instead of --resume") !=
        std::string::npos);
  // The binary says the same, with exit status 2, and starting again works.
  const auto r = test::run_shell(std::string(TILEVOLVE_BINARY) + " evolve --resume " + d + " 2>&1");
  CHECK(r.status == 2);
  CHECK(r.out.find("was stopped before it wrote its configuration") != std::string::npos);
  const auto again =
      test::run_shell(std::string(TILEVOLVE_BINARY) +
                      " evolve --gpu h100 --budget 16 --quiet --json --out " + d + " 2>&1");
  CHECK(again.status == 0);
  CHECK(std::filesystem::exists(d + "/config.json"));
  CHECK(error_of(d) == "");
}

TEST_CASE("run_dir: missing directories and foreign or malformed configurations") {
  tv::test::ScratchDir dir("tilevolve_run_dir");
  CHECK(error_of(dir.at("nope")).find("no such directory: nothing to resume") != std::string::npos);
  dir.write("file", "x");
  CHECK(error_of(dir.at("file")).find("not a directory") != std::string::npos);
  const std::string d = dir.path;
  dir.write("config.json", "{\"format\": \"tilevolve-run\", \"problem\": {}, \"options\"");
  CHECK(error_of(d).find(d + "/config.json:1:") == 0);
  CHECK(error_of(d).find("malformed JSON") != std::string::npos);
  dir.write("config.json", "{\"format\": \"tilevolve-run\",\n \"format\": \"x\"}");
  CHECK(error_of(d).find(d + "/config.json:2:") == 0);
  CHECK(error_of(d).find("duplicate key 'format' in the top-level object") != std::string::npos);
  dir.write("config.json", "{\"format\": \"other\"}");
  CHECK(error_of(d).find("not a tilevolve run configuration") != std::string::npos);
  dir.write("config.json", "{\"format\": 7}"); // not a string: refused, not a JSON exception
  CHECK(error_of(d).find("not a tilevolve run configuration") != std::string::npos);
  dir.write("config.json", "{\"format\": \"tilevolve-run\", \"problem\": {}, \"options\": {}}");
  CHECK(error_of(d).find("(no 'mutator')") != std::string::npos);
  dir.write(
      "config.json",
      "{\"format\": \"tilevolve-run\", \"problem\": [], \"options\": {}, \"mutator\": \"m\"}");
  CHECK(error_of(d).find("'problem' and 'options' must be objects") != std::string::npos);
  dir.write("config.json", std::string("\x7f\x45\x4c\x46\x02\x01\x01\0\0\0", 10));
  CHECK(error_of(d).find("malformed JSON") != std::string::npos);
}

TEST_CASE("run_dir: --resume on a directory that is not a run says so, and names the runs below "
          "it") {
  tv::test::ScratchDir dir("tilevolve_run_dir");
  namespace fs = std::filesystem;
  // An empty directory: no run was ever started there.
  fs::create_directories(dir.at("empty"));
  CHECK(error_of(dir.at("empty")) == "--resume " + dir.at("empty") +
                                         ": the directory is empty, not a run: nothing to "
                                         "resume (start a run there with --out " +
                                         dir.at("empty") + ")");
  for (const char* sub : {"data", "runs/a", "runs/b", "stopped"})
    fs::create_directories(dir.at(sub));
  // A directory of other things (here, the data folder of a checkout).
  dir.write("data/gpus.txt", "h100\n");
  const std::string other = error_of(dir.at("data"));
  CHECK(other == "--resume " + dir.at("data") +
                     ": not a run directory (no config.json, which a run writes first); "
                     "--resume takes the directory a run was given with --out");
  CHECK(other.find("was stopped before") == std::string::npos);
  // The folder that holds runs (serve's RUNS_DIR): the runs in it are named.
  dir.write("runs/b/config.json", "{}");
  dir.write("runs/a/config.json", "{}");
  dir.write("runs/notes.txt", "x");
  CHECK(error_of(dir.at("runs")) ==
        "--resume " + dir.at("runs") +
            ": not a run directory (no config.json, which a run writes first); it holds runs: "
            "--resume one of them (" +
            dir.at("runs") + "/a, " + dir.at("runs") + "/b)");
  // A run stopped before config.json holds its lock: still the message for that case.
  dir.write("stopped/run.lock", "");
  CHECK(error_of(dir.at("stopped")).find("was stopped before it wrote its configuration") !=
        std::string::npos);
  // The binary: exit status 2 and the same words.
  const auto r = test::run_shell(std::string(TILEVOLVE_BINARY) + " evolve --resume " +
                                 dir.at("data") + " 2>&1");
  CHECK(r.status == 2);
  CHECK(r.out.find("not a run directory (no config.json") != std::string::npos);
}

TEST_CASE("run_dir: a failed atomic write (ENOSPC) removes its temporary file and keeps the old "
          "file") {
  tv::test::ScratchDir dir("tilevolve_run_dir_enospc");
  const std::string path = dir.write("checkpoint.json", "old\n");
  // The temporary file is the full device: every write to it fails with ENOSPC.
  std::filesystem::create_symlink("/dev/full", path + ".tmp");
  std::string e;
  try {
    atomic_write(path, std::string(1 << 20, 'x'));
  } catch (const InputError& x) {
    e = x.what();
  }
  CHECK(e == "cannot write '" + path + ".tmp': No space left on device");
  CHECK_FALSE(std::filesystem::exists(std::filesystem::symlink_status(path + ".tmp")));
  CHECK(tv::test::read_text(path) == "old\n");
  atomic_write(path, "new\n");
  CHECK(tv::test::read_text(path) == "new\n");
}

} // namespace run_dir_test
