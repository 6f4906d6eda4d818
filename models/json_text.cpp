#include "models/json_text.hpp"

#include "ir/error.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <iterator>
#include <set>
#include <vector>

namespace tv {

namespace {

using nlohmann::json;

/// A char iterator that records how far the parser has read (for the position of a key).
class TrackingIterator {
public:
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char*;
  using reference = const char&;

  TrackingIterator(const char* p, const char** furthest) : p_(p), furthest_(furthest) {}
  reference operator*() const { return *p_; }
  TrackingIterator& operator++() {
    ++p_;
    if (p_ > *furthest_) *furthest_ = p_;
    return *this;
  }
  TrackingIterator operator++(int) {
    TrackingIterator old = *this;
    ++*this;
    return old;
  }
  friend bool operator==(const TrackingIterator& a, const TrackingIterator& b) {
    return a.p_ == b.p_;
  }
  friend bool operator!=(const TrackingIterator& a, const TrackingIterator& b) {
    return a.p_ != b.p_;
  }

private:
  const char* p_;
  const char** furthest_;
};

/// SAX events that only look for repeated keys, with the path of the object they are in.
class DuplicateKeys : public nlohmann::json_sax<json> {
public:
  DuplicateKeys(std::string_view text, std::string_view source, const char** furthest)
      : text_(text), source_(source), furthest_(furthest) {}

  bool null() override { return value(); }
  bool boolean(bool) override { return value(); }
  bool number_integer(number_integer_t) override { return value(); }
  bool number_unsigned(number_unsigned_t) override { return value(); }
  bool number_float(number_float_t, const string_t&) override { return value(); }
  bool string(string_t&) override { return value(); }
  bool binary(binary_t&) override { return value(); }
  bool start_object(std::size_t) override {
    push(true);
    return true;
  }
  bool key(string_t& k) override {
    Frame& f = frames_.back();
    if (!f.keys.insert(k).second) {
      const std::size_t at = std::size_t(*furthest_ - text_.data());
      throw InputError(
          fmt::format("{}:{}: duplicate key '{}' in {} (a JSON object must not "
                      "repeat a key)",
                      source_, text_position(text_, at), k,
                      f.path.empty() ? "the top-level object" : "object '" + f.path + "'"));
    }
    f.last_key = k;
    return true;
  }
  bool end_object() override {
    frames_.pop_back();
    return value();
  }
  bool start_array(std::size_t) override {
    push(false);
    return true;
  }
  bool end_array() override {
    frames_.pop_back();
    return value();
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) override {
    return false; // the DOM parse that follows reports it with its position
  }

private:
  struct Frame {
    bool object = true;
    std::set<std::string> keys;
    std::string path;
    std::string last_key;
    std::size_t index = 0;
  };
  void push(bool object) {
    Frame f;
    f.object = object;
    f.path = pending_name();
    frames_.push_back(std::move(f));
  }
  /// The path of the value about to start ("a.b[2]").
  std::string pending_name() const {
    if (frames_.empty()) return "";
    const Frame& f = frames_.back();
    const std::string here = f.object ? f.last_key : fmt::format("[{}]", f.index);
    if (f.path.empty()) return here;
    return f.object ? f.path + "." + here : f.path + here;
  }
  bool value() {
    if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
    return true;
  }

  std::string_view text_, source_;
  const char** furthest_;
  std::vector<Frame> frames_;
};

/// The parser's message without its "[json.exception...] parse error at line L, column C: "
/// prefix (we print our own position).
std::string parser_reason(const std::string& what) {
  auto col = what.find(", column ");
  if (col != std::string::npos) {
    auto colon = what.find(": ", col);
    if (colon != std::string::npos) return what.substr(colon + 2);
  }
  auto bracket = what.find("] ");
  return bracket == std::string::npos ? what : what.substr(bracket + 2);
}

} // namespace

std::string text_position(std::string_view text, std::size_t offset) {
  const std::size_t p = std::min(offset, text.size());
  const std::size_t line = 1 + std::size_t(std::count(text.begin(), text.begin() + p, '\n'));
  const std::size_t line_start = p == 0 ? std::string_view::npos : text.rfind('\n', p - 1);
  const std::size_t col = line_start == std::string_view::npos ? p + 1 : p - line_start;
  return fmt::format("{}:{}", line, col);
}

json parse_json_text(std::string_view text, std::string_view source) {
  json out;
  try {
    out = json::parse(text.begin(), text.end());
  } catch (const json::parse_error& e) {
    // e.byte is 1-based: the byte at which the parser stopped.
    throw InputError(fmt::format("{}:{}: malformed JSON: {}", source,
                                 text_position(text, e.byte == 0 ? 0 : e.byte - 1),
                                 parser_reason(e.what())));
  } catch (const json::exception& e) { // e.g. a number too large for a double
    throw InputError(fmt::format("{}: malformed JSON: {}", source, parser_reason(e.what())));
  }
  const char* furthest = text.data();
  DuplicateKeys sax(text, source, &furthest);
  json::sax_parse(TrackingIterator(text.data(), &furthest),
                  TrackingIterator(text.data() + text.size(), &furthest), &sax);
  return out;
}

} // namespace tv
