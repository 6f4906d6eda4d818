#pragma once
/// Follows a run's events.ndjson as it grows: each poll parses the complete lines appended
/// since the last one. The file is untrusted input: bad lines are counted, never fatal.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv {

/// What one poll found.
struct EventPoll {
  std::vector<nlohmann::json> events; ///< parsed objects, in file order
  /// The file shrank or its bytes before the old offset changed (a resumed run truncates the
  /// stream to its checkpoint): the follower started again from the beginning, and `events`
  /// are the new file's from its first line.
  bool reset = false;
  bool more = false; ///< stopped at max_bytes: more complete lines are waiting
};

/// The complete lines of an NDJSON file from one offset on (the stateless form of a poll, for
/// the JSON API's events endpoint).
struct EventSlice {
  std::vector<nlohmann::json> events; ///< parsed objects
  std::uint64_t next = 0;  ///< offset after the last complete line read, or inside a long one
  std::uint64_t size = 0;  ///< the file's size now
  long long bad_lines = 0; ///< lines in the slice that were not a JSON object
  std::string error;       ///< non-empty when `offset` is past the end or mid-line
};

/// Reads the complete lines that start at `offset` (0, just after a newline, or inside a line
/// longer than 1 MiB, where `next` lands when a slice ends in one: the rest of that line is
/// skipped), at most `max_bytes` of them (but always the first line when it is shorter than
/// 1 MiB). With `root`, a file whose real location is outside it is refused (error set).
EventSlice read_event_slice(const std::filesystem::path& path, std::uint64_t offset,
                            std::size_t max_bytes, const std::filesystem::path& root = {});

/// Incremental reader of one NDJSON file.
class EventFollower {
public:
  /// `max_line`: longer lines are skipped and counted as bad. With `root`, a file whose real
  /// location is outside it (a symlink pointing out) reads as missing, and problem() says so.
  explicit EventFollower(std::filesystem::path path, std::size_t max_line = std::size_t(1) << 20,
                         std::filesystem::path root = {});
  /// Reads at most `max_bytes` new bytes. A last line without its newline waits for the next
  /// poll. A missing file reads as empty.
  EventPoll poll(std::size_t max_bytes = std::size_t(16) << 20);
  /// Bytes consumed so far (at a line start, unless inside an over-long line being skipped).
  std::uint64_t offset() const { return offset_; }
  /// Complete lines read so far (good and bad).
  long long lines() const { return lines_; }
  /// Lines that were not a JSON object, or too long.
  long long bad_lines() const { return bad_lines_; }
  /// "line N: why" for the first bad line, or empty.
  const std::string& first_problem() const { return first_problem_; }
  /// Why the file is not read at all (it points outside the root), or empty.
  const std::string& problem() const { return problem_; }

private:
  friend EventSlice read_event_slice(const std::filesystem::path&, std::uint64_t, std::size_t,
                                     const std::filesystem::path&);
  void restart();
  void take_line(std::string_view line, EventPoll& out);

  std::filesystem::path path_;
  std::size_t max_line_;
  std::filesystem::path root_;
  std::string problem_;
  std::uint64_t offset_ = 0;
  std::string tail_;      ///< the last bytes before offset_, to notice a rewritten file
  bool skipping_ = false; ///< inside an over-long line: drop bytes up to its newline
  long long lines_ = 0, bad_lines_ = 0;
  std::string first_problem_;
};

} // namespace tv
