// The Python export run with python3 on a dense grid, and the Triton export with a stand-in
// `triton` module (tests must not need Triton): both return the IR's decision everywhere.
#include "support/export_check.hpp"
#include "support/shell.hpp"

#include "ir/exporters/python_exporter.hpp"
#include "ir/exporters/triton_exporter.hpp"

#include <doctest/doctest.h>
#include <fstream>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace python_exporter_test {

using namespace tv;

namespace {

std::vector<Program> python_test_programs(int random) {
  std::vector<Program> ps{test::mixed_export_program()};
  ps.push_back(
      parse_program_or_throw("def choose(M, N, K):\n    return \"vendor\"\n", "vendor only"));
  Rng rng(21);
  for (int i = 0; i < random; ++i)
    ps.push_back(test::random_export_program(rng));
  return ps;
}

/// Writes the grid, runs `script` (in `dir`) on it and compares every line with the IR.
void check_on_grid(const std::vector<Program>& programs, const std::string& dir,
                   const std::string& script, const std::string& env = "") {
  const std::vector<Shape> grid = test::export_grid(programs);
  {
    std::ofstream in(dir + "/grid.txt");
    for (const Shape& s : grid)
      in << s.M << ' ' << s.N << ' ' << s.K << '\n';
  }
  std::ofstream(dir + "/driver.py") << script;
  const auto r =
      test::run_shell("cd " + dir + " && " + env + " python3 -B driver.py < grid.txt 2>&1");
  REQUIRE_MESSAGE(r.status == 0, r.out.substr(0, 2000));
  std::istringstream out(r.out);
  std::size_t wrong = 0, lines = 0;
  for (const Shape& s : grid) {
    std::string line;
    REQUIRE(std::getline(out, line));
    ++lines;
    if (line != test::expected_line(programs, s) && ++wrong <= 5)
      FAIL_CHECK(s.M << "x" << s.N << "x" << s.K << ": got " << line << "; the IR says "
                     << test::expected_line(programs, s));
  }
  CHECK(wrong == 0);
  CHECK(lines == grid.size());
}

/// Python that prints a meta-parameter dict (or None) as test::decision_line does, and refuses
/// unknown keys or missing required ones.
const char* kPrintDict =
    "REQUIRED = ('BLOCK_SIZE_M', 'BLOCK_SIZE_N', 'BLOCK_SIZE_K', 'GROUP_SIZE_M', 'num_warps',\n"
    "            'num_stages')\n"
    "AMD = ('waves_per_eu', 'matrix_instr_nonkdim', 'kpack')\n"
    "def line(c):\n"
    "    if c is None:\n"
    "        return 'v'\n"
    "    assert set(c) <= set(REQUIRED + AMD) and set(REQUIRED) <= set(c), c\n"
    "    assert all(type(v) is int for v in c.values()), c\n"
    "    return ' '.join(str(c.get(k, -1)) for k in REQUIRED + AMD)\n";

} // namespace

TEST_CASE("python export: run with python3 it returns the IR's decision on a dense grid") {
  const std::vector<Program> programs = python_test_programs(10);
  const test::ScratchDir scratch("python_export_test");
  const std::string& dir = scratch.path;
  std::string script = std::string(kPrintDict) + "import sys\nmods = []\n";
  for (std::size_t i = 0; i < programs.size(); ++i) {
    ExportInfo info;
    info.source = "python_exporter_test";
    std::ofstream(dir + "/p" + std::to_string(i) + ".py") << export_python(programs[i], info);
    script += fmt::format("import p{0}\nassert p{0}.VENDOR is None\nmods.append(p{0})\n", i);
  }
  script += "for row in sys.stdin:\n"
            "    M, N, K = map(int, row.split())\n"
            "    print(' | '.join(line(m.choose(M, N, K)) for m in mods))\n";
  check_on_grid(programs, dir, script);
}

TEST_CASE("triton export: with a stand-in triton module, configs, pruner and launch kwargs "
          "agree with the IR on a dense grid") {
  const std::vector<Program> programs = python_test_programs(6);
  const test::ScratchDir scratch("triton_export_test");
  const std::string& dir = scratch.path;
  // The stand-in has what the export touches: Config(kwargs, num_warps=, num_stages=, ...).
  std::filesystem::create_directories(dir + "/stand_in/triton");
  std::ofstream(dir + "/stand_in/triton/__init__.py")
      << "__version__ = '0.0.0+stand-in'\n"
         "class Config:\n"
         "    def __init__(self, kwargs, num_warps=4, num_stages=3, num_ctas=1, maxnreg=None,\n"
         "                 pre_hook=None):\n"
         "        self.kwargs = kwargs\n"
         "        self.num_warps = num_warps\n"
         "        self.num_stages = num_stages\n"
         "        self.num_ctas = num_ctas\n";
  std::string script = std::string(kPrintDict) + "import sys\nimport triton\nmods = []\n";
  for (std::size_t i = 0; i < programs.size(); ++i) {
    ExportInfo info;
    info.source = "triton_exporter_test";
    std::ofstream(dir + "/t" + std::to_string(i) + ".py") << export_triton(programs[i], info);
    script += fmt::format("import t{0}\nmods.append(t{0})\n", i);
  }
  script += "for m in mods:\n"
            "    assert all(isinstance(c, triton.Config) for c in m.CONFIGS)\n"
            "    assert all(not ({'num_warps', 'num_stages'} & set(c.kwargs)) for c in m.CONFIGS)\n"
            "    assert len({tuple(sorted(c.kwargs.items())) + (c.num_warps, c.num_stages)\n"
            "                for c in m.CONFIGS}) == len(m.CONFIGS)\n"
            "def decide(m, M, N, K):\n"
            "    c = m.choose_config(M, N, K)\n"
            "    kw = m.launch_kwargs(M, N, K)\n"
            "    try:\n"
            "        pruned = m.early_config_prune(m.CONFIGS, {'M': M, 'N': N, 'a_ptr': 0}, K=K)\n"
            "    except ValueError:\n"
            "        pruned = None\n"
            "    if c is None:\n"
            "        assert kw is None and pruned is None\n"
            "        return line(None)\n"
            "    assert c in m.CONFIGS and pruned == [c]\n"
            "    assert kw == dict(c.kwargs, num_warps=c.num_warps, num_stages=c.num_stages)\n"
            "    return line(kw)\n"
            "for row in sys.stdin:\n"
            "    M, N, K = map(int, row.split())\n"
            "    print(' | '.join(decide(m, M, N, K) for m in mods))\n";
  check_on_grid(programs, dir, script, "PYTHONPATH=stand_in");
}

TEST_CASE("python export: the module states what produced it and needs no imports") {
  const Program p = test::mixed_export_program();
  ExportInfo info;
  info.source = "a file with a n\xC3\xA9w\nline";
  const std::string py = export_python(p, info);
  CHECK(py.rfind("# Generated by tilevolve ", 0) == 0);
  CHECK(py.find("a file with a n??w?line") != std::string::npos); // stays one comment line
  CHECK(py.find("# Program hash " + program_hash_text(p)) != std::string::npos);
  CHECK(py.find("\nimport") == std::string::npos);
  CHECK(py.find("_tiles(M, N, 128, 128) <= 132") != std::string::npos);
  CHECK(py.find("return VENDOR") != std::string::npos);
  const std::string tr = export_triton(p, info);
  CHECK(tr.find("\nimport triton\n") != std::string::npos);
  CHECK(tr.find("\"waves_per_eu\": 2, \"matrix_instr_nonkdim\": 16, \"kpack\": 2}, num_warps=4, "
                "num_stages=3)") != std::string::npos);
}

} // namespace python_exporter_test
