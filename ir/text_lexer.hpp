#pragma once
/// Internal to the program text's parser (text_parser.cpp; not for other users, who include
/// text.hpp): the lexer that splits program text into tokens, and the error positions and
/// quoting its messages share with the parser.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tv::text_detail {

enum class Tk { name, integer, op, string, newline, eof, error };

/// Tokens keep only their text (a view into the source, so its offset is known); line and
/// column are computed from the offset when an error is reported.
struct Token {
  Tk kind = Tk::eof;
  std::string_view text;
  int indent = -1; ///< spaces before the first token of a logical line; -1 for other tokens
};

/// An error at a byte offset of the source (or at an explicit line and column when line > 0).
struct Failure {
  std::size_t offset = 0;
  std::string message;
  int line = 0, col = 0;
};

/// 1-based line and column (in UTF-8 code points) of byte `offset` of `s`; lines end at "\r\n",
/// "\n" or a lone "\r", like in the lexer. A leading BOM takes no column.
std::pair<int, int> locate(std::string_view s, std::size_t offset);

/// Printable form of (at most 40 bytes of) `s` for error messages.
std::string quote(std::string_view s);

/// Splits text into tokens; stops at the first lexical error, which becomes an `error` token
/// (the parser reports it only if it gets that far, so the first error in the text wins).
class Lexer {
public:
  explicit Lexer(std::string_view s) : s_(s) {
    if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
  }

  /// The tokens of the text, ending with `eof`; on a lexical error they end with an `error`
  /// token (then `eof`) and `error` holds it.
  std::vector<Token> run(std::optional<Failure>& error);

private:
  static constexpr std::size_t kMaxString = 64;
  /// nullptr when `lit` is a valid decimal literal, else the reason.
  static const char* check_integer(std::string_view lit);

  std::string_view s_;
  std::size_t pos_ = 0;
};

} // namespace tv::text_detail
