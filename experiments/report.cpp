#include "experiments/report.hpp"
#include "ir/number_text.hpp"

#include "eval/text_table.hpp"
#include "evolve/run_dir.hpp"
#include "ir/error.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fmt/format.h>
#include <iterator>
#include <stdexcept>
#include <string_view>

namespace tv {

namespace {

/// The width of the terminal text: paragraphs and observations wrap here (display columns).
constexpr std::size_t kTextWidth = 100;

/// True for a code point that may start or end a line break inside unspaced CJK text.
bool breakable_wide(std::string_view ch) {
  return display_width(ch) == 2;
}

/// True for CJK punctuation that must not start a line (it sticks to what precedes it).
bool closing_punct(std::string_view ch) {
  static constexpr std::string_view closing[] = {"，", "。", "、", "；", "：",
                                                 "）", "！", "？", "」"};
  return std::find(std::begin(closing), std::end(closing), ch) != std::end(closing);
}

/// True for CJK punctuation that must not end a line (it sticks to what follows it).
bool opening_punct(std::string_view ch) {
  return ch == "（" || ch == "「";
}

/// Word-wraps `text` at `width` display columns; continuation lines start with `indent`.
/// Words are separated by spaces; a wide (CJK) character is a word of its own joined to its
/// neighbours without a space, and CJK punctuation stays with the character it belongs to.
std::string wrap(const std::string& text, std::size_t width, const std::string& first,
                 const std::string& indent) {
  struct Unit {
    std::string text;
    bool space_before = false;
  };
  std::vector<Unit> units;
  bool space = false, glue_next = false;
  std::string word;
  auto end_word = [&] {
    if (word.empty()) return;
    if (glue_next && !units.empty()) {
      units.back().text += word;
    } else {
      units.push_back({std::move(word), space});
    }
    glue_next = false;
    word.clear();
    space = false;
  };
  for (std::size_t i = 0; i < text.size();) {
    const auto b = static_cast<unsigned char>(text[i]);
    const std::size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : 4;
    const std::string_view ch(text.data() + i, std::min(len, text.size() - i));
    i += ch.size();
    if (ch == " " || ch == "\n") {
      end_word();
      space = true;
      glue_next = false;
      continue;
    }
    if (!breakable_wide(ch)) {
      word += ch;
      continue;
    }
    end_word();
    if (closing_punct(ch) && !units.empty() && !space) {
      units.back().text += ch;
    } else if (glue_next && !units.empty()) {
      units.back().text += ch;
    } else {
      units.push_back({std::string(ch), space});
    }
    space = false;
    glue_next = opening_punct(ch);
  }
  end_word();

  std::string out = first;
  std::size_t col = display_width(first);
  bool line_empty = true;
  for (const auto& u : units) {
    const std::size_t w = display_width(u.text);
    const std::size_t gap = line_empty || !u.space_before ? 0 : 1;
    if (!line_empty && col + gap + w > width) {
      out += "\n" + indent;
      col = display_width(indent);
      line_empty = true;
    }
    if (!line_empty && u.space_before) {
      out += ' ';
      ++col;
    }
    out += u.text;
    col += w;
    line_empty = false;
  }
  return out + "\n";
}

/// A paragraph for a terminal: each of its lines wider than `width` display columns word-wrapped
/// there, its continuation lines indented as the line itself; narrower lines stay as written.
std::string wrap_paragraph(const std::string& text, std::size_t width) {
  std::string out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    const std::string line = text.substr(start, end - start);
    if (display_width(line) <= width) {
      out += line + "\n";
    } else {
      const std::size_t lead = line.find_first_not_of(' ');
      const std::string pad(lead == std::string::npos ? 0 : lead, ' ');
      out += wrap(line.substr(pad.size()), width, pad, pad);
    }
    start = end + 1;
  }
  return out;
}

/// `text` underlined with `rule` to its display width.
std::string underlined(const std::string& text, char rule) {
  return text + "\n" + std::string(display_width(text), rule) + "\n";
}

std::string md_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '|')
      out += "\\|";
    else if (ch == '\n')
      out += ' ';
    else
      out += ch;
  }
  return out.empty() ? " " : out;
}

/// True when every non-empty cell of column `c` looks like a number (right-aligned then).
bool numeric_column(const ReportTable& t, std::size_t c) {
  bool any = false;
  for (const auto& r : t.rows) {
    if (c >= r.size() || r[c].empty() || r[c] == "-") continue;
    const unsigned char first = static_cast<unsigned char>(r[c][0]);
    if (!std::isdigit(first) && first != '+' && first != '-') return false;
    any = true;
  }
  return any;
}

std::string fence_for(const std::string& code) {
  std::size_t longest = 0, run = 0;
  for (char ch : code) {
    run = ch == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<std::size_t>(3, longest + 1), '`');
}

std::string indent_code(const std::string& code) {
  std::string out = "    ";
  for (std::size_t i = 0; i < code.size(); ++i) {
    out += code[i];
    if (code[i] == '\n' && i + 1 < code.size()) out += "    ";
  }
  if (out.back() != '\n') out += '\n';
  return out;
}

} // namespace

std::string Observation::text() const {
  std::string s;
  for (const auto& seg : segments)
    s += seg.text;
  return s;
}

void Section::paragraph(std::string text) {
  Block b;
  b.kind = Block::Kind::paragraph;
  b.text = std::move(text);
  blocks.push_back(std::move(b));
}

std::size_t Section::table(ReportTable t) {
  tables.push_back(std::move(t));
  Block b;
  b.kind = Block::Kind::table;
  b.table = tables.size() - 1;
  blocks.push_back(std::move(b));
  return tables.size() - 1;
}

void Section::code(std::string text) {
  Block b;
  b.kind = Block::Kind::code;
  b.text = std::move(text);
  blocks.push_back(std::move(b));
}

void Section::figure(std::string file, std::string caption) {
  Block b;
  b.kind = Block::Kind::figure;
  b.file = std::move(file);
  b.text = std::move(caption);
  blocks.push_back(std::move(b));
}

const std::string& Section::cell(const CellRef& r) const {
  if (r.table >= tables.size() || r.row >= tables[r.table].rows.size() ||
      r.col >= tables[r.table].rows[r.row].size())
    throw std::out_of_range(fmt::format("section '{}': no cell (table {}, row {}, column {})",
                                        title, r.table, r.row, r.col));
  return tables[r.table].rows[r.row][r.col];
}

Observation Section::observe(std::vector<Part> parts) const {
  Observation o;
  for (auto& p : parts) {
    if (p.cell)
      o.segments.push_back({cell(*p.cell), p.cell, std::move(p.name)});
    else
      o.segments.push_back({std::move(p.text), std::nullopt, std::move(p.name)});
  }
  return o;
}

void Section::observations(std::vector<Observation> list) {
  Block b;
  b.kind = Block::Kind::observations;
  b.observations = std::move(list);
  blocks.push_back(std::move(b));
}

std::string Report::text() const {
  std::string out = underlined(title, '=');
  if (!intro.empty()) out += "\n" + wrap_paragraph(intro, kTextWidth);
  for (const auto& s : sections) {
    out += '\n';
    out += underlined(s.title, '-');
    for (const auto& b : s.blocks) {
      switch (b.kind) {
      case Block::Kind::paragraph:
        out += "\n" + (b.text.empty() ? std::string("\n") : wrap_paragraph(b.text, kTextWidth));
        break;
      case Block::Kind::table: {
        const ReportTable& t = s.tables[b.table];
        TextTable tt(t.header);
        for (const auto& r : t.rows)
          tt.add(r);
        out += '\n';
        out += tt.str();
        break;
      }
      case Block::Kind::code:
        out += '\n';
        out += indent_code(b.text);
        break;
      case Block::Kind::observations:
        out += "\n" + observations_label + "\n";
        for (const auto& o : b.observations)
          out += wrap(o.text(), kTextWidth, "- ", "  ");
        break;
      case Block::Kind::figure:
        break; // plots live in the Markdown report only
      }
    }
  }
  return out;
}

std::string Report::markdown() const {
  std::string out = "# " + title + "\n";
  if (!intro.empty()) out += "\n" + intro + (intro.back() == '\n' ? "" : "\n");
  for (const auto& s : sections) {
    out += "\n## " + s.title + "\n";
    for (const auto& b : s.blocks) {
      switch (b.kind) {
      case Block::Kind::paragraph:
        out += "\n" + b.text + (b.text.empty() || b.text.back() != '\n' ? "\n" : "");
        break;
      case Block::Kind::table: {
        const ReportTable& t = s.tables[b.table];
        out += "\n|";
        for (const auto& h : t.header)
          out += fmt::format(" {} |", md_cell(h));
        out += "\n|";
        for (std::size_t i = 0; i < t.header.size(); ++i)
          out += numeric_column(t, i) ? " ---: |" : " --- |";
        out += "\n";
        for (const auto& r : t.rows) {
          out += "|";
          for (std::size_t i = 0; i < t.header.size(); ++i)
            out += fmt::format(" {} |", md_cell(i < r.size() ? r[i] : ""));
          out += "\n";
        }
        break;
      }
      case Block::Kind::code: {
        const std::string f = fence_for(b.text);
        out += "\n" + f + "\n" + b.text + (b.text.empty() || b.text.back() != '\n' ? "\n" : "") +
               f + "\n";
        break;
      }
      case Block::Kind::observations:
        out += "\n" + observations_label + "\n\n";
        for (const auto& o : b.observations)
          out += "- " + o.text() + "\n";
        break;
      case Block::Kind::figure:
        out += "\n![" + b.text + "](" + b.file + ")\n";
        break;
      }
    }
  }
  return out;
}

void Report::write(const std::string& dir) const {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw InputError(fmt::format("cannot create report directory '{}': {}", dir,
                                 ec ? ec.message() : "not a directory"));
  atomic_write(dir + "/report.md", markdown());
  for (const auto& [name, content] : files)
    atomic_write(dir + "/" + name, content);
}

std::vector<std::string> check_citations(const Report& report) {
  std::vector<std::string> bad;
  for (const auto& s : report.sections)
    for (const auto& b : s.blocks)
      for (const auto& o : b.observations)
        for (const auto& seg : o.segments) {
          if (!seg.cell) continue;
          try {
            if (s.cell(*seg.cell) != seg.text)
              bad.push_back(fmt::format("{}: '{}' differs from its cell '{}'", s.title, seg.text,
                                        s.cell(*seg.cell)));
          } catch (const std::out_of_range& e) {
            bad.push_back(e.what());
          }
        }
  return bad;
}

std::string format_thousands(long long v) {
  return thousands(v);
}

std::string format_percent(double fraction) {
  if (!std::isfinite(fraction)) return "n/a";
  return fmt::format("{:.1f}%", 100.0 * fraction);
}

std::string format_ratio(double ratio) {
  if (!std::isfinite(ratio)) return "n/a";
  return fmt::format("{:.3f}x", ratio);
}

std::string format_points(double difference) {
  if (!std::isfinite(difference)) return "n/a";
  std::string s = fmt::format("{:+.1f} pts", 100.0 * difference);
  if (s.rfind("-0.0 ", 0) == 0) s[0] = '+'; // no negative zero
  return s;
}

std::string format_signed(long long v) {
  std::string s = format_thousands(v);
  if (v > 0) s.insert(s.begin(), '+');
  return s;
}

std::string format_range(const std::string& lo, const std::string& hi) {
  return lo + "\u2013" + hi;
}

} // namespace tv
