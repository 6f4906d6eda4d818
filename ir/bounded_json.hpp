#pragma once
/// The one reading path for JSON text that tilevolve did not make itself in this process: files
/// a user, another tool or a crashed run wrote (GPU profiles, config.json, checkpoint.json,
/// replay headers, imports, study.json, events.ndjson lines, per_shape.json, exchange logs) and
/// replies from servers. Nesting is bounded while the text is parsed (the parser keeps its own
/// stack; nothing recurses as deep as the text nests), so a document that comes out of it can
/// be walked recursively (dump, copy, compare) without exhausting the stack; memory stays linear
/// in the text; anything refused is an InputError naming the source, line and column.
#include "ir/error.hpp"

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace tv {

/// The deepest nesting of arrays and objects a JSON text may have: the files tilevolve writes
/// nest 6 levels at most; 512 leaves hand-made files room while every recursive walk over the
/// parsed document stays a few hundred frames deep.
inline constexpr int kMaxJsonDepth = 512;

/// What to do with an object that repeats a key.
enum class DuplicateKeys {
  refuse,   ///< an InputError "duplicate key 'k' in object 'a.b[2]'"
  keep_last ///< the last value wins (what Python's json.load and nlohmann::json::parse do)
};

/// Why read_json refused a text: an InputError (the CLI reports it as any other) that also says
/// which kind of refusal it was.
struct JsonReadError : InputError {
  /// The kinds of refusal: bad syntax or a number out of range, nesting past the limit, a
  /// repeated key.
  enum class Kind { malformed, too_deep, duplicate_key };
  /// `what` is the whole message.
  JsonReadError(Kind k, const std::string& what) : InputError(what), kind(k) {}
  Kind kind; ///< which refusal
};

/// How read_json reads a text.
struct JsonReadOptions {
  int max_depth = kMaxJsonDepth; ///< deepest nesting of arrays and objects accepted
  DuplicateKeys duplicate_keys = DuplicateKeys::refuse; ///< an object that repeats a key
  /// The words a syntax error's message starts with, after the position.
  std::string_view malformed = "malformed JSON";
};

/// Parses `text` as one JSON value. Throws JsonReadError "SOURCE:LINE:COL: malformed JSON: REASON"
/// for bad syntax or a number out of range, "SOURCE:LINE:COL: JSON nested deeper than N levels"
/// when an array or object opens deeper than options.max_depth, and "SOURCE:LINE:COL: duplicate
/// key 'k' in object 'a.b[1]' (a JSON object must not repeat a key)" with DuplicateKeys::refuse.
nlohmann::json read_json(std::string_view text, std::string_view source,
                         const JsonReadOptions& options = {});
/// read_json keeping object keys in file order; linear in the number of keys too (parsing
/// nlohmann::ordered_json directly looks each key up in a vector: quadratic).
nlohmann::ordered_json read_ordered_json(std::string_view text, std::string_view source,
                                         const JsonReadOptions& options = {});

/// "line:col" (1-based, columns in bytes) of byte `offset` of `text`.
std::string text_position(std::string_view text, std::size_t offset);

} // namespace tv
