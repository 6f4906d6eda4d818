// Hostile files against the real binary (issue 65): deeply nested JSON, long lines, control
// characters, huge key counts and a full disk; each test case says what it guards.
#include "support/http.hpp"
#include "support/process.hpp"
#include "support/property_cases.hpp"
#include "support/serve_process.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace hostile_files_test {

namespace fs = std::filesystem;
using json = nlohmann::json;
using tv::test::get_json;
using tv::test::http_request;
using tv::test::ScratchDir;

namespace {

/// `depth` arrays inside one another.
std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

void append(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::binary | std::ios::app) << text;
}

/// What a finished child process gave: its exit status (-1 for a signal), its output, its peak
/// resident memory and the CPU time it used (user + system).
struct Finished {
  int status = -1;
  std::string out;
  long max_rss_kb = 0;
  double cpu_seconds = 0;
};

/// Runs `argv` to its end with stdout and stderr in `log`; the peak resident memory and CPU
/// time are the child's own (wait4), not those of every child this test process had.
Finished run_measured(const std::vector<std::string>& argv, const std::string& log) {
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  REQUIRE(fd >= 0);
  const pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    // A ceiling, should the reader regress: killed at 4 GiB instead of taking the machine
    // (not under AddressSanitizer, which reserves terabytes of address space).
    if (!tv::test::kSanitizedBuild) {
      const rlimit cap{rlim_t(4) << 30, rlim_t(4) << 30};
      ::setrlimit(RLIMIT_AS, &cap);
    }
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(fd);
  int st = 0;
  rusage ru{};
  REQUIRE(::wait4(pid, &st, 0, &ru) == pid);
  Finished f;
  f.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  f.out = tv::test::read_text(log);
  f.max_rss_kb = ru.ru_maxrss;
  f.cpu_seconds = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                  1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
  return f;
}

/// A finished evolve run of `budget` programs in `dir` (analytic, a second or two).
void evolve_run(const fs::path& dir, int budget = 40) {
  const auto r = tv::test::run_shell(fmt::format("{} evolve --gpu h100 --budget {} --quiet --out "
                                                 "{} > /dev/null 2>&1",
                                                 TILEVOLVE_BINARY, budget, dir.string()));
  REQUIRE(r.status == 0);
}

} // namespace

TEST_CASE("hostile files: serve stays up after study.json and events lines nested 100,000 and "
          "1,000,000 deep, and follows the raw events past a line longer than its chunk") {
  ScratchDir scratch("tv_hostile_serve");
  const fs::path runs = fs::path(scratch.path) / "runs";
  // Studies nested 100,000 deep (200 KB) and 1,000,000 deep (2 MB, under the 32 MiB limit).
  write(runs / "deep100k" / "study.json", "{\"splits\": " + nested_arrays(100000) + "}");
  write(runs / "deep1m" / "study.json", "{\"splits\": " + nested_arrays(1000000) + "}");
  // A real run whose events.ndjson gets a line nested 100,000 deep, one of 1,000,000 opening
  // brackets (under the 1 MiB line limit), a line of 3 MiB (longer than a chunk), and a last
  // good event; its per_shape.json is nested 100,000 deep too.
  const fs::path run = runs / "run";
  evolve_run(run);
  const fs::path events = run / "events.ndjson";
  const std::size_t good_lines = [&] {
    std::ifstream in(events);
    std::size_t n = 0;
    for (std::string line; std::getline(in, line);)
      ++n;
    return n;
  }();
  append(events, "{\"event\": \"program\", \"deep\": " + nested_arrays(100000) + "}\n");
  append(events, std::string(1000000, '[') + "\n");
  append(events, "{\"event\": \"note\", \"text\": \"" + std::string(3u << 20, 'x') + "\"}\n");
  append(events, "{\"event\": \"last\"}\n");
  write(run / "per_shape.json", nested_arrays(100000));
  // A run whose config.json is nested 1,000,000 deep.
  write(runs / "deep_config" / "config.json", "{\"problem\": " + nested_arrays(1000000) + "}");

  tv::test::ServeProcess server(runs.string(), (fs::path(scratch.path) / "serve.log").string());
  INFO(server.process.output());
  for (const char* name : {"deep100k", "deep1m"}) {
    const json e = get_json(server.port, std::string("/api/studies/") + name, 422);
    const std::string why = e["error"].get<std::string>();
    CHECK(why.find((runs / name / "study.json").string() + ":1:") != std::string::npos);
    CHECK(why.find("JSON nested deeper than 512 levels") != std::string::npos);
  }
  const json studies = get_json(server.port, "/api/studies");
  REQUIRE(studies["studies"].size() == 2);
  for (const json& s : studies["studies"])
    CHECK(s["status"] == "unreadable");

  // The raw events: the deep lines are bad lines; following `next` with a small chunk passes
  // the 3 MiB line and reaches the last event.
  std::vector<json> seen;
  long long bad = 0;
  std::uint64_t offset = 0, size = 1;
  for (int polls = 0; offset < size && polls < 100; ++polls) {
    const json slice = get_json(server.port, fmt::format("/api/runs/run/events?offset={}"
                                                         "&max_bytes=4096",
                                                         offset));
    for (const json& e : slice["events"])
      seen.push_back(e);
    bad += slice["bad_lines"].get<long long>();
    REQUIRE(slice["next"].get<std::uint64_t>() > offset);
    offset = slice["next"].get<std::uint64_t>();
    size = slice["size"].get<std::uint64_t>();
  }
  CHECK(offset == size);
  CHECK(seen.size() == good_lines + 1);
  CHECK(seen.back() == json{{"event", "last"}});
  CHECK(bad == 3);
  // The run's page state: the stream read to its end, the first bad line named.
  const json state = get_json(server.port, "/api/runs/run");
  CHECK(state["events"]["bad_lines"] == 3);
  CHECK(state["events"]["first_problem"] ==
        fmt::format("line {}: nested deeper than 512 levels", good_lines + 1));
  const json per_shape = get_json(server.port, "/api/runs/run/per_shape");
  CHECK(per_shape["per_shape"]["error"] == "per_shape.json is nested deeper than 512 levels");
  const json deep_config = get_json(server.port, "/api/runs/deep_config");
  CHECK(deep_config["config_problem"] == "config.json is nested deeper than 512 levels");

  // Still up: the index, the lists.
  CHECK(http_request(server.port, "/").status == 200);
  CHECK(get_json(server.port, "/api/runs")["runs"].size() == 2);
  CHECK(get_json(server.port, "/api/studies")["studies"].size() == 2);
  CHECK_FALSE(server.process.exited());
}

TEST_CASE("hostile files: a GPU profile nested 50,000 deep is refused with exit 2 and its "
          "position, in under 300 MB") {
  ScratchDir scratch("tv_hostile_profile");
  for (const std::size_t depth : {std::size_t(50000), std::size_t(100000)}) {
    // {"name": "x", "a": {"a": {"a": ...}}}: a path string per level was 3.8 GB at 50,000.
    std::string text = "{\"name\": \"x\",\n";
    for (std::size_t i = 0; i < depth; ++i)
      text += "\"a\":{";
    text += std::string(depth, '}') + "}\n";
    const std::string profile = scratch.write(fmt::format("deep{}.json", depth), text);
    const Finished f = run_measured({TILEVOLVE_BINARY, "baselines", "--gpu", profile},
                                    scratch.at("baselines.log"));
    INFO(f.out.substr(0, 2000));
    CHECK(f.status == 2);
    CHECK(f.out.rfind("tilevolve: error: " + profile + ":2:", 0) == 0);
    CHECK(f.out.find("JSON nested deeper than 512 levels") != std::string::npos);
    CHECK(f.max_rss_kb < 300 * 1024);
  }
}

TEST_CASE("hostile files: import of a vLLM file of 100,000 keys takes linear time") {
  ScratchDir scratch("tv_hostile_vllm");
  const auto file_of = [&](int keys) {
    std::string text = "{";
    for (int i = 0; i < keys; ++i)
      text += fmt::format("{}\"{}\": {{\"BLOCK_SIZE_M\": {}, \"BLOCK_SIZE_N\": 64, "
                          "\"BLOCK_SIZE_K\": 64, \"GROUP_SIZE_M\": 8, \"num_warps\": 4, "
                          "\"num_stages\": 3}}",
                          i ? ",\n" : "", i + 1, i % 2 ? 64 : 128);
    return scratch.write(fmt::format("vllm{}.json", keys), text + "}\n");
  };
  const std::string file = file_of(100000);
  const Finished f =
      run_measured({TILEVOLVE_BINARY, "import", file, "--out", scratch.at("imported.py")},
                   scratch.at("import.log"));
  INFO(f.out.substr(0, 2000));
  REQUIRE(f.status == 0);
  CHECK(f.out.find("99999 rules and a default") != std::string::npos);
  // CPU time, not wall time (the machine may be busy): quadratic, it took 21.5 s (0.48 s at
  // 10,000 keys); linear, about a second (several under AddressSanitizer).
  CHECK(f.cpu_seconds < (tv::test::kSanitizedBuild ? 40 : 8));
}

TEST_CASE("hostile files: control characters in shape names reach the terminal escaped") {
  ScratchDir scratch("tv_hostile_names");
  // ESC ] 0 ; ... BEL retitles a terminal; ESC [ 2 J clears it; a C1 CSI in UTF-8 (U+009B).
  const std::string evil = "x\x1b]0;pwned\x07y";
  const std::string shapes =
      scratch.write("shapes.csv", "name,M,N,K\n" + evil +
                                      ",1,4096,4096\nclear\x1b[2J,4096,4096,4096\n"
                                      "c1\xc2\x9b"
                                      "31m,128,4096,4096\nplain,16,4096,4096\n");
  for (const std::string& args : {std::string("baselines --gpu h100 --shapes ") + shapes,
                                  std::string("score --gpu h100 --shapes ") + shapes + " " +
                                      TILEVOLVE_SOURCE_DIR + "/data/experts/lecture.py",
                                  std::string("evolve --gpu h100 --budget 20 --shapes ") + shapes +
                                      " --out " + scratch.at("run")}) {
    const auto r = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " " + args + " 2>&1");
    INFO(args << "\n" << r.out.substr(0, 3000));
    CHECK(r.status == 0);
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find('\x07') == std::string::npos);
    CHECK(r.out.find("\xc2\x9b") == std::string::npos);
  }
  // What the summary shows: the names escaped, so they can be read.
  const std::string summary = tv::test::read_text(scratch.at("run") + "/summary.txt");
  CHECK(summary.find('\x1b') == std::string::npos);
  CHECK(summary.find("c1\\u009b31m") != std::string::npos);
}

TEST_CASE("hostile files: a checkpoint that cannot be written (ENOSPC) leaves no "
          "checkpoint.json.tmp behind") {
  ScratchDir scratch("tv_hostile_enospc");
  const fs::path run = fs::path(scratch.path) / "run";
  evolve_run(run);
  // The next checkpoint's temporary file is the full device: its write fails with ENOSPC.
  fs::create_symlink("/dev/full", run / "checkpoint.json.tmp");
  const auto r = tv::test::run_shell(
      fmt::format("{} evolve --resume {} --quiet 2>&1", TILEVOLVE_BINARY, run.string()));
  INFO(r.out);
  CHECK(r.status == 2);
  CHECK(r.out.find("checkpoint.json.tmp': No space left on device") != std::string::npos);
  CHECK_FALSE(fs::exists(fs::symlink_status(run / "checkpoint.json.tmp")));
  // The run still resumes once there is room.
  const auto again = tv::test::run_shell(fmt::format(
      "{} evolve --resume {} --quiet > /dev/null 2>&1", TILEVOLVE_BINARY, run.string()));
  CHECK(again.status == 0);
}

} // namespace hostile_files_test
