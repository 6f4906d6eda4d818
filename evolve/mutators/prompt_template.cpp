#include "evolve/mutators/prompt_template.hpp"

#include "evolve/mutators/excerpt.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tv {

namespace {

bool name_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

std::string list(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names)
    out += (out.empty() ? "{" : ", {") + n + "}";
  return out;
}

} // namespace

PromptTemplate PromptTemplate::parse(std::string_view text, std::string source,
                                     const std::vector<std::string>& known,
                                     const std::vector<std::string>& required) {
  PromptTemplate t;
  t.source_ = std::move(source);
  t.text_ = std::string(text);
  int line = 1, col = 1;
  std::string literal;
  auto where = [&](int l, int c) { return fmt::format("{}:{}:{}", t.source_, l, c); };
  for (std::size_t i = 0; i < text.size();) {
    const char c = text[i];
    if (c == '{' && i + 1 < text.size() && text[i + 1] == '{') {
      literal += '{';
      i += 2;
      col += 2;
      continue;
    }
    if (c == '}' && i + 1 < text.size() && text[i + 1] == '}') {
      literal += '}';
      i += 2;
      col += 2;
      continue;
    }
    if (c == '}')
      throw InputError(
          fmt::format("{}: lone '}}' (write '}}}}' for a literal brace)", where(line, col)));
    if (c == '{') {
      std::size_t j = i + 1;
      while (j < text.size() && name_char(text[j]))
        ++j;
      if (j == i + 1 || j >= text.size() || text[j] != '}')
        throw InputError(fmt::format("{}: '{{' does not start a placeholder {{name}} (write "
                                     "'{{{{' for a literal brace)",
                                     where(line, col)));
      const std::string name(text.substr(i + 1, j - i - 1));
      if (std::find(known.begin(), known.end(), name) == known.end())
        throw InputError(fmt::format("{}: unknown placeholder {{{}}} (known: {})", where(line, col),
                                     excerpt(name, 40), list(known)));
      if (!literal.empty()) t.pieces_.push_back({false, std::move(literal)});
      literal.clear();
      t.pieces_.push_back({true, name});
      if (std::find(t.used_.begin(), t.used_.end(), name) == t.used_.end()) t.used_.push_back(name);
      col += int(j + 1 - i);
      i = j + 1;
      continue;
    }
    literal += c;
    ++i;
    if (c == '\n') {
      ++line;
      col = 1;
    } else if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) {
      ++col; // count code points, not bytes
    }
  }
  if (!literal.empty()) t.pieces_.push_back({false, std::move(literal)});
  for (const auto& r : required)
    if (std::find(t.used_.begin(), t.used_.end(), r) == t.used_.end())
      throw InputError(fmt::format("{}: the template never uses the placeholder {{{}}}, which it "
                                   "needs",
                                   t.source_, r));
  return t;
}

PromptTemplate PromptTemplate::load(const std::string& path, const std::vector<std::string>& known,
                                    const std::vector<std::string>& required) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw InputError(
        fmt::format("cannot read prompt template '{}': {}", path, std::strerror(errno)));
  std::ostringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path, known, required);
}

std::string PromptTemplate::fill(const std::map<std::string, std::string>& values) const {
  std::string out;
  for (const Piece& p : pieces_) {
    if (!p.placeholder) {
      out += p.text;
      continue;
    }
    const auto it = values.find(p.text);
    if (it == values.end())
      throw std::logic_error("prompt template " + source_ + ": no value for {" + p.text + "}");
    out += it->second;
  }
  return out;
}

} // namespace tv
