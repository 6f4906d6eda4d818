#include "serve/event_follower.hpp"

#include "ir/bounded_json.hpp"
#include "serve/path_safety.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <fstream>
#include <system_error>

namespace tv {

namespace {
constexpr std::size_t kTail = 64;
} // namespace

EventFollower::EventFollower(std::filesystem::path path, std::size_t max_line,
                             std::filesystem::path root)
    : path_(std::move(path)), max_line_(max_line), root_(std::move(root)) {}

void EventFollower::restart() {
  offset_ = 0;
  tail_.clear();
  skipping_ = false;
  lines_ = bad_lines_ = 0;
  first_problem_.clear();
}

void EventFollower::take_line(std::string_view line, EventPoll& out) {
  ++lines_;
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  auto bad = [&](const std::string& why) {
    if (bad_lines_++ == 0) first_problem_ = fmt::format("line {}: {}", lines_, why);
  };
  if (line.size() > max_line_) return bad(fmt::format("longer than {} bytes", max_line_));
  nlohmann::json j;
  try {
    JsonReadOptions how;
    how.duplicate_keys = DuplicateKeys::keep_last;
    j = read_json(line, "events.ndjson", how);
  } catch (const JsonReadError& e) {
    return bad(e.kind == JsonReadError::Kind::too_deep
                   ? fmt::format("nested deeper than {} levels", kMaxJsonDepth)
                   : std::string("not JSON"));
  }
  if (!j.is_object()) return bad("not a JSON object");
  out.events.push_back(std::move(j));
}

EventPoll EventFollower::poll(std::size_t max_bytes) {
  EventPoll out;
  max_bytes = std::max(max_bytes, max_line_ + 2); // a line that fits max_line always fits
  std::error_code ec;
  const auto size = std::filesystem::file_size(path_, ec);
  const std::uint64_t have = ec ? 0 : size;
  problem_.clear();
  if (!ec && !root_.empty() && leaves_root(root_, path_)) {
    problem_ = "events.ndjson points outside the run directory: not read";
    ec = std::make_error_code(std::errc::permission_denied);
  }
  std::ifstream in;
  if (!ec) in.open(path_, std::ios::binary);
  if (ec || !in) {
    if (offset_ > 0) {
      restart();
      out.reset = true;
    }
    return out;
  }
  // Is the file still the one we read? Its bytes just before our offset must be unchanged.
  if (have < offset_) {
    restart();
    out.reset = true;
  } else if (!tail_.empty()) {
    std::string check(tail_.size(), '\0');
    in.seekg(std::streamoff(offset_ - tail_.size()));
    in.read(check.data(), std::streamsize(check.size()));
    if (!in || check != tail_) {
      restart();
      out.reset = true;
    }
  }
  if (have == offset_) return out;
  const std::uint64_t start = offset_;
  const std::uint64_t want = std::min<std::uint64_t>(have - start, max_bytes);
  std::string buf(want, '\0');
  in.clear();
  in.seekg(std::streamoff(offset_));
  in.read(buf.data(), std::streamsize(want));
  buf.resize(std::size_t(in.gcount()));

  std::size_t pos = 0;
  std::size_t consumed = 0;
  while (pos < buf.size()) {
    const std::size_t nl = buf.find('\n', pos);
    if (nl == std::string::npos) {
      if (buf.size() - pos > max_line_ && !skipping_) {
        // An over-long line with no end in sight: count it now, drop it up to its newline.
        take_line(std::string_view(buf).substr(pos), out);
        skipping_ = true;
      }
      if (skipping_) consumed = buf.size();
      break;
    }
    if (skipping_)
      skipping_ = false;
    else
      take_line(std::string_view(buf).substr(pos, nl - pos), out);
    pos = nl + 1;
    consumed = pos;
  }
  if (consumed >= kTail) {
    tail_ = buf.substr(consumed - kTail, kTail);
  } else if (consumed > 0) {
    tail_ += buf.substr(0, consumed);
    if (tail_.size() > kTail) tail_.erase(0, tail_.size() - kTail);
  }
  offset_ += consumed;
  out.more = want < have - start;
  return out;
}

EventSlice read_event_slice(const std::filesystem::path& path, std::uint64_t offset,
                            std::size_t max_bytes, const std::filesystem::path& root) {
  EventSlice out;
  if (!root.empty() && leaves_root(root, path)) {
    out.error = "events.ndjson points outside the run directory";
    return out;
  }
  std::error_code ec;
  const auto size = std::filesystem::file_size(path, ec);
  out.size = ec ? 0 : size;
  out.next = offset;
  if (offset > out.size) {
    out.error = fmt::format("offset {} is past the end of the stream ({} bytes)", offset, out.size);
    return out;
  }
  constexpr std::size_t kMaxLine = std::size_t(1) << 20;
  std::ifstream in(path, std::ios::binary);
  bool inside_long_line = false;
  if (offset > 0) {
    // A line start, or a point inside a line longer than kMaxLine: where `next` lands when a
    // slice ends in one (no newline in the kMaxLine + 1 bytes before it). Polling from there
    // skips the rest of that line, already counted bad.
    const std::uint64_t back = std::min<std::uint64_t>(offset, kMaxLine + 1);
    std::string before(back, '\0');
    in.seekg(std::streamoff(offset - back));
    in.read(before.data(), std::streamsize(back));
    if (in.gcount() != std::streamsize(back)) {
      out.error = fmt::format("offset {}: the stream could not be read there", offset);
      return out;
    }
    if (before.back() != '\n') {
      inside_long_line = back == kMaxLine + 1 && before.find('\n') == std::string::npos;
      if (!inside_long_line) {
        out.error = fmt::format("offset {} is not at the start of a line", offset);
        return out;
      }
    }
  }
  EventFollower f(path, kMaxLine, root);
  f.offset_ = offset;
  f.skipping_ = inside_long_line;
  // tail_ stays empty: nothing before `offset` is checked.
  EventPoll p = f.poll(max_bytes);
  out.events = std::move(p.events);
  out.next = f.offset();
  out.bad_lines = f.bad_lines();
  return out;
}

} // namespace tv
