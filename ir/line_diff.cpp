// Line diff (longest common subsequence over lines, compared without trailing whitespace), the
// diff shown line by line, and its conversion to SEARCH/REPLACE blocks with just enough context
// to be unique.
//
// Blocks are generated in order on the running text (the text after the earlier blocks were
// applied), so each block's uniqueness is checked against exactly the text it will meet.
// The context is the fewest unchanged neighbouring lines (those after the change preferred) that
// make the SEARCH lines occur once in the running text; at worst the whole text.
#include "ir/line_diff.hpp"

#include "ir/lines.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace tv {

namespace {

bool same(const std::string& a, const std::string& b) {
  return rtrim(a) == rtrim(b);
}

int occurrences(const std::vector<std::string>& text, std::size_t from, std::size_t to) {
  const std::size_t len = to - from;
  if (len == 0) return 0;
  int count = 0;
  for (std::size_t i = 0; i + len <= text.size(); ++i) {
    bool eq = true;
    for (std::size_t k = 0; k < len && eq; ++k)
      eq = same(text[i + k], text[from + k]);
    count += eq;
  }
  return count;
}

std::string join(const std::vector<std::string>& v, std::size_t from, std::size_t to) {
  std::string out;
  for (std::size_t i = from; i < to; ++i) {
    out += v[i];
    out += '\n';
  }
  return out;
}

} // namespace

std::vector<LineHunk> line_hunks(const std::vector<std::string_view>& a,
                                 const std::vector<std::string_view>& b) {
  const std::size_t n = a.size(), m = b.size();
  // lcs(i, j): length of the LCS of a[i..] and b[j..].
  std::vector<std::uint32_t> table((n + 1) * (m + 1), 0);
  const auto lcs = [&](std::size_t i, std::size_t j) -> std::uint32_t& {
    return table[i * (m + 1) + j];
  };
  const auto same = [&](std::size_t i, std::size_t j) { return rtrim(a[i]) == rtrim(b[j]); };
  for (std::size_t i = n; i-- > 0;)
    for (std::size_t j = m; j-- > 0;)
      lcs(i, j) = same(i, j) ? lcs(i + 1, j + 1) + 1 : std::max(lcs(i + 1, j), lcs(i, j + 1));
  std::vector<LineHunk> out;
  std::size_t i = 0, j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && same(i, j)) {
      ++i;
      ++j;
      continue;
    }
    LineHunk h{i, i, j, j};
    while ((i < n || j < m) && !(i < n && j < m && same(i, j))) {
      if (j < m && (i == n || lcs(i, j + 1) >= lcs(i + 1, j)))
        ++j;
      else
        ++i;
    }
    h.a1 = i;
    h.b1 = j;
    out.push_back(h);
  }
  return out;
}

std::vector<DiffLine> line_diff(std::string_view before, std::string_view after,
                                std::size_t max_lines) {
  const std::vector<std::string_view> a = split_lines(before), b = split_lines(after);
  std::vector<DiffLine> out;
  const auto emit = [&](char kind, const std::vector<std::string_view>& v, std::size_t from,
                        std::size_t to) {
    for (std::size_t k = from; k < to; ++k)
      out.push_back({kind, std::string(v[k])});
  };
  if (a.size() > max_lines || b.size() > max_lines) {
    emit('-', a, 0, a.size());
    emit('+', b, 0, b.size());
    return out;
  }
  std::size_t kept_from = 0;
  for (const LineHunk& h : line_hunks(a, b)) {
    emit(' ', a, kept_from, h.a0);
    emit('-', a, h.a0, h.a1);
    emit('+', b, h.b0, h.b1);
    kept_from = h.a1;
  }
  emit(' ', a, kept_from, a.size());
  return out;
}

std::string diff_text(const std::vector<DiffLine>& diff) {
  std::string s;
  for (const DiffLine& l : diff) {
    s += l.kind;
    s += l.text;
    s += '\n';
  }
  return s;
}

std::vector<DiffBlock> diff_lines(std::string_view from, std::string_view to) {
  const std::vector<std::string_view> a = split_lines(from), bv = split_lines(to);
  const std::vector<std::string> b(bv.begin(), bv.end());
  std::vector<DiffBlock> out;
  std::vector<std::string> running(a.begin(), a.end());
  std::ptrdiff_t shift = 0; // running index = old index + shift
  for (const LineHunk& h : line_hunks(a, bv)) {
    std::size_t s0 = std::size_t(std::ptrdiff_t(h.a0) + shift);
    std::size_t s1 = std::size_t(std::ptrdiff_t(h.a1) + shift);
    // The least context that makes the SEARCH lines non-empty and unique in the running text;
    // at equal size, lines after the change first (an inserted rule is anchored on the line it
    // goes before, which an edit of the rule above leaves alone).
    std::size_t before = s0, after = running.size() - s1; // the whole text
    bool found = false;
    for (std::size_t total = 0; !found && total <= running.size(); ++total)
      for (std::size_t a = std::min(total, running.size() - s1) + 1; a-- > 0 && !found;) {
        const std::size_t b = total - a;
        if (b > s0) continue;
        if (occurrences(running, s0 - b, s1 + a) == 1) {
          before = b;
          after = a;
          found = true;
        }
      }
    DiffBlock block;
    block.search = join(running, s0 - before, s1 + after);
    block.replace =
        join(running, s0 - before, s0) + join(b, h.b0, h.b1) + join(running, s1, s1 + after);
    out.push_back(block);
    running.erase(running.begin() + std::ptrdiff_t(s0), running.begin() + std::ptrdiff_t(s1));
    running.insert(running.begin() + std::ptrdiff_t(s0), b.begin() + std::ptrdiff_t(h.b0),
                   b.begin() + std::ptrdiff_t(h.b1));
    shift += std::ptrdiff_t(h.b1 - h.b0) - std::ptrdiff_t(h.a1 - h.a0);
  }
  return out;
}

} // namespace tv
