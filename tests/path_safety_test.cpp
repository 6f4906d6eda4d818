// The dashboard serves nothing outside its root: encoded separators, dot components, hidden
// files, absolute paths and symlinks that point out are refused; a missing file is 404.
#include "serve/path_safety.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace path_safety_test {

using namespace tv;
namespace fs = std::filesystem;

namespace {

/// A fresh directory tree: root/run/{best.py, sub/a.txt, inside -> best.py, out -> ../secret},
/// and secret beside root.
struct Tree {
  test::ScratchDir scratch{"tilevolve_path_safety_test"};
  fs::path base, root;
  Tree() {
    base = scratch.path;
    root = base / "root";
    fs::create_directories(root / "run" / "sub");
    std::ofstream(root / "run" / "best.py") << "def choose(M, N, K): ...\n";
    std::ofstream(root / "run" / "sub" / "a.txt") << "a\n";
    std::ofstream(base / "secret") << "secret\n";
    fs::create_symlink(root / "run" / "best.py", root / "run" / "inside");
    fs::create_symlink(base / "secret", root / "run" / "out");
    fs::create_directory_symlink(base, root / "escape");
    root = fs::canonical(root);
  }
};

} // namespace

TEST_CASE("path safety: percent-encoded slashes, backslashes, dots and NUL are spotted") {
  CHECK(has_encoded_separator("/files/run/..%2f..%2fetc%2fpasswd"));
  CHECK(has_encoded_separator("/files/run/%2E%2E/x"));
  CHECK(has_encoded_separator("/files/run/a%5cb"));
  CHECK(has_encoded_separator("/files/run/best.py%00"));
  CHECK(has_encoded_separator("/files/run/%0a"));
  CHECK_FALSE(has_encoded_separator("/files/run/best.py"));
  CHECK_FALSE(has_encoded_separator("/api/runs/a%20b"));
  CHECK_FALSE(has_encoded_separator("/x%2"));  // cut short: not an escape
  CHECK_FALSE(has_encoded_separator("/x%zz")); // not hex
}

TEST_CASE("path safety: components that are empty, dotted, or hold separators are refused") {
  CHECK(component_problem("best.py").empty());
  CHECK(component_problem("r-1_x").empty());
  CHECK_FALSE(component_problem("").empty());
  CHECK_FALSE(component_problem(".").empty());
  CHECK_FALSE(component_problem("..").empty());
  CHECK_FALSE(component_problem(".git").empty());
  CHECK_FALSE(component_problem("a\\b").empty());
  CHECK_FALSE(component_problem(std::string("a\0b", 3)).empty());
  CHECK_FALSE(component_problem("a\nb").empty());
}

TEST_CASE("path safety: files under the root resolve, also through symlinks that stay inside") {
  Tree t;
  const auto r = resolve_under(t.root, "run/best.py");
  REQUIRE(r.ok());
  CHECK(r.path == t.root / "run" / "best.py");
  CHECK(resolve_under(t.root, "run/sub/a.txt").ok());
  const auto link = resolve_under(t.root, "run/inside");
  REQUIRE(link.ok());
  CHECK(link.path == t.root / "run" / "best.py");
  CHECK(resolve_under(t.root, "run", true).ok());
  CHECK(resolve_under(t.root, "run/sub", false).status == 404); // a directory, not a file
}

TEST_CASE("path safety: dot-dot, absolute, hidden and symlinked escapes are 403, missing is 404") {
  Tree t;
  CHECK(resolve_under(t.root, "run/../../secret").status == 403);
  CHECK(resolve_under(t.root, "../secret").status == 403);
  CHECK(resolve_under(t.root, "run/./best.py").status == 403);
  CHECK(resolve_under(t.root, "/etc/passwd").status == 403);
  CHECK(resolve_under(t.root, "run//best.py").status == 403);
  CHECK(resolve_under(t.root, "run/.hidden").status == 403);
  CHECK(resolve_under(t.root, std::string("run/best.py\0.txt", 16)).status == 403);
  const auto out = resolve_under(t.root, "run/out");
  CHECK(out.status == 403);
  CHECK(out.why.find("leaves") != std::string::npos);
  CHECK(resolve_under(t.root, "escape/secret").status == 403);
  CHECK(resolve_under(t.root, "escape", true).status == 403);
  CHECK(resolve_under(t.root, "run/missing.py").status == 404);
}

} // namespace path_safety_test
