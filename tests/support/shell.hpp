#pragma once
/// Running the real binary from end-to-end tests (header-only).
#include <array>
#include <cstdio>
#include <doctest/doctest.h>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace tv::test {

/// Exit status (-1 when killed by a signal) and captured standard output.
struct ShellResult {
  int status = -1;
  std::string out;
};

/// Runs `line` with /bin/sh and captures its standard output (redirect stderr in `line`).
inline ShellResult run_shell(const std::string& line) {
  ShellResult r;
  FILE* f = popen(line.c_str(), "r");
  REQUIRE(f);
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0)
    r.out.append(buf.data(), n);
  const int st = pclose(f);
  r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return r;
}

/// `text` with every run of whitespace (line breaks of wrapped paragraphs included) as one space:
/// a phrase found in it does not depend on where the report wrapped, e.g. on a path's length.
inline std::string unwrapped(const std::string& text) {
  std::string out;
  bool space = false;
  for (const char c : text) {
    if (c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      space = true;
      continue;
    }
    if (space && !out.empty()) out += ' ';
    space = false;
    out += c;
  }
  return out;
}

/// Checks that `line` (its stderr folded into its output) exits with `status` and says `says`.
inline void check_refused(const std::string& line, const std::string& says, int status = 2) {
  const ShellResult r = run_shell(line + " 2>&1");
  INFO(line);
  INFO(r.out);
  CHECK(r.status == status);
  CHECK(r.out.find(says) != std::string::npos);
}

/// The whole content of a file ("" when it cannot be read).
inline std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

} // namespace tv::test
