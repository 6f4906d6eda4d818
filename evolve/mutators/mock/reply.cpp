#include "evolve/mutators/mock/reply.hpp"

#include "ir/lines.hpp"

#include <algorithm>
#include <array>
#include <cstddef>
#include <fmt/format.h>
#include <vector>

namespace tv::mock {

namespace {

/// Lines of `text` split like the diff engine does ('\n', trailing whitespace dropped).
std::vector<std::string_view> lines_of(std::string_view text) {
  std::vector<std::string_view> out = split_lines(text);
  for (std::string_view& line : out)
    line = rtrim(line);
  return out;
}

/// Occurrences of the run p[a, b) in p.
int occurrences(const std::vector<std::string_view>& p, std::size_t a, std::size_t b) {
  const std::size_t len = b - a;
  int count = 0;
  for (std::size_t i = 0; i + len <= p.size(); ++i)
    if (std::equal(p.begin() + std::ptrdiff_t(a), p.begin() + std::ptrdiff_t(b),
                   p.begin() + std::ptrdiff_t(i)))
      ++count;
  return count;
}

/// One of the operator's opening sentences, with `note` in it.
std::string intro(Rng& rng, Op op, const std::string& note) {
  static const std::array<std::vector<std::string_view>, 9> kTemplates{{
      {"Let's try a small change: {}.", "One-field tweak: {}.",
       "A neighbouring value might do better here: {}."},
      {"This config looks mistuned for the shapes it decides; {}.",
       "Rebalancing the tile within the register and shared-memory budgets: {}.",
       "A coherent retune: {}."},
      {"Moving a boundary: {}.", "The cut-off looks off; {}.", "Shifting a threshold: {}."},
      {"Adding a specialised rule: {}.", "These shapes deserve their own config: {}.",
       "Splitting the region: {}."},
      {"This rule does not seem to pull its weight; {}.", "Simplifying: {}."},
      {"Borrowing from another good program: {}.", "Crossover: {}."},
      {"Reading the measurements so far, I {}.", "A fresh grouping: I {}."},
      {"Trying what measured best nearby: {}.", "Spreading a measured winner: {}."},
      {"The grid does not fill the GPU: {}.", "Wave quantization: {}."},
  }};
  const auto& t = kTemplates[std::size_t(op)];
  return fmt::format(fmt::runtime(t[rng.index(t.size())]), note);
}

} // namespace

DiffBlock make_block(std::string_view parent, std::string_view child) {
  const auto p = lines_of(parent);
  const auto c = lines_of(child);
  std::size_t pre = 0;
  while (pre < p.size() && pre < c.size() && p[pre] == c[pre])
    ++pre;
  std::size_t suf = 0;
  while (suf < p.size() - pre && suf < c.size() - pre &&
         p[p.size() - 1 - suf] == c[c.size() - 1 - suf])
    ++suf;
  // Parent run [pa, pb) becomes child run [ca, cb); widen both by the same context.
  std::size_t pa = pre, pb = p.size() - suf, ca = pre, cb = c.size() - suf;
  auto blank = [&] {
    for (std::size_t i = pa; i < pb; ++i)
      if (!p[i].empty()) return false;
    return true;
  };
  // A pure insertion is anchored on the line it goes above (the next rule's `if`, or the
  // default return, which is unique in canonical text); a change on the line before it
  // (usually the rule's `if`, which makes a repeated `return` line unique).
  bool before = pa != pb;
  while (blank() || occurrences(p, pa, pb) != 1) {
    const bool can_before = pa > 0, can_after = pb < p.size();
    if (!can_before && !can_after) break; // the whole text: unique by construction
    if ((before && can_before) || !can_after) {
      --pa;
      --ca;
    } else {
      ++pb;
      ++cb;
    }
    before = !before;
  }
  DiffBlock b;
  for (std::size_t i = pa; i < pb; ++i) {
    b.search += p[i];
    b.search += '\n';
  }
  for (std::size_t i = ca; i < cb; ++i) {
    b.replace += c[i];
    b.replace += '\n';
  }
  return b;
}

std::string compose_reply(Rng& rng, Op op, const Edit& e, const MutationRequest& r,
                          const DiffBlock& block) {
  std::string out;
  if (!r.previous_outcome.empty() && rng.chance(0.8))
    out += fmt::format("The previous edit did not apply ({}); here is a fresh one.\n\n",
                       r.previous_outcome);
  if (e.focus)
    out += fmt::format("The shape {} runs {:.2f}x slower than the best time seen for it. ",
                       e.focus->shape.label(), loss(*e.focus));
  out += intro(rng, op, e.note);
  out += "\n\n";
  const double fence = rng.uniform01();
  const std::string diff = format_diff({block});
  if (fence < 0.45)
    out += "```python\n" + diff + "```\n";
  else if (fence < 0.6)
    out += "```\n" + diff + "```\n";
  else
    out += diff;
  if (rng.chance(0.4)) {
    static const std::vector<std::string_view> kOutros{
        "This should help the affected shapes without touching the others.",
        "Everything else stays as it is.", "Let me know how it scores."};
    out += '\n';
    out += rng.pick(kOutros);
    out += '\n';
  }
  return out;
}

} // namespace tv::mock
