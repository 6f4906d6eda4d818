// Reply parsing: thinking sections, SEARCH/REPLACE blocks (through the IR's diff engine) and
// whole rewritten programs. Everything here is a linear scan of bounded text.
#include "evolve/mutators/reply_parser.hpp"

#include "ir/lines.hpp"

#include "evolve/mutators/excerpt.hpp"

#include <algorithm>
#include <cctype>

namespace tv {

namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = char(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct Tag {
  std::size_t pos, len;
  bool closing;
};

/// The next <think>, <thinking>, </think> or </thinking> tag at or after `from` in `low`.
std::size_t find_tag(const std::string& low, std::size_t from, Tag& tag) {
  for (std::size_t p = low.find('<', from); p != std::string::npos; p = low.find('<', p + 1)) {
    std::size_t q = p + 1;
    const bool closing = q < low.size() && low[q] == '/';
    if (closing) ++q;
    for (std::string_view word : {"thinking>", "think>"})
      if (low.compare(q, word.size(), word) == 0) {
        tag = {p, q + word.size() - p, closing};
        return p;
      }
  }
  return std::string::npos;
}

std::size_t indentation(std::string_view line) {
  std::size_t n = 0;
  while (n < line.size() && (line[n] == ' ' || line[n] == '\t'))
    ++n;
  return n;
}

bool is_fence(std::string_view line) {
  return line.substr(indentation(line)).substr(0, 3) == "```";
}

bool is_def(std::string_view line) {
  return line.substr(indentation(line)).substr(0, 11) == "def choose(";
}

/// From the def line at `at` to the end of its body: later lines that are blank, or indented
/// deeper than the def, up to (not including) `end` or a fence line.
std::string function_text(const std::vector<std::string_view>& lines, std::size_t at,
                          std::size_t end) {
  const std::size_t indent = indentation(lines[at]);
  std::size_t last = at; // last non-blank line of the body
  for (std::size_t i = at + 1; i < end; ++i) {
    const std::string_view l = lines[i];
    if (is_fence(l)) break;
    const std::size_t ind = indentation(l);
    if (ind == l.size()) continue; // blank
    if (ind <= indent) break;
    last = i;
  }
  std::string out;
  for (std::size_t i = at; i <= last; ++i) {
    out += lines[i];
    out += '\n';
  }
  return out;
}

/// The last whole program in `text` (inside or outside fences), or "".
std::string last_program(std::string_view text) {
  const std::vector<std::string_view> lines = split_lines(text);
  std::string found;
  for (std::size_t i = 0; i < lines.size(); ++i)
    if (is_def(lines[i])) found = function_text(lines, i, lines.size());
  return found;
}

/// The first line of `s` without its indentation, as a short printable excerpt.
std::string first_line(const std::string& s) {
  std::string_view v = s;
  v = v.substr(0, v.find('\n'));
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
    v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t' || v.back() == '\r'))
    v.remove_suffix(1);
  return excerpt(v, 60);
}

} // namespace

std::string_view reply_kind_name(ReplyKind k) {
  switch (k) {
  case ReplyKind::diff:
    return "diff";
  case ReplyKind::program:
    return "program";
  case ReplyKind::none:
    return "none";
  }
  return "none";
}

std::string strip_thinking(std::string_view reply, std::size_t* removed) {
  // Every tag starts "<t" or "</t" (either case): a reply without one is returned as it is,
  // without the lower-case copy (the mock LLM's replies, and most models').
  bool maybe_tag = false;
  for (std::size_t p = reply.find('<'); p != std::string_view::npos && !maybe_tag;
       p = reply.find('<', p + 1)) {
    std::size_t q = p + 1;
    if (q < reply.size() && reply[q] == '/') ++q;
    maybe_tag = q < reply.size() && (reply[q] == 't' || reply[q] == 'T');
  }
  if (!maybe_tag) {
    if (removed) *removed = 0;
    return std::string(reply);
  }
  const std::string low = lower(reply);
  std::string out;
  std::size_t pos = 0, dropped = 0;
  Tag tag{};
  // A closing tag before any opening one: everything before it was thinking.
  {
    Tag first{};
    const std::size_t at = find_tag(low, 0, first);
    if (at != std::string::npos && first.closing) {
      pos = first.pos + first.len;
      dropped += pos;
    }
  }
  while (pos < reply.size()) {
    const std::size_t at = find_tag(low, pos, tag);
    if (at == std::string::npos) {
      out.append(reply.substr(pos));
      break;
    }
    if (tag.closing) { // a stray closing tag: drop the tag only
      out.append(reply.substr(pos, at - pos));
      dropped += tag.len;
      pos = at + tag.len;
      continue;
    }
    out.append(reply.substr(pos, at - pos));
    // Skip to the matching close (nesting is counted); unclosed: to the end.
    int depth = 1;
    std::size_t scan = at + tag.len;
    std::size_t end = reply.size();
    while (depth > 0) {
      Tag t{};
      const std::size_t n = find_tag(low, scan, t);
      if (n == std::string::npos) break;
      depth += t.closing ? -1 : 1;
      scan = n + t.len;
      if (depth == 0) end = scan;
    }
    dropped += end - at;
    pos = end;
  }
  if (removed) *removed = dropped;
  return out;
}

ParsedReply parse_reply(std::string_view reply) {
  ParsedReply r;
  const std::string text = strip_thinking(reply, &r.thinking_chars);
  r.blocks = parse_diff(text);
  if (!r.blocks.empty()) {
    r.kind = ReplyKind::diff;
    return r;
  }
  r.program_text = last_program(text);
  if (!r.program_text.empty()) r.kind = ReplyKind::program;
  return r;
}

std::string describe_block_outcomes(const std::vector<DiffBlock>& blocks, const DiffResult& r) {
  std::string s;
  for (std::size_t i = 0; i < r.blocks.size(); ++i) {
    if (!s.empty()) s += "; ";
    const BlockOutcome o = r.blocks[i].outcome;
    if (o == BlockOutcome::applied || o == BlockOutcome::empty || i >= blocks.size())
      s += "block " + std::to_string(i + 1) + ": " + std::string(outcome_name(o));
    else
      s += "block " + std::to_string(i + 1) + " (SEARCH `" + first_line(blocks[i].search) +
           "`): " + std::string(outcome_name(o)) +
           (o == BlockOutcome::ambiguous ? " (" + std::to_string(r.blocks[i].matches) + " matches)"
                                         : "");
  }
  return s;
}

ReplyEdit edit_from_reply(std::string_view reply, std::string_view parent_text) {
  ReplyEdit e;
  e.parsed = parse_reply(reply);
  switch (e.parsed.kind) {
  case ReplyKind::none:
    e.failure = e.parsed.thinking_chars > 0 &&
                        strip_thinking(reply).find_first_not_of(" \t\r\n") == std::string::npos
                    ? "the reply holds only thinking, no SEARCH/REPLACE block or program"
                    : "no SEARCH/REPLACE block or program in the reply";
    break;
  case ReplyKind::program:
    e.child_text = e.parsed.program_text;
    break;
  case ReplyKind::diff:
    e.applied = apply_diff(parent_text, e.parsed.blocks);
    if (e.applied.all_applied())
      e.child_text = e.applied.text;
    else
      e.failure = describe_block_outcomes(e.parsed.blocks, e.applied);
    break;
  }
  return e;
}

} // namespace tv
