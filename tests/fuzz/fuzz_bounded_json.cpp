// Fuzz target for the one bounded reader of untrusted JSON (ir/bounded_json.hpp): any bytes must
// read or raise JsonReadError naming the source, never crash, hang, leak or recurse as deep as
// the text nests. Properties: a document that reads nests no deeper than the limit and reads
// back from its own dump to the same value; where nlohmann's parser (without a limit) takes the
// text, a read that keeps the last of repeated keys gives its value, and a text nlohmann refuses
// is refused as malformed. The first byte picks the options (depth limit 1-63 or
// kMaxJsonDepth, repeated keys refused or the last kept, ordered keys or not); the rest is the
// text. Seeds in tests/fuzz/corpus/bounded_json/ (deep nesting among them). Built by
// -DTILEVOLVE_FUZZ=ON (links the tv_ libraries).
#include "ir/bounded_json.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace {

/// How deep `j` nests (arrays and objects); `j` comes from the bounded reader.
template <class Json> int depth_of(const Json& j) {
  if (!j.is_structured()) return 0;
  int deepest = 0;
  for (const auto& v : j)
    deepest = std::max(deepest, depth_of(v));
  return deepest + 1;
}

template <class Json> Json read(std::string_view text, const tv::JsonReadOptions& o) {
  if constexpr (std::is_same_v<Json, nlohmann::ordered_json>)
    return tv::read_ordered_json(text, "fuzz.json", o);
  else
    return tv::read_json(text, "fuzz.json", o);
}

template <class Json> void check(std::string_view text, const tv::JsonReadOptions& o) {
  Json j;
  try {
    j = read<Json>(text, o);
  } catch (const tv::JsonReadError& e) {
    if (std::string_view(e.what()).substr(0, 9) != "fuzz.json") __builtin_trap();
    if (e.kind == tv::JsonReadError::Kind::malformed && Json::accept(text.begin(), text.end()))
      __builtin_trap(); // nlohmann takes it: a syntax error of ours alone
    return;
  }
  if (depth_of(j) > o.max_depth) __builtin_trap();
  const std::string dumped = j.dump(-1, ' ', false, Json::error_handler_t::replace);
  if (dumped.find("\xEF\xBF\xBD") == std::string::npos && read<Json>(dumped, o) != j)
    __builtin_trap(); // (invalid UTF-8 replaced on the way out reads back as something else)
  if (o.duplicate_keys == tv::DuplicateKeys::keep_last) {
    const Json theirs = Json::parse(text.begin(), text.end(), nullptr, false);
    if (theirs.is_discarded() || theirs != j) __builtin_trap();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::uint8_t how = data[0];
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  tv::JsonReadOptions o;
  o.max_depth = (how & 0x3f) == 0 ? tv::kMaxJsonDepth : int(how & 0x3f);
  o.duplicate_keys = (how & 0x40) ? tv::DuplicateKeys::keep_last : tv::DuplicateKeys::refuse;
  if (how & 0x80)
    check<nlohmann::ordered_json>(text, o);
  else
    check<nlohmann::json>(text, o);
  return 0;
}
