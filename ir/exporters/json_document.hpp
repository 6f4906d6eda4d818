#pragma once
/// Untrusted JSON (a user's file, an LLM's reply) parsed strictly, with the line of every value
/// so that a message can name it: "FILE:LINE: at /rules/3/if/0/value: expected an integer".
/// Refused: syntax errors (with line and column), duplicate object keys (Python's json.load
/// would keep the last one silently), nesting deeper than a bound, and texts above a size bound.
#include <cstddef>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tv {

/// A parsed document and where its values start.
class JsonDocument {
public:
  /// Parses `text`; throws InputError naming `source` and the line for anything refused.
  JsonDocument(std::string_view text, std::string source, int max_depth = 16,
               std::size_t max_bytes = std::size_t(16) << 20);

  /// The document, object keys in file order.
  const nlohmann::ordered_json& root() const { return root_; }
  const std::string& source() const { return source_; }
  /// 1-based line where the value at JSON pointer `pointer` ("" = the root) starts; 0 if none.
  int line_of(const std::string& pointer) const;
  /// Throws InputError("SOURCE:LINE: at POINTER: WHAT") (no line part when unknown).
  [[noreturn]] void fail(const std::string& pointer, const std::string& what) const;

private:
  nlohmann::ordered_json root_;
  std::string source_;
  std::map<std::string, int> lines_;
};

/// `parent` extended by an object key (RFC 6901 escaping of '~' and '/').
std::string json_pointer_child(const std::string& parent, std::string_view key);
/// `parent` extended by an array index.
std::string json_pointer_child(const std::string& parent, std::size_t index);

} // namespace tv
