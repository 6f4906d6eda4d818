// Hand-written parser for the Python-looking program text (see text.hpp); the lexer is
// text_lexer.hpp/.cpp, the printer text.cpp.
//
// Accepted language (a superset of what print_program writes, lenient only where the meaning
// cannot change):
//   - `def choose(M, N, K):` at any indentation, then a body indented further. Each block level
//     uses one consistent number of spaces (Python's rule). Tabs in indentation are an error
//     ("tab in indentation"); tabs between tokens are ordinary whitespace.
//   - Body statements: `if COND:` / `elif COND:` followed by an indented `return Config(...)`
//     (or the return on the same line after the colon); a final `return Config(...)` or
//     `else:` + return is the default. `elif` and `else` must follow an `if`/`elif` rule.
//     Anything after the default is an error (unreachable code).
//   - COND: comparisons joined by `and`, each `F op INT`, `INT op F` (normalised to feature on
//     the left with the operator flipped) or a Python chain `INT op F op INT`; F is M, N, K, the
//     output size `M * N` (or `N * M`), or a tile count `cdiv(M, BM) * cdiv(N, BN)` (factors in
//     either order, tile sizes 1 to 65536); op is < <= > >= ==. One program may use at most
//     kMaxDerivedFeatures distinct derived features. Parentheses may group the whole condition or
//     any part (nesting up to 32 levels). `True` adds no comparison (`if True:` is the empty
//     condition).
//   - A return value is `Config(...)` or the string "vendor" (or 'vendor'): the vendor library.
//   - Integers: decimal, optional '-', '_' only between digits, no leading zeros, 64-bit.
//     Required Config fields must be positive ints, the AMD knobs non-negative ints (0 is
//     Triton's "let the compiler choose"); keyword arguments in any order, trailing comma ok.
//   - Comments (`# ...`), blank lines, CRLF / CR line endings, a UTF-8 BOM, and line breaks inside
//     parentheses (implicit line joining) are allowed.
// Columns are 1-based and count UTF-8 code points.
#include "ir/text.hpp"

#include "ir/error.hpp"
#include "ir/text_lexer.hpp"

#include <array>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

namespace tv {

namespace {

using text_detail::Failure;
using text_detail::Lexer;
using text_detail::locate;
using text_detail::quote;
using text_detail::Tk;
using text_detail::Token;

// ---------------------------------------------------------------------------------------------
// Parser

constexpr int kMaxParenDepth = 32;

enum Field { f_BM, f_BN, f_BK, f_warps, f_stages, f_group, f_wpe, f_mink, f_kpack, f_count };
constexpr std::array<std::string_view, f_count> kFieldNames{
    "BM", "BN", "BK", "warps", "stages", "group", "waves_per_eu", "matrix_instr_nonkdim", "kpack"};
constexpr int kRequiredFields = 6;

bool is_cmp_op(const Token& t) {
  if (t.kind != Tk::op) return false;
  return t.text == "<" || t.text == "<=" || t.text == ">" || t.text == ">=" || t.text == "==";
}

CmpOp cmp_op_of(std::string_view s) {
  if (s == "<") return CmpOp::lt;
  if (s == "<=") return CmpOp::le;
  if (s == ">") return CmpOp::gt;
  if (s == ">=") return CmpOp::ge;
  return CmpOp::eq;
}

/// The operator that keeps the meaning when the operands swap sides.
CmpOp flipped(CmpOp op) {
  switch (op) {
  case CmpOp::lt:
    return CmpOp::gt;
  case CmpOp::le:
    return CmpOp::ge;
  case CmpOp::gt:
    return CmpOp::lt;
  case CmpOp::ge:
    return CmpOp::le;
  case CmpOp::eq:
    return CmpOp::eq;
  }
  return op;
}

std::optional<Feature> feature_of(const Token& t) {
  if (t.kind != Tk::name || t.text.size() != 1) return std::nullopt;
  switch (t.text[0]) {
  case 'M':
    return Feature::M;
  case 'N':
    return Feature::N;
  case 'K':
    return Feature::K;
  default:
    return std::nullopt;
  }
}

class Parser {
public:
  Parser(std::string_view src, const std::vector<Token>& toks,
         const std::optional<Failure>& lex_error)
      : src_(src), t_(toks), lex_error_(lex_error) {}

  Program parse() {
    Program prog;
    const Token& def = peek();
    const int d0 = def.kind == Tk::eof ? 0 : def.indent;
    parse_def();
    std::size_t last = p_ - 1; // last token of the last complete statement

    const Token& first = peek();
    if (first.kind == Tk::eof) fail(line_of(t_[last]) + 1, d0 + 5, missing_default());
    if (first.indent <= d0)
      expected(first, "an indented function body after 'def choose(M, N, K):'");
    const int body = first.indent;

    bool after_rule = false, have_default = false;
    while (true) {
      const Token& tk = peek();
      if (tk.kind == Tk::eof) break;
      if (have_default) {
        if (tk.indent <= d0) fail(tk, "unexpected text after the end of 'choose'");
        fail(tk, "unreachable code after the default return");
      }
      if (tk.indent != body) {
        if (tk.indent <= d0)
          fail(tk, "missing final 'return Config(...)' (the default) before the end of 'choose'");
        if (tk.indent > body) fail(tk, indent_message("unexpected indentation", body));
        fail(tk, indent_message("indentation does not match any outer level", body));
      }
      if (tk.kind == Tk::name && (tk.text == "if" || tk.text == "elif")) {
        if (tk.text == "elif" && !after_rule) fail(tk, "'elif' without a preceding 'if'");
        const std::string_view kw = tk.text;
        ++p_;
        Rule r;
        parse_condition(r.condition);
        r.config = parse_block(body, kw, "unreachable code after 'return' in an 'if' block");
        prog.rules.push_back(std::move(r));
        after_rule = true;
      } else if (tk.kind == Tk::name && tk.text == "else") {
        if (!after_rule) fail(tk, "'else' without a preceding 'if'");
        ++p_;
        expect_op(":", "':' after 'else'");
        prog.default_config =
            parse_block(body, "else", "unreachable code after the default return");
        have_default = true;
      } else if (tk.kind == Tk::name && tk.text == "return") {
        ++p_;
        prog.default_config = parse_config();
        expect_newline();
        have_default = true;
      } else {
        expected(tk, "'if', 'elif', 'else' or 'return'");
      }
      last = p_ - 1;
    }
    if (!have_default) fail(line_of(t_[last]) + 1, body + 1, missing_default());
    return prog;
  }

private:
  static std::string missing_default() {
    return "missing final 'return Config(...)' (the default)";
  }
  static std::string indent_message(std::string_view what, int spaces) {
    return std::string(what) + " (expected " + std::to_string(spaces) + " spaces)";
  }

  const Token& peek() const { return t_[p_]; }
  const Token& next() {
    const Token& t = t_[p_];
    if (t.kind != Tk::eof) ++p_;
    return t;
  }

  std::size_t offset_of(const Token& t) const { return std::size_t(t.text.data() - src_.data()); }
  int line_of(const Token& t) const { return locate(src_, offset_of(t)).first; }

  [[noreturn]] void fail(int line, int col, std::string msg) const {
    throw Failure{0, std::move(msg), line, col};
  }
  [[noreturn]] void fail(const Token& at, std::string msg) const {
    if (at.kind == Tk::error && lex_error_) throw *lex_error_;
    throw Failure{offset_of(at), std::move(msg)};
  }
  static std::string describe(const Token& t) {
    switch (t.kind) {
    case Tk::newline:
      return "end of line";
    case Tk::eof:
      return "end of input";
    default:
      return quote(t.text);
    }
  }
  [[noreturn]] void expected(const Token& at, std::string_view what) const {
    fail(at, "expected " + std::string(what) + ", got " + describe(at));
  }

  bool at_op(std::string_view op) const { return peek().kind == Tk::op && peek().text == op; }
  bool at_name(std::string_view n) const { return peek().kind == Tk::name && peek().text == n; }
  void expect_op(std::string_view op, std::string_view what) {
    if (!at_op(op)) expected(peek(), what);
    ++p_;
  }
  void expect_newline() {
    if (peek().kind != Tk::newline) expected(peek(), "end of line");
    ++p_;
  }

  void parse_def() {
    static constexpr std::string_view kDef = "'def choose(M, N, K):'";
    auto want_name = [&](std::string_view n) {
      if (!at_name(n)) expected(peek(), kDef);
      ++p_;
    };
    auto want_op = [&](std::string_view o) {
      if (!at_op(o)) expected(peek(), kDef);
      ++p_;
    };
    want_name("def");
    want_name("choose");
    want_op("(");
    want_name("M");
    want_op(",");
    want_name("N");
    want_op(",");
    want_name("K");
    want_op(")");
    want_op(":");
    if (peek().kind != Tk::newline) expected(peek(), "end of line after 'def choose(M, N, K):'");
    ++p_;
  }

  /// After `if COND` / `else`: the ':' was consumed for else; for if it is expected here.
  Config parse_block(int body, std::string_view kw, std::string_view unreachable) {
    if (kw != "else") expect_op(":", "'and' or ':'");
    if (at_name("return")) { // one-line form `if COND: return Config(...)`
      ++p_;
      Config c = parse_config();
      expect_newline();
      return c;
    }
    if (peek().kind != Tk::newline) expected(peek(), "end of line or 'return' after ':'");
    ++p_;
    const Token& r = peek();
    auto what = [&] {
      return "an indented 'return Config(...)' after '" + std::string(kw) + " ...:'";
    };
    if (r.kind == Tk::eof || r.indent <= body) expected(r, what());
    const int inner = r.indent;
    if (!at_name("return")) expected(r, what());
    ++p_;
    Config c = parse_config();
    expect_newline();
    const Token& n = peek();
    if (n.kind != Tk::eof && n.indent > body) {
      if (n.indent == inner) fail(n, std::string(unreachable));
      if (n.indent > inner) fail(n, indent_message("unexpected indentation", inner));
      fail(n, indent_message("indentation does not match any outer level", body));
    }
    return c;
  }

  void parse_condition(Condition& c) { parse_conjunction(c, 0); }

  void parse_conjunction(Condition& c, int depth) {
    parse_atom(c, depth);
    while (at_name("and")) {
      ++p_;
      parse_atom(c, depth);
    }
    if (at_name("or")) fail(peek(), "'or' is not supported; write one rule per alternative");
    if (depth > 0 && !at_op(")")) expected(peek(), "'and' or ')'");
  }

  void parse_atom(Condition& c, int depth) {
    const Token& tk = peek();
    if (tk.kind == Tk::op && tk.text == "(") {
      if (depth >= kMaxParenDepth) fail(tk, "parentheses nested too deeply");
      ++p_;
      parse_conjunction(c, depth + 1);
      ++p_; // the ')' checked by parse_conjunction
      return;
    }
    if (tk.kind == Tk::name) {
      if (tk.text == "True") {
        ++p_;
        return;
      }
      if (tk.text == "not" || tk.text == "or" || tk.text == "False")
        fail(tk, quote(tk.text) + " is not supported in conditions");
      Comparison f = parse_feature(tk);
      const Token& op = peek();
      if (!is_cmp_op(op)) {
        if (op.kind == Tk::op && op.text == "!=") fail(op, "'!=' is not supported");
        expected(op, "a comparison operator (<, <=, >, >=, ==) after " + quote(t_[p_ - 1].text));
      }
      ++p_;
      f.op = cmp_op_of(op.text);
      f.value = parse_int(op, true);
      c.terms.push_back(f);
      return;
    }
    if (tk.kind == Tk::integer || (tk.kind == Tk::op && tk.text == "-")) {
      const std::int64_t v = parse_int(tk, false);
      const Token& op = peek();
      if (!is_cmp_op(op)) {
        if (op.kind == Tk::op && op.text == "!=") fail(op, "'!=' is not supported");
        expected(op, "a comparison operator (<, <=, >, >=, ==) after " + quote(t_[p_ - 1].text));
      }
      ++p_;
      const Token& ft = peek();
      if (ft.kind != Tk::name)
        expected(ft,
                 "a feature (M, N, K, M * N or cdiv(M, ..) * cdiv(N, ..)) after " + quote(op.text));
      Comparison f = parse_feature(ft);
      f.op = flipped(cmp_op_of(op.text));
      f.value = v;
      c.terms.push_back(f);
      if (is_cmp_op(peek())) { // chained: 1 <= M <= 128
        const Token& op2 = next();
        Comparison g = f;
        g.op = cmp_op_of(op2.text);
        g.value = parse_int(op2, true);
        c.terms.push_back(g);
      }
      return;
    }
    expected(tk, "a comparison like 'M <= 128'");
  }

  /// Parses a feature starting at name token `tk` (the current token): M, N, K, `M * N`,
  /// `N * M`, or `cdiv(M, a) * cdiv(N, b)` with the factors in either order. Returns it as a
  /// comparison whose operator and value the caller fills in.
  Comparison parse_feature(const Token& tk) {
    Comparison out;
    if (tk.text == "cdiv") {
      const Token& first = tk;
      const auto [d1, t1] = parse_cdiv();
      if (!at_op("*")) expected(peek(), "'*' and a second cdiv(...) after " + quote("cdiv(...)"));
      ++p_;
      if (!at_name("cdiv"))
        expected(peek(), "'cdiv(N, ..)' after '*' (a tile count multiplies "
                         "cdiv(M, BM) by cdiv(N, BN))");
      const Token& second = peek();
      const auto [d2, t2] = parse_cdiv();
      if (d1 == d2) fail(second, "a tile count multiplies cdiv(M, ..) by cdiv(N, ..)");
      out.feature = Feature::tiles;
      out.tile_m = d1 == Feature::M ? t1 : t2;
      out.tile_n = d1 == Feature::M ? t2 : t1;
      note_derived(out, first);
      return out;
    }
    const auto f = feature_of(tk);
    if (!f)
      fail(tk, "unknown name " + quote(tk.text) +
                   "; a comparison tests M, N, K, M * N or cdiv(M, ..) * cdiv(N, ..) against an "
                   "integer");
    ++p_;
    out.feature = *f;
    if (!at_op("*")) return out;
    ++p_;
    const Token& other = peek();
    const auto g = feature_of(other);
    if (*f == Feature::K || !g || *g == Feature::K || *g == *f)
      fail(*f == Feature::K || other.kind != Tk::name ? tk : other,
           "the only product a condition may use is M * N (the output size)");
    ++p_;
    out.feature = Feature::MN;
    note_derived(out, tk);
    return out;
  }

  /// `cdiv(M, INT)` or `cdiv(N, INT)` at the current token; the dimension and the tile size.
  std::pair<Feature, int> parse_cdiv() {
    ++p_; // cdiv
    expect_op("(", "'(' after 'cdiv'");
    const Token& dim = peek();
    const auto f = feature_of(dim);
    if (!f || *f == Feature::K) expected(dim, "M or N as the first argument of cdiv");
    ++p_;
    expect_op(",", "',' after " + quote(dim.text));
    const Token& lit = peek();
    const std::int64_t v = parse_int(t_[p_ - 1], true);
    if (v < 1 || v > kMaxTileSize)
      fail(lit,
           "the tile size in cdiv must be an integer from 1 to " + std::to_string(kMaxTileSize));
    expect_op(")", "')' after the tile size");
    return {*f, int(v)};
  }

  /// Counts distinct derived features; a program may use at most kMaxDerivedFeatures.
  void note_derived(const Comparison& f, const Token& at) {
    for (const auto& d : derived_)
      if (d.same_feature(f)) return;
    if (int(derived_.size()) >= kMaxDerivedFeatures)
      fail(at, "too many distinct derived features (at most " +
                   std::to_string(kMaxDerivedFeatures) + " per program)");
    derived_.push_back(f);
  }

  /// Parses `[-] integer`. `after` names the preceding token for the message when `say_after`.
  std::int64_t parse_int(const Token& after, bool say_after) {
    auto what = [&] {
      return say_after ? "an integer after " + quote(after.text) : std::string("an integer");
    };
    bool negative = false;
    if (at_op("-")) {
      negative = true;
      ++p_;
      if (peek().kind != Tk::integer) expected(peek(), "an integer after '-'");
    }
    const Token& lit = peek();
    if (lit.kind != Tk::integer) expected(lit, what());
    ++p_;
    std::uint64_t v = 0;
    const std::uint64_t limit = negative ? std::uint64_t(INT64_MAX) + 1 : std::uint64_t(INT64_MAX);
    for (char ch : lit.text) {
      if (ch == '_') continue;
      const std::uint64_t d = std::uint64_t(ch - '0');
      if (v > (limit - d) / 10)
        fail(lit, "integer " + quote(lit.text) + " does not fit in 64 bits");
      v = v * 10 + d;
    }
    if (negative) return v == std::uint64_t(INT64_MAX) + 1 ? INT64_MIN : -std::int64_t(v);
    return std::int64_t(v);
  }

  Config parse_config() {
    if (peek().kind == Tk::string) {
      const Token& str = next();
      const std::string_view body = str.text.substr(1, str.text.size() - 2);
      if (body != "vendor")
        fail(str, "unknown return value " + std::string(str.text) +
                      "; expected Config(...) or \"vendor\" (the vendor library)");
      return vendor_config();
    }
    if (!at_name("Config")) expected(peek(), "'Config(...)' or \"vendor\" after 'return'");
    ++p_;
    expect_op("(", "'(' after 'Config'");
    std::array<std::optional<int>, f_count> vals{};
    while (!at_op(")")) {
      const Token& key = peek();
      if (key.kind != Tk::name) expected(key, "a Config field like 'BM=128' or ')'");
      int field = -1;
      for (int i = 0; i < f_count; ++i)
        if (kFieldNames[i] == key.text) field = i;
      if (field < 0)
        fail(key, "unknown Config field " + quote(key.text) +
                      " (expected BM, BN, BK, warps, stages, group, waves_per_eu, "
                      "matrix_instr_nonkdim or kpack)");
      if (vals[field]) fail(key, "duplicate Config field " + quote(key.text));
      ++p_;
      if (!at_op("=")) expected(peek(), "'=' after " + quote(key.text));
      ++p_;
      const Token& vt = peek();
      const std::int64_t v = parse_int(t_[p_ - 1], false);
      const bool required = field < kRequiredFields;
      if (required ? v <= 0 : v < 0)
        fail(vt, "Config field " + quote(key.text) + " must be a " +
                     (required ? "positive" : "non-negative") + " integer");
      if (v > INT_MAX) fail(vt, "Config field " + quote(key.text) + " is too large");
      vals[field] = int(v);
      if (at_op(",")) {
        ++p_;
        continue;
      }
      if (!at_op(")")) expected(peek(), "',' or ')'");
    }
    const Token& close = peek();
    std::string missing;
    int n_missing = 0;
    for (int i = 0; i < kRequiredFields; ++i)
      if (!vals[i]) {
        missing += (n_missing++ ? ", " : "") + quote(kFieldNames[i]);
      }
    if (n_missing)
      fail(close, std::string(n_missing == 1 ? "missing Config field " : "missing Config fields ") +
                      missing);
    ++p_;
    Config c;
    c.BM = *vals[f_BM];
    c.BN = *vals[f_BN];
    c.BK = *vals[f_BK];
    c.warps = *vals[f_warps];
    c.stages = *vals[f_stages];
    c.group = *vals[f_group];
    c.waves_per_eu = vals[f_wpe];
    c.matrix_instr_nonkdim = vals[f_mink];
    c.kpack = vals[f_kpack];
    return c;
  }

  std::string_view src_;
  const std::vector<Token>& t_;
  const std::optional<Failure>& lex_error_;
  std::size_t p_ = 0;
  std::vector<Comparison> derived_; ///< distinct derived features seen so far
};

} // namespace

std::string ParseError::str() const {
  return std::to_string(line) + ":" + std::to_string(col) + ": " + message;
}

ParseResult parse_program(std::string_view text) {
  ParseResult res;
  try {
    std::optional<Failure> lex_error;
    const std::vector<Token> toks = Lexer(text).run(lex_error);
    res.program = Parser(text, toks, lex_error).parse();
  } catch (const Failure& f) {
    res.program.reset();
    if (f.line > 0) {
      res.error = ParseError{f.line, f.col, f.message};
    } else {
      const auto [line, col] = locate(text, f.offset);
      res.error = ParseError{line, col, f.message};
    }
  } catch (const std::exception& e) { // only allocation failure can get here
    res.program.reset();
    res.error = ParseError{1, 1, std::string("internal error: ") + e.what()};
  }
  return res;
}

Program parse_program_or_throw(std::string_view text, std::string_view source) {
  ParseResult r = parse_program(text);
  if (!r.ok()) throw InputError(std::string(source) + ":" + r.error->str());
  return std::move(*r.program);
}

std::optional<Config> parse_config(std::string_view text, std::string* error) {
  // A config is the default of a one-line program; rules would make the text more than that.
  ParseResult r = parse_program("def choose(M, N, K):\n    return " + std::string(text) + "\n");
  if (r.ok() && r.program->rules.empty()) return r.program->default_config;
  if (error) *error = r.ok() ? "not a single config" : r.error->message;
  return std::nullopt;
}

Program load_program_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path + ": cannot read program file: it is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path + ": cannot open program file: " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path + ": cannot read program file");
  return parse_program_or_throw(ss.str(), path);
}

} // namespace tv
