#pragma once
/// The text form of a Program: a strict, Python-looking subset that an LLM edits and a
/// kernel library can deploy. Printing then parsing gives the same program.
///
///   def choose(M, N, K):
///       if M <= 16:
///           return Config(BM=16, BN=64, BK=128, warps=4, stages=4, group=1)
///       if M <= 256 and N >= 8192:
///           return Config(BM=64, BN=128, BK=64, warps=4, stages=4, group=8)
///       if cdiv(M, 128) * cdiv(N, 128) <= 132 and M * N >= 1048576:
///           return Config(BM=64, BN=64, BK=64, warps=4, stages=4, group=8)
///       if M >= 16384:
///           return "vendor"
///       return Config(BM=128, BN=128, BK=64, warps=4, stages=3, group=8)
///
/// Conditions compare M, N, K, the output size `M * N` and tile counts `cdiv(M, bm) * cdiv(N, bn)`
/// (the grid of bm x bn tiles; compared with the GPU's SM/CU count it gives the waves) with
/// integers; "vendor" stands for the vendor library. The text is Python: with the prelude
/// `Config = dict` and `def cdiv(a, b): return -(-a // b)` (kPythonPrelude) it runs as is.
#include "ir/program.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace tv {

/// The two lines that make a printed program runnable Python (Config becomes a dict).
inline constexpr std::string_view kPythonPrelude =
    "Config = dict\ndef cdiv(a, b): return -(-a // b)\n";

/// Canonical text of `p` (4-space indents, fields in fixed order, AMD knobs only when set).
std::string print_program(const Program& p);
/// Canonical text of one config: `Config(BM=.., BN=.., ..)`.
std::string print_config(const Config& c);
/// Canonical text of one condition: `M <= 128 and N >= 8192` ("True" when empty).
std::string print_condition(const Condition& c);
/// How a report names rule `i` of `p` so a reader finds it in the printed program: its condition
/// in backquotes ("`M <= 16 and N <= 4096`"), or "the default" for i == p.rules.size().
std::string rule_reference(const Program& p, std::size_t i);

/// Where and why parsing failed; line and column are 1-based.
struct ParseError {
  int line = 1, col = 1;
  std::string message;
  /// "line:col: message".
  std::string str() const;
};

/// Outcome of parsing: a program, or the first error.
struct ParseResult {
  std::optional<Program> program;
  std::optional<ParseError> error;
  bool ok() const { return program.has_value(); }
};

/// Parses program text; never throws for bad text.
ParseResult parse_program(std::string_view text);
/// Parses or throws InputError("<source>:line:col: message").
Program parse_program_or_throw(std::string_view text, std::string_view source);
/// Parses the text of one config as print_config writes it (`Config(BM=.., ..)`); nullopt for
/// bad text, with the reason in `error` when given.
std::optional<Config> parse_config(std::string_view text, std::string* error = nullptr);
/// Reads and parses a program file; throws InputError naming the file on any problem.
Program load_program_file(const std::string& path);

} // namespace tv
