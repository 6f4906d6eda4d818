// The program text's lexer (see text_lexer.hpp); the language it reads is described in
// text_parser.cpp.
#include "ir/text_lexer.hpp"

namespace tv::text_detail {

// ---------------------------------------------------------------------------------------------
// Lexer

namespace {

/// Character classes for the lexer: bit 1 identifier start, bit 2 digit.
constexpr std::array<unsigned char, 256> kCharClass = [] {
  std::array<unsigned char, 256> t{};
  for (int c = 'A'; c <= 'Z'; ++c)
    t[c] = 1;
  for (int c = 'a'; c <= 'z'; ++c)
    t[c] = 1;
  t['_'] = 1;
  for (int c = '0'; c <= '9'; ++c)
    t[c] = 2;
  return t;
}();
bool is_ident_start(char c) {
  return kCharClass[static_cast<unsigned char>(c)] & 1;
}
bool is_digit(char c) {
  return kCharClass[static_cast<unsigned char>(c)] & 2;
}
bool is_ident_char(char c) {
  return kCharClass[static_cast<unsigned char>(c)] != 0;
}

} // namespace

/// 1-based line and column (in UTF-8 code points) of byte `offset` of `s`; lines end at "\r\n",
/// "\n" or a lone "\r", like in the lexer. A leading BOM takes no column.
std::pair<int, int> locate(std::string_view s, std::size_t offset) {
  int line = 1, col = 1;
  std::size_t i = s.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  for (; i < offset && i < s.size(); ++i) {
    const char c = s[i];
    if (c == '\n' || (c == '\r' && !(i + 1 < s.size() && s[i + 1] == '\n'))) {
      ++line;
      col = 1;
    } else if (c != '\r' && (static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++col;
    }
  }
  return {line, col};
}

/// Printable form of (at most 40 bytes of) `s` for error messages.
std::string quote(std::string_view s) {
  std::string out = "'";
  const std::size_t limit = 40;
  for (std::size_t i = 0; i < s.size() && i < limit; ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\'' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20 || c == 0x7f || c >= 0x80) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else {
      out += char(c);
    }
  }
  if (s.size() > limit) out += "...";
  out += '\'';
  return out;
}

std::vector<Token> Lexer::run(std::optional<Failure>& error) {
  std::vector<Token> out;
  out.reserve(s_.size() / 2 + 8);
  bool at_line_start = true; // at the start of a physical line at depth 0
  bool line_has_tokens = false;
  int pending_indent = -1;
  int depth = 0;
  auto emit = [&](Tk kind, std::size_t start, std::size_t end) {
    out.push_back(Token{kind, s_.substr(start, end - start), pending_indent});
    pending_indent = -1;
    line_has_tokens = true;
  };
  auto fail = [&](std::size_t at, std::string msg) {
    error = Failure{at, std::move(msg)};
    out.push_back(Token{Tk::error, s_.substr(at, 1), pending_indent});
    out.push_back(Token{Tk::eof, s_.substr(at, 0), 0});
    return out;
  };
  while (true) {
    if (at_line_start && depth == 0) {
      at_line_start = false;
      std::size_t i = pos_;
      int spaces = 0;
      std::size_t first_other_ws = std::string_view::npos;
      while (i < s_.size() && (s_[i] == ' ' || s_[i] == '\t' || s_[i] == '\f' || s_[i] == '\v')) {
        if (s_[i] == ' ' && first_other_ws == std::string_view::npos)
          ++spaces;
        else if (first_other_ws == std::string_view::npos)
          first_other_ws = i;
        ++i;
      }
      const bool blank = i >= s_.size() || s_[i] == '#' || s_[i] == '\n' || s_[i] == '\r';
      if (!blank) {
        if (first_other_ws != std::string_view::npos)
          return fail(first_other_ws, s_[first_other_ws] == '\t'
                                          ? "tab in indentation (indent with spaces)"
                                          : "unexpected whitespace character in indentation");
        pending_indent = spaces;
        line_has_tokens = false;
      }
      pos_ = i;
    }
    // Skip whitespace between tokens.
    while (pos_ < s_.size() &&
           (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\f' || s_[pos_] == '\v'))
      ++pos_;
    if (pos_ >= s_.size()) {
      if (line_has_tokens && depth == 0) emit(Tk::newline, pos_, pos_);
      out.push_back(Token{Tk::eof, s_.substr(pos_, 0), 0});
      return out;
    }
    const char c = s_[pos_];
    if (c == '#') {
      while (pos_ < s_.size() && s_[pos_] != '\n' && s_[pos_] != '\r')
        ++pos_;
      continue;
    }
    if (c == '\n' || c == '\r') {
      if (depth == 0 && line_has_tokens) {
        emit(Tk::newline, pos_, pos_);
        line_has_tokens = false;
      }
      pos_ += (c == '\r' && pos_ + 1 < s_.size() && s_[pos_ + 1] == '\n') ? 2 : 1;
      at_line_start = depth == 0; // inside parentheses lines join (no indentation)
      continue;
    }
    const std::size_t start = pos_;
    if (is_ident_start(c)) {
      while (pos_ < s_.size() && is_ident_char(s_[pos_]))
        ++pos_;
      emit(Tk::name, start, pos_);
      continue;
    }
    if (is_digit(c)) {
      while (pos_ < s_.size() && (is_ident_char(s_[pos_]) || s_[pos_] == '.'))
        ++pos_;
      const std::string_view lit = s_.substr(start, pos_ - start);
      if (const char* why = check_integer(lit))
        return fail(start, std::string(why) + " " + quote(lit));
      emit(Tk::integer, start, pos_);
      continue;
    }
    std::size_t len = 0;
    switch (c) {
    case '<':
    case '>':
    case '=':
    case '!':
      len = (pos_ + 1 < s_.size() && s_[pos_ + 1] == '=') ? 2 : 1;
      if (c == '!' && len == 1) len = 0;
      break;
    case '(':
      ++depth;
      len = 1;
      break;
    case ')':
      if (depth > 0) --depth;
      len = 1;
      break;
    case ',':
    case ':':
    case '-':
    case '*':
      len = 1;
      break;
    case '"':
    case '\'': { // a short string literal on one line, no escapes
      std::size_t end = pos_ + 1;
      while (end < s_.size() && end - pos_ <= kMaxString && s_[end] != c && s_[end] != '\n' &&
             s_[end] != '\r' && s_[end] != '\\')
        ++end;
      if (end >= s_.size() || s_[end] != c)
        return fail(start, end - pos_ > kMaxString ? "string literal too long"
                           : end < s_.size() && s_[end] == '\\'
                               ? "escapes are not supported in strings"
                               : "unterminated string literal");
      pos_ = end + 1;
      emit(Tk::string, start, pos_);
      continue;
    }
    default:
      break;
    }
    if (len == 0) {
      std::size_t n = 1;
      if (static_cast<unsigned char>(c) >= 0xC0)
        while (n < 4 && pos_ + n < s_.size() &&
               (static_cast<unsigned char>(s_[pos_ + n]) & 0xC0) == 0x80)
          ++n;
      return fail(start, "unexpected character " + quote(s_.substr(pos_, n)));
    }
    pos_ += len;
    emit(Tk::op, start, pos_);
  }
}

const char* Lexer::check_integer(std::string_view lit) {
  bool prev_digit = false;
  for (std::size_t i = 0; i < lit.size(); ++i) {
    const char c = lit[i];
    if (is_digit(c)) {
      prev_digit = true;
    } else if (c == '_' && prev_digit && i + 1 < lit.size() && is_digit(lit[i + 1])) {
      prev_digit = false;
    } else {
      return "expected an integer, got";
    }
  }
  if (lit.size() > 1 && lit[0] == '0') {
    for (char c : lit)
      if (c != '0' && c != '_') return "leading zeros are not allowed in";
  }
  return nullptr;
}

} // namespace tv::text_detail
