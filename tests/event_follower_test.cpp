// Following events.ndjson as it grows: complete lines only, bad lines counted, truncation
// and rewrites noticed, and the stateless slices behind the JSON API.
#include "serve/event_follower.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <filesystem>
#include <fstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace event_follower_test {

using namespace tv;
namespace fs = std::filesystem;

namespace {

/// `name` in `scratch` (not created).
fs::path temp_path(const test::ScratchDir& scratch, const std::string& name) {
  return scratch.at(name);
}

void append(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::app | std::ios::binary) << text;
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream(p, std::ios::trunc | std::ios::binary) << text;
}

} // namespace

TEST_CASE("event follower: a missing file reads as empty, then lines arrive as they are written") {
  const test::ScratchDir scratch("tilevolve_event_follower_test");
  const auto p = temp_path(scratch, "grow.ndjson");
  EventFollower f(p);
  CHECK(f.poll().events.empty());
  append(p, "{\"event\":\"start\"}\n{\"event\":\"program\",\"n\":1}\n");
  auto r = f.poll();
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[1]["n"] == 1);
  CHECK_FALSE(r.reset);
  // Half a line waits for its newline.
  append(p, "{\"event\":\"program\",");
  CHECK(f.poll().events.empty());
  const auto at = f.offset();
  append(p, "\"n\":2}\n");
  r = f.poll();
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0]["n"] == 2);
  CHECK(f.offset() > at);
  CHECK(f.lines() == 3);
  CHECK(f.bad_lines() == 0);
}

TEST_CASE("event follower: garbage, non-objects and over-long lines are counted and skipped") {
  const test::ScratchDir scratch("tilevolve_event_follower_test");
  const auto p = temp_path(scratch, "bad.ndjson");
  const std::string long_line = "{\"x\":\"" + std::string(300, 'a') + "\"}\n";
  write(p, "{\"a\":1}\nnot json\n[1,2]\n" + long_line + "{\"a\":2}\r\n\xff\xfe\n");
  EventFollower f(p, 100);
  const auto r = f.poll();
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[1]["a"] == 2); // CRLF is fine
  CHECK(f.bad_lines() == 4);
  CHECK(f.first_problem() == "line 2: not JSON");
}

TEST_CASE("event follower: an over-long line without its end is skipped up to its newline") {
  const test::ScratchDir scratch("tilevolve_event_follower_test");
  const auto p = temp_path(scratch, "longtail.ndjson");
  write(p, "{\"a\":1}\n" + std::string(500, 'x'));
  EventFollower f(p, 100);
  auto r = f.poll(50); // max_bytes below the line limit is raised to it
  CHECK(r.events.size() == 1);
  while (r.more)
    r = f.poll(50);
  CHECK(f.bad_lines() == 1);
  append(p, std::string(300, 'x') + "\n{\"a\":3}\n");
  r = f.poll();
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0]["a"] == 3);
  CHECK(f.bad_lines() == 1); // the long line counts once
}

TEST_CASE("event follower: a truncated or rewritten file starts over from its first line") {
  const test::ScratchDir scratch("tilevolve_event_follower_test");
  const auto p = temp_path(scratch, "reset.ndjson");
  write(p, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n");
  EventFollower f(p);
  CHECK(f.poll().events.size() == 3);
  // A resume truncates the stream to its checkpoint and appends from there.
  write(p, "{\"n\":1}\n");
  auto r = f.poll();
  CHECK(r.reset);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0]["n"] == 1);
  // Rewritten with other content that is longer than before: the bytes before the offset
  // changed, so the follower notices although the file did not shrink.
  write(p, "{\"n\":7}\n{\"n\":8}\n{\"n\":9}\n");
  r = f.poll();
  CHECK(r.reset);
  REQUIRE(r.events.size() == 3);
  CHECK(r.events[0]["n"] == 7);
  // Unchanged bytes and an append: no reset.
  append(p, "{\"n\":10}\n");
  r = f.poll();
  CHECK_FALSE(r.reset);
  REQUIRE(r.events.size() == 1);
  CHECK(r.events[0]["n"] == 10);
}

TEST_CASE("event follower: large appends come in bounded polls") {
  const test::ScratchDir scratch("tilevolve_event_follower_test");
  const auto p = temp_path(scratch, "big.ndjson");
  std::string text;
  for (int i = 0; i < 1000; ++i)
    text += "{\"n\":" + std::to_string(i) + "}\n";
  write(p, text);
  EventFollower f(p, 64);
  std::size_t total = 0, polls = 0;
  for (EventPoll r;; ++polls) {
    r = f.poll(1000);
    total += r.events.size();
    if (!r.more) break;
  }
  CHECK(total == 1000);
  CHECK(polls > 5);
  CHECK(f.offset() == text.size());
}

TEST_CASE("event slice: reads from a line start, refuses offsets mid-line or past the end") {
  const test::ScratchDir scratch("tilevolve_event_follower_test");
  const auto p = temp_path(scratch, "slice.ndjson");
  write(p, "{\"n\":1}\n{\"n\":2}\n{\"n\":3}\n");
  auto s = read_event_slice(p, 0, 1u << 20);
  REQUIRE(s.error.empty());
  CHECK(s.events.size() == 3);
  CHECK(s.next == s.size);
  s = read_event_slice(p, 8, 1u << 20);
  REQUIRE(s.error.empty());
  REQUIRE(s.events.size() == 2);
  CHECK(s.events[0]["n"] == 2);
  CHECK(read_event_slice(p, 3, 100).error.find("start of a line") != std::string::npos);
  CHECK(read_event_slice(p, 1000, 100).error.find("past the end") != std::string::npos);
  s = read_event_slice(p, s.next, 100);
  CHECK(s.error.empty());
  CHECK(s.events.empty());
}

TEST_CASE("event slice: following 'next' passes a line longer than a chunk (issue 65)") {
  const test::ScratchDir scratch("tilevolve_event_follower_test");
  const auto p = temp_path(scratch, "long.ndjson");
  // A 3 MiB line between two events: a slice reads at most 1 MiB + 2 bytes of it, and its
  // `next` lands inside it.
  write(p, "{\"n\":1}\n{\"text\":\"" + std::string(3u << 20, 'x') + "\"}\n{\"n\":2}\n");
  std::vector<nlohmann::json> events;
  long long bad = 0;
  std::uint64_t offset = 0;
  EventSlice s;
  for (int i = 0; i < 10; ++i) {
    s = read_event_slice(p, offset, 100);
    REQUIRE(s.error.empty());
    events.insert(events.end(), s.events.begin(), s.events.end());
    bad += s.bad_lines;
    REQUIRE(s.next > offset);
    offset = s.next;
    if (offset == s.size) break;
  }
  CHECK(offset == s.size);
  REQUIRE(events.size() == 2);
  CHECK(events[1]["n"] == 2);
  CHECK(bad == 1); // counted once, where the line starts
  // Inside a line no longer than the limit is still no place to start.
  CHECK(read_event_slice(p, 3, 100).error.find("start of a line") != std::string::npos);
  CHECK(read_event_slice(p, (1u << 20) + 8, 100).error.find("start of a line") !=
        std::string::npos);
}

TEST_CASE("event follower: a line nested deeper than the JSON limit is a bad line, not a crash") {
  const test::ScratchDir scratch("tilevolve_event_follower_test");
  const auto p = temp_path(scratch, "deep.ndjson");
  write(p, "{\"a\":1}\n{\"deep\":" + std::string(100000, '[') + std::string(100000, ']') + "}\n" +
               std::string(1000000, '[') + "\n{\"a\":2}\n");
  EventFollower f(p);
  const auto r = f.poll();
  REQUIRE(r.events.size() == 2);
  CHECK(r.events[1]["a"] == 2);
  CHECK(f.bad_lines() == 2);
  CHECK(f.first_problem() == "line 2: nested deeper than 512 levels");
}

} // namespace event_follower_test
