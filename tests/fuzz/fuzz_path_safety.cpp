// Fuzz target for the dashboard's path confinement (serve/path_safety.hpp), the reader of file
// paths that arrive from the network: any bytes as the path under a run directory must resolve
// inside it or be refused, never crash, hang or leak. The directory tree is fixed: a file, a
// subdirectory, symlinks that stay inside, one to a file outside, one to the directory above,
// one that loops. What resolves is a real, canonical path inside the root, of the kind asked
// for, and no component of the request starts with '.'. Seeds in tests/fuzz/corpus/path_safety/.
// Built by -DTILEVOLVE_FUZZ=ON; by hand:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_path_safety.cpp serve/path_safety.cpp -o /tmp/f
//   /tmp/f -max_total_time=60 -dict=tests/fuzz/path_safety.dict tests/fuzz/corpus/path_safety
#include "serve/path_safety.hpp"
#include "tests/support/temp_dir.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

namespace {

namespace fs = std::filesystem;

/// root/{best.py, sub/a.txt, inside -> best.py, dirlink -> sub, out -> ../secret,
/// up -> .., loop -> loop} and secret beside root; removed at exit.
struct Tree {
  tv::test::ScratchDir scratch{"tilevolve_fuzz_path_safety"};
  fs::path root, secret;
  Tree() {
    const fs::path base = fs::canonical(scratch.path);
    root = base / "root";
    secret = base / "secret";
    fs::create_directories(root / "sub");
    std::ofstream(root / "best.py") << "def choose(M, N, K): ...\n";
    std::ofstream(root / "sub" / "a.txt") << "a\n";
    std::ofstream(secret) << "not for the network\n";
    fs::create_symlink("best.py", root / "inside");
    fs::create_directory_symlink("sub", root / "dirlink");
    fs::create_symlink("../secret", root / "out");
    fs::create_directory_symlink("..", root / "up");
    fs::create_symlink("loop", root / "loop");
  }
};

/// Whether `p` is `root` itself or below it, compared component by component.
bool inside(const fs::path& root, const fs::path& p) {
  auto q = p.begin();
  for (auto r = root.begin(); r != root.end(); ++r, ++q)
    if (q == p.end() || *r != *q) return false;
  return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const Tree tree;
  if (size == 0) return 0;
  // The first byte picks what is asked for (a file or a directory); the rest is the path.
  const bool want_directory = (data[0] & 1) != 0;
  const std::string_view rel(reinterpret_cast<const char*>(data) + 1, size - 1);
  (void)tv::has_encoded_separator(rel);
  (void)tv::component_problem(rel);
  const tv::ResolvedPath r = tv::resolve_under(tree.root, rel, want_directory);
  if (r.status != 200 && r.status != 403 && r.status != 404) __builtin_trap();
  if (!r.ok()) {
    if (r.why.empty()) __builtin_trap();
    return 0;
  }
  // What resolves is real, canonical, inside the root and of the kind asked for.
  std::error_code ec;
  if (fs::canonical(r.path, ec) != r.path || ec) __builtin_trap();
  if (!inside(tree.root, r.path) || r.path == tree.secret) __builtin_trap();
  if (want_directory ? !fs::is_directory(r.path) : !fs::is_regular_file(r.path)) __builtin_trap();
  if (tv::leaves_root(tree.root, r.path)) __builtin_trap();
  // Every component of an accepted request passes component_problem: none is empty or
  // starts with '.', none holds a control byte or a backslash.
  std::size_t start = 0;
  while (true) {
    const std::size_t end = rel.find('/', start);
    const std::string_view part =
        rel.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
    if (part.empty() || part.front() == '.' || !tv::component_problem(part).empty())
      __builtin_trap();
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return 0;
}
