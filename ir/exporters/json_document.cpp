#include "ir/exporters/json_document.hpp"

#include "ir/bounded_json.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>
#include <set>
#include <vector>

namespace tv {

namespace {

/// Line and column (1-based) of byte `offset`.
std::pair<int, int> position(std::string_view text, std::size_t offset) {
  int line = 1, col = 1;
  for (std::size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++line;
      col = 1;
    } else {
      ++col;
    }
  }
  return {line, col};
}

/// Printable form of a key for messages (at most 40 bytes).
std::string show(std::string_view s) {
  std::string out;
  for (std::size_t i = 0; i < s.size() && i < 40; ++i) {
    const auto c = static_cast<unsigned char>(s[i]);
    out += (c >= 0x20 && c < 0x7f) ? char(c) : '?';
  }
  return s.size() > 40 ? out + "..." : out;
}

/// Index just past the string literal starting at `i` (a '"'); text.size() if unterminated.
std::size_t skip_string(std::string_view text, std::size_t i) {
  for (++i; i < text.size(); ++i) {
    if (text[i] == '\\')
      ++i;
    else if (text[i] == '"')
      return i + 1;
  }
  return text.size();
}

} // namespace

std::string json_pointer_child(const std::string& parent, std::string_view key) {
  std::string out = parent + "/";
  for (const char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

std::string json_pointer_child(const std::string& parent, std::size_t index) {
  return parent + "/" + std::to_string(index);
}

JsonDocument::JsonDocument(std::string_view text, std::string source, int max_depth,
                           std::size_t max_bytes)
    : source_(std::move(source)) {
  if (text.size() > max_bytes)
    throw InputError(fmt::format("{}: {} bytes; a JSON file here may have at most {}", source_,
                                 text.size(), max_bytes));
  // nlohmann's parser takes a NUL byte for the end of the input; JSON text has none.
  if (const std::size_t nul = text.find('\0'); nul != std::string_view::npos) {
    const auto [line, col] = position(text, nul);
    throw InputError(fmt::format("{}:{}:{}: not valid JSON: a NUL byte", source_, line, col));
  }
  // Nesting bounded while parsing; repeated keys are refused below, with their line.
  JsonReadOptions o;
  o.max_depth = max_depth;
  o.duplicate_keys = DuplicateKeys::keep_last;
  o.malformed = "not valid JSON";
  root_ = read_ordered_json(text, source_, o);

  // Where every value starts, and duplicate keys (the parser keeps one of them silently).
  struct Frame {
    bool object = false;
    std::string pointer;
    std::size_t index = 0;
    std::string key;
    bool expect_key = false;
    std::set<std::string> keys;
  };
  std::vector<Frame> frames;
  int line = 1;
  for (std::size_t i = text.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0; i < text.size();) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r' || c == ':') {
      ++i;
      continue;
    }
    if (c == ',') {
      if (!frames.empty()) {
        if (frames.back().object)
          frames.back().expect_key = true;
        else
          ++frames.back().index;
      }
      ++i;
      continue;
    }
    if (c == '}' || c == ']') {
      if (!frames.empty()) frames.pop_back();
      ++i;
      continue;
    }
    if (!frames.empty() && frames.back().object && frames.back().expect_key && c == '"') {
      const std::size_t end = skip_string(text, i);
      Frame& f = frames.back();
      f.key = nlohmann::json::parse(text.substr(i, end - i)).get<std::string>();
      if (!f.keys.insert(f.key).second)
        throw InputError(fmt::format("{}:{}: key \"{}\" appears twice in one object", source_, line,
                                     show(f.key)));
      f.expect_key = false;
      i = end;
      continue;
    }
    // A value starts here.
    std::string pointer;
    if (!frames.empty())
      pointer = frames.back().object
                    ? json_pointer_child(frames.back().pointer, frames.back().key)
                    : json_pointer_child(frames.back().pointer, frames.back().index);
    lines_.emplace(pointer, line);
    if (c == '{' || c == '[') {
      Frame f;
      f.object = c == '{';
      f.pointer = pointer;
      f.expect_key = f.object;
      frames.push_back(std::move(f));
      ++i;
    } else if (c == '"') {
      const std::size_t end = skip_string(text, i);
      for (std::size_t k = i; k < end; ++k) // strings hold no raw newlines in valid JSON
        line += text[k] == '\n';
      i = end;
    } else {
      while (i < text.size() && text[i] != ',' && text[i] != '}' && text[i] != ']' &&
             text[i] != ' ' && text[i] != '\n' && text[i] != '\t' && text[i] != '\r')
        ++i;
    }
  }
}

int JsonDocument::line_of(const std::string& pointer) const {
  const auto it = lines_.find(pointer);
  return it == lines_.end() ? 0 : it->second;
}

void JsonDocument::fail(const std::string& pointer, const std::string& what) const {
  const int line = line_of(pointer);
  const std::string where = pointer.empty() ? "" : fmt::format(" at {}:", show(pointer));
  if (line > 0) throw InputError(fmt::format("{}:{}:{} {}", source_, line, where, what));
  throw InputError(fmt::format("{}:{} {}", source_, where, what));
}

} // namespace tv
