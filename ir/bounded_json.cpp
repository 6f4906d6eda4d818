#include "ir/bounded_json.hpp"

#include "ir/error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <iterator>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tv {

namespace {

/// A char iterator that records how far the parser has read (where a key or a nesting level
/// starts: the parser tells only the position of a syntax error).
class ReadPositionIterator {
public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  ReadPositionIterator(const char* p, const char** furthest) : p_(p), furthest_(furthest) {}
  reference operator*() const { return *p_; }
  ReadPositionIterator& operator++() {
    ++p_;
    if (p_ > *furthest_) *furthest_ = p_;
    return *this;
  }
  ReadPositionIterator operator++(int) {
    ReadPositionIterator old = *this;
    ++*this;
    return old;
  }
  friend bool operator==(const ReadPositionIterator& a, const ReadPositionIterator& b) {
    return a.p_ == b.p_;
  }
  friend bool operator!=(const ReadPositionIterator& a, const ReadPositionIterator& b) {
    return a.p_ != b.p_;
  }

private:
  const char* p_;
  const char** furthest_;
};

/// The parser's message without its "[json.exception...] parse error at line L, column C: "
/// prefix (the message carries our own position).
std::string parser_reason(const std::string& what) {
  auto col = what.find(", column ");
  if (col != std::string::npos) {
    auto colon = what.find(": ", col);
    if (colon != std::string::npos) return what.substr(colon + 2);
  }
  auto bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

/// SAX events to a document, as nlohmann's own DOM parser builds it, with the nesting bounded
/// and repeated keys found as they come. Memory: the document, plus per open level its last
/// key (and, for ordered_json, an index of its keys).
template <class Json> class BoundedBuilder {
public:
  using number_integer_t = typename Json::number_integer_t;
  using number_unsigned_t = typename Json::number_unsigned_t;
  using number_float_t = typename Json::number_float_t;
  using string_t = typename Json::string_t;
  using binary_t = typename Json::binary_t;
  using object_t = typename Json::object_t;
  using array_t = typename Json::array_t;

  BoundedBuilder(std::string_view text, std::string_view source, const JsonReadOptions& o,
                 const char* const* furthest)
      : text_(text), source_(source), options_(o), furthest_(furthest) {}

  Json& result() { return root_; }

  bool null() { return put(nullptr); }
  bool boolean(bool v) { return put(v); }
  bool number_integer(number_integer_t v) { return put(v); }
  bool number_unsigned(number_unsigned_t v) { return put(v); }
  bool number_float(number_float_t v, const string_t&) { return put(v); }
  bool string(string_t& v) { return put(std::move(v)); }
  bool binary(binary_t& v) { return put(Json::binary(std::move(v))); }
  bool start_object(std::size_t) { return open(Json::value_t::object); }
  bool start_array(std::size_t) { return open(Json::value_t::array); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }

  bool key(string_t& k) {
    Level& l = levels_.back();
    object_t& obj = l.value->template get_ref<object_t&>();
    if constexpr (std::is_same_v<Json, nlohmann::ordered_json>) {
      // ordered_map::emplace searches its vector: look keys up in an index instead.
      auto& entries = static_cast<typename object_t::Container&>(obj);
      const auto [at, fresh] = l.positions.emplace(k, entries.size());
      if (fresh) {
        entries.emplace_back(k, Json());
        l.slot = &entries.back().second;
      } else {
        repeated(k);
        l.slot = &entries[at->second].second;
        *l.slot = Json();
      }
    } else {
      const auto [at, fresh] = obj.emplace(k, Json());
      if (!fresh) {
        repeated(k);
        at->second = Json();
      }
      l.slot = &at->second;
    }
    l.key = std::move(k);
    return true;
  }

  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& e) {
    // `position` is just past what the parser read: for a syntax error the byte it stopped at,
    // for a number out of range the end of the number.
    std::size_t at = position == 0 ? 0 : position - 1;
    if (e.id == 406 && position >= token.size()) at = position - token.size();
    throw JsonReadError(JsonReadError::Kind::malformed,
                        fmt::format("{}:{}: {}: {}", source_, text_position(text_, at),
                                    options_.malformed, parser_reason(e.what())));
  }

private:
  struct Level {
    Json* value = nullptr; ///< the array or object being filled
    Json* slot = nullptr;  ///< an object's value for its last key
    string_t key;          ///< an object's last key (for the path in a message)
    std::unordered_map<string_t, std::size_t> positions; ///< ordered_json: key -> index
  };

  /// Byte offset of the last character the parser read.
  std::size_t here() const {
    const std::size_t read = std::size_t(*furthest_ - text_.data());
    return read == 0 ? 0 : read - 1;
  }

  /// Where the next value goes: the root, the end of the open array, or the open object's slot.
  template <class V> Json* place(V&& v) {
    if (levels_.empty()) {
      root_ = Json(std::forward<V>(v));
      return &root_;
    }
    Level& l = levels_.back();
    if (l.value->is_array()) {
      array_t& a = l.value->template get_ref<array_t&>();
      a.emplace_back(std::forward<V>(v));
      return &a.back();
    }
    *l.slot = Json(std::forward<V>(v));
    return l.slot;
  }
  template <class V> bool put(V&& v) {
    place(std::forward<V>(v));
    return true;
  }

  bool open(typename Json::value_t kind) {
    if (levels_.size() >= std::size_t(std::max(options_.max_depth, 0)))
      throw JsonReadError(JsonReadError::Kind::too_deep,
                          fmt::format("{}:{}: JSON nested deeper than {} levels", source_,
                                      text_position(text_, here()), options_.max_depth));
    Level l;
    l.value = place(kind);
    levels_.push_back(std::move(l));
    return true;
  }
  bool close() {
    levels_.pop_back();
    return true;
  }

  /// Refuses the repeated key `k` of the last level when the options say so.
  void repeated(const string_t& k) const {
    if (options_.duplicate_keys == DuplicateKeys::keep_last) return;
    // The path of the object (the last level): each enclosing level's key or index ("a.b[2]").
    std::string path;
    for (std::size_t i = 0; i + 1 < levels_.size(); ++i) {
      const Level& up = levels_[i];
      if (up.value->is_object())
        path += (path.empty() ? "" : ".") + up.key;
      else
        path += fmt::format("[{}]", up.value->size() - 1);
    }
    throw JsonReadError(
        JsonReadError::Kind::duplicate_key,
        fmt::format("{}:{}: duplicate key '{}' in {} (a JSON object must not repeat a key)",
                    source_, text_position(text_, std::size_t(*furthest_ - text_.data())),
                    k, // just past the key
                    levels_.size() == 1 ? "the top-level object" : "object '" + path + "'"));
  }

  std::string_view text_, source_;
  const JsonReadOptions& options_;
  const char* const* furthest_;
  Json root_;
  std::vector<Level> levels_;
};

template <class Json>
Json read_bounded(std::string_view text, std::string_view source, const JsonReadOptions& o) {
  const char* furthest = text.data();
  BoundedBuilder<Json> builder(text, source, o, &furthest);
  try {
    Json::sax_parse(ReadPositionIterator(text.data(), &furthest),
                    ReadPositionIterator(text.data() + text.size(), &furthest), &builder);
  } catch (const nlohmann::json::exception& e) { // reported outside parse_error: none known
    throw JsonReadError(JsonReadError::Kind::malformed,
                        fmt::format("{}: {}: {}", source, o.malformed, parser_reason(e.what())));
  }
  return std::move(builder.result());
}

} // namespace

std::string text_position(std::string_view text, std::size_t offset) {
  const std::size_t p = std::min(offset, text.size());
  const std::size_t line = 1 + std::size_t(std::count(text.begin(), text.begin() + p, '\n'));
  const std::size_t line_start = p == 0 ? std::string_view::npos : text.rfind('\n', p - 1);
  const std::size_t col = line_start == std::string_view::npos ? p + 1 : p - line_start;
  return fmt::format("{}:{}", line, col);
}

nlohmann::json read_json(std::string_view text, std::string_view source,
                         const JsonReadOptions& options) {
  return read_bounded<nlohmann::json>(text, source, options);
}

nlohmann::ordered_json read_ordered_json(std::string_view text, std::string_view source,
                                         const JsonReadOptions& options) {
  return read_bounded<nlohmann::ordered_json>(text, source, options);
}

} // namespace tv
