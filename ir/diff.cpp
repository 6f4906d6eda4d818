// SEARCH/REPLACE blocks: extraction from LLM replies, strict application, formatting.
//
// Extraction (parse_diff):
//   - A block is a line `<<<<<<< SEARCH`, the search lines, a line `=======`, the replace lines,
//     and a line `>>>>>>> REPLACE`. Marker lines need 7 or more '<' / '=' / '>' characters; spaces
//     or tabs are allowed before the marker, between the arrows and the word, and after it.
//   - Everything outside blocks (prose, ``` fences) is ignored. A block that is not terminated,
//     or that meets a marker out of order (a second SEARCH or `=======`, or REPLACE before the
//     divider), is dropped; a new `<<<<<<< SEARCH` always starts a fresh block.
//   - Line endings: "\r\n", "\n"; trailing '\r's are removed from every line.
//   - A code-fence line (starting with ```, after optional indentation) that is the first or
//     last line of a search or replace section is dropped (models sometimes fence the sections
//     themselves; program text never contains such a line). format_diff wraps a section that
//     starts or ends with such a line in one more fence pair, so its output parses back to the
//     same blocks.
//   - Convention: DiffBlock::search / replace hold the section's lines, each followed by '\n'
//     ("" for a section with no lines). apply_diff also accepts text without the final '\n'.
//
// Application (apply_diff), block by block on the running text:
//   - Texts are split into lines; lines compare equal when they are equal after removing
//     trailing whitespace (spaces, tabs, '\r', '\f', '\v'). Leading indentation is significant.
//   - Search empty or only whitespace -> `empty`.
//   - Whole-line rule: the search lines are looked for as a run of consecutive text lines
//     (overlapping runs count separately). Exactly one run -> those lines are replaced by the
//     replace lines (`applied`); more than one -> `ambiguous`, nothing changes.
//   - Fragment rule, only when the whole-line rule found nothing, the search is one line and the
//     replace at most one line: the search line with surrounding whitespace trimmed is looked
//     for inside single lines, at token boundaries only (the characters just outside the match
//     may not continue a word [A-Za-z0-9_] or an operator [<>=!] that the fragment starts or
//     ends with, so `12` never matches inside `128` nor `<` inside `<=`). Exactly one occurrence
//     in the whole text -> it is replaced by the trimmed replace line (`applied`), keeping the
//     rest of that line; several -> `ambiguous`; none -> `not_found`. A fragment never spans
//     lines, so it cannot change any line but the one it names uniquely.
//   - The result text uses '\n' line endings; it ends with '\n' when the input did.
#include "ir/diff.hpp"

#include "ir/lines.hpp"

#include <algorithm>

namespace tv {

namespace {

bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  s = rtrim(s);
  while (!s.empty() && is_space(s.front()))
    s.remove_prefix(1);
  return s;
}

/// split_lines, and whether `s` ends with a newline.
std::vector<std::string_view> lines_and_end(std::string_view s, bool* final_newline) {
  *final_newline = !s.empty() && s.back() == '\n';
  return split_lines(s);
}

enum class Marker { none, search, divider, replace };

Marker classify(std::string_view line) {
  line = trim(line);
  if (line.empty()) return Marker::none;
  const char c = line.front();
  if (c != '<' && c != '=' && c != '>') return Marker::none;
  std::size_t n = 0;
  while (n < line.size() && line[n] == c)
    ++n;
  if (n < 7) return Marker::none;
  const std::string_view rest = trim(line.substr(n));
  if (c == '<' && rest == "SEARCH") return Marker::search;
  if (c == '=' && rest.empty()) return Marker::divider;
  if (c == '>' && rest == "REPLACE") return Marker::replace;
  return Marker::none;
}

bool is_fence(std::string_view line) {
  while (!line.empty() && (line.front() == ' ' || line.front() == '\t'))
    line.remove_prefix(1);
  return line.substr(0, 3) == "```";
}

std::string join_section(const std::vector<std::string_view>& lines) {
  std::size_t b = 0, e = lines.size();
  if (b < e && is_fence(lines[b])) ++b;
  if (b < e && is_fence(lines[e - 1])) --e;
  std::string out;
  for (std::size_t i = b; i < e; ++i) {
    out += lines[i];
    out += '\n';
  }
  return out;
}

/// 1 for word characters, 2 for comparison-operator characters, 0 otherwise.
int char_class(char c) {
  const auto u = static_cast<unsigned char>(c);
  if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
      u >= 0x80)
    return 1;
  if (c == '<' || c == '>' || c == '=' || c == '!') return 2;
  return 0;
}

/// True when `frag` at `pos` in `line` starts and ends on token boundaries.
bool at_boundaries(std::string_view line, std::size_t pos, std::string_view frag) {
  if (pos > 0) {
    const int k = char_class(line[pos - 1]);
    if (k != 0 && k == char_class(frag.front())) return false;
  }
  const std::size_t end = pos + frag.size();
  if (end < line.size()) {
    const int k = char_class(line[end]);
    if (k != 0 && k == char_class(frag.back())) return false;
  }
  return true;
}

} // namespace

std::string_view outcome_name(BlockOutcome o) {
  switch (o) {
  case BlockOutcome::applied:
    return "applied";
  case BlockOutcome::not_found:
    return "not_found";
  case BlockOutcome::ambiguous:
    return "ambiguous";
  case BlockOutcome::empty:
    return "empty";
  }
  return "not_found";
}

bool DiffResult::all_applied() const {
  return !blocks.empty() && std::all_of(blocks.begin(), blocks.end(), [](const BlockReport& b) {
    return b.outcome == BlockOutcome::applied;
  });
}

int DiffResult::applied_count() const {
  return int(std::count_if(blocks.begin(), blocks.end(), [](const BlockReport& b) {
    return b.outcome == BlockOutcome::applied;
  }));
}

std::vector<DiffBlock> parse_diff(std::string_view reply) {
  std::vector<DiffBlock> out;
  enum class State { idle, search, replace } state = State::idle;
  std::vector<std::string_view> search, replace;
  for (std::string_view line : split_lines(reply)) {
    const Marker m = classify(line);
    if (m == Marker::search) { // always (re)starts a block
      state = State::search;
      search.clear();
      replace.clear();
      continue;
    }
    switch (state) {
    case State::idle:
      break;
    case State::search:
      if (m == Marker::divider)
        state = State::replace;
      else if (m == Marker::replace)
        state = State::idle; // no divider: malformed
      else
        search.push_back(line);
      break;
    case State::replace:
      if (m == Marker::replace) {
        out.push_back(DiffBlock{join_section(search), join_section(replace)});
        state = State::idle;
      } else if (m == Marker::divider) {
        state = State::idle; // second divider: malformed
      } else {
        replace.push_back(line);
      }
      break;
    }
  }
  return out;
}

DiffResult apply_diff(std::string_view text, const std::vector<DiffBlock>& blocks) {
  DiffResult res;
  bool final_newline = false;
  std::vector<std::string> lines;
  for (std::string_view l : lines_and_end(text, &final_newline))
    lines.emplace_back(l);
  std::vector<std::string_view> keys;

  for (const DiffBlock& b : blocks) {
    BlockReport rep;
    if (b.search.find_first_not_of(" \t\r\n\f\v") == std::string::npos) {
      rep.outcome = BlockOutcome::empty;
      res.blocks.push_back(rep);
      continue;
    }
    const std::vector<std::string_view> s = split_lines(b.search);
    const std::vector<std::string_view> r = split_lines(b.replace);
    keys.clear();
    for (const auto& l : lines)
      keys.push_back(rtrim(l));

    // Whole-line rule.
    std::size_t first = 0;
    int count = 0;
    if (s.size() <= keys.size()) {
      for (std::size_t i = 0; i + s.size() <= keys.size(); ++i) {
        bool eq = true;
        for (std::size_t j = 0; j < s.size() && eq; ++j)
          eq = keys[i + j] == rtrim(s[j]);
        if (eq && count++ == 0) first = i;
      }
    }
    if (count == 1) {
      std::vector<std::string> repl(r.begin(), r.end());
      lines.erase(lines.begin() + std::ptrdiff_t(first),
                  lines.begin() + std::ptrdiff_t(first + s.size()));
      lines.insert(lines.begin() + std::ptrdiff_t(first), repl.begin(), repl.end());
      rep.outcome = BlockOutcome::applied;
      rep.matches = 1;
    } else if (count > 1) {
      rep.outcome = BlockOutcome::ambiguous;
      rep.matches = count;
    } else if (s.size() == 1 && r.size() <= 1) {
      // Fragment rule.
      const std::string_view frag = trim(s[0]);
      std::size_t at_line = 0, at_pos = 0;
      for (std::size_t i = 0; i < keys.size(); ++i) {
        for (std::size_t pos = keys[i].find(frag); pos != std::string_view::npos;
             pos = keys[i].find(frag, pos + 1)) {
          if (!at_boundaries(keys[i], pos, frag)) continue;
          if (count++ == 0) {
            at_line = i;
            at_pos = pos;
          }
        }
      }
      rep.matches = count;
      if (count == 1) {
        const std::string_view with = r.empty() ? std::string_view() : trim(r[0]);
        lines[at_line].replace(at_pos, frag.size(), with);
        rep.outcome = BlockOutcome::applied;
      } else {
        rep.outcome = count == 0 ? BlockOutcome::not_found : BlockOutcome::ambiguous;
      }
    } else {
      rep.outcome = BlockOutcome::not_found;
    }
    res.blocks.push_back(rep);
  }

  std::size_t total = 0;
  for (const auto& l : lines)
    total += l.size() + 1;
  res.text.reserve(total);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    if (i) res.text += '\n';
    res.text += lines[i];
  }
  if (final_newline && !lines.empty()) res.text += '\n';
  return res;
}

std::string format_diff(const std::vector<DiffBlock>& blocks) {
  std::string out;
  auto section = [&out](const std::string& s) {
    // parse_diff drops one code-fence line at each end of a section, so a section that
    // itself starts or ends with one is wrapped in a fence pair, which is what gets dropped.
    const std::vector<std::string_view> lines = split_lines(s);
    const bool wrap = !lines.empty() && (is_fence(lines.front()) || is_fence(lines.back()));
    if (wrap) out += "```\n";
    out += s;
    if (!s.empty() && s.back() != '\n') out += '\n';
    if (wrap) out += "```\n";
  };
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (i) out += '\n';
    out += "<<<<<<< SEARCH\n";
    section(blocks[i].search);
    out += "=======\n";
    section(blocks[i].replace);
    out += ">>>>>>> REPLACE\n";
  }
  return out;
}

} // namespace tv
