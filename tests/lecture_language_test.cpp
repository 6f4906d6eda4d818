// The lecture in each language (--lang en|zh): the same figures in the same order in what it
// prints and writes, no English sentence left in the Chinese text, tables aligned by display
// width, and each figure an observation quotes belongs to the method it names.
#include "eval/report_format.hpp"
#include "eval/text_table.hpp"
#include "experiments/catalogue.hpp"
#include "experiments/lecture.hpp"
#include "experiments/lecture_sections.hpp"
#include "experiments/study_problem.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <cctype>
#include <doctest/doctest.h>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace lecture_language_test {

using namespace tv;

namespace {

namespace fs = std::filesystem;

/// The lecture with a small budget in `lang`, computed once per process and language.
const LectureResult& small_lecture(const std::string& lang) {
  static std::map<std::string, LectureResult> cache;
  auto it = cache.find(lang);
  if (it == cache.end()) {
    LectureOptions o;
    o.budget = 150;
    o.seeds = 2;
    o.lang = lang;
    it = cache.emplace(lang, run_lecture(o)).first;
  }
  return it->second;
}

/// Every number of `text` in order: digit runs with their inner separators ("1,234.5").
std::vector<std::string> numbers(const std::string& text) {
  static const std::regex number(R"(\d+(?:[.,]\d+)*)");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), number);
       it != std::sregex_iterator(); ++it)
    out.push_back(it->str());
  return out;
}

/// The contents of an SVG's <text> and <title> elements, one per line.
std::string svg_texts(const std::string& svg) {
  static const std::regex element(R"(<(text|title)[^>]*>([^<]*)</(text|title)>)");
  std::string out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), element);
       it != std::sregex_iterator(); ++it)
    out += (*it)[2].str() + "\n";
  return out;
}

/// Lines of `text`, split at '\n'.
std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    out.push_back(line);
  return out;
}

bool wide_at(const std::string& s, std::size_t i) {
  return static_cast<unsigned char>(s[i]) >= 0x80;
}

/// The words the field keeps in English in a Chinese text (lower case): technical terms,
/// names, units, the mutation operators' names (identifiers, from `run`) and the GPUs' names.
std::set<std::string> allowed_english(const EvolutionResult& run) {
  std::set<std::string> w{"decode", "prefill", "warp",      "warps",       "search", "replace",
                          "gemm",   "m",       "n",         "k",           "bm",     "bn",
                          "bk",     "stages",  "group",     "tflop",       "s",      "us",
                          "llm",    "token",   "x",         "alphaevolve", "gemini", "matmul",
                          "arxiv",  "gpu",     "tilevolve", "report",      "md",     "svg",
                          "nvidia", "amd",     "instinct",  "sxm",         "tiles",  "n/a"};
  for (const auto& op : run.per_operator)
    w.insert(op.first);
  return w;
}

/// Runs of two or more English words not on the allow-list in a line (outside CJK text):
/// a word is a token of letters only; a token with digits, '_', ':', '-', '.', '/' or '='
/// inside is an identifier (a shape label, a config, a file) and ends a run.
std::vector<std::string> english_runs(const std::string& line,
                                      const std::set<std::string>& allowed) {
  std::vector<std::string> found;
  std::vector<std::string> run;
  auto end_run = [&] {
    if (run.size() >= 2) {
      std::string s;
      for (const auto& x : run)
        s += (s.empty() ? "" : " ") + x;
      found.push_back(s);
    }
    run.clear();
  };
  std::string token;
  auto end_token = [&] {
    if (token.empty()) return;
    // Strip surrounding punctuation.
    std::size_t b = 0, e = token.size();
    while (b < e && std::ispunct(static_cast<unsigned char>(token[b])))
      ++b;
    while (e > b && std::ispunct(static_cast<unsigned char>(token[e - 1])))
      --e;
    const std::string core = token.substr(b, e - b);
    token.clear();
    if (core.empty()) return;
    const bool letters = std::all_of(core.begin(), core.end(),
                                     [](unsigned char c) { return std::isalpha(c) || c == '\''; });
    if (!letters) {
      end_run();
      return;
    }
    std::string lower = core;
    for (auto& c : lower)
      c = char(std::tolower(static_cast<unsigned char>(c)));
    if (allowed.count(lower))
      end_run();
    else
      run.push_back(core);
  };
  for (std::size_t i = 0; i < line.size(); ++i) {
    if (wide_at(line, i)) { // CJK text (or any non-ASCII) separates runs
      end_token();
      end_run();
      continue;
    }
    if (line[i] == ' ' || line[i] == '(' || line[i] == ')' || line[i] == ',' || line[i] == ';') {
      end_token();
      continue;
    }
    token += line[i];
  }
  end_token();
  end_run();
  return found;
}

/// Checks that every line of a text-rendered `t` puts each cell at the display column of its
/// column (numeric cells end at the column's right edge).
void check_aligned(const ReportTable& t, const std::string& rendered) {
  std::vector<std::size_t> w(t.header.size(), 0);
  for (std::size_t i = 0; i < t.header.size(); ++i)
    w[i] = display_width(t.header[i]);
  for (const auto& r : t.rows)
    for (std::size_t i = 0; i < r.size() && i < w.size(); ++i)
      w[i] = std::max(w[i], display_width(r[i]));
  const auto lines = lines_of(rendered);
  REQUIRE(lines.size() == t.rows.size() + 2);
  auto check_line = [&](const std::string& line, const std::vector<std::string>& cells,
                        bool numbers_right) {
    std::size_t start = 0, pos = 0;
    for (std::size_t i = 0; i < w.size(); ++i) {
      const std::string cell = i < cells.size() ? cells[i] : "";
      if (!cell.empty()) {
        const std::size_t at = line.find(cell, pos);
        REQUIRE(at != std::string::npos);
        const bool right = numbers_right && (std::isdigit(static_cast<unsigned char>(cell[0])) ||
                                             cell[0] == '+' || cell[0] == '-');
        INFO("line: " << line << " | cell: " << cell);
        CHECK(display_width(line.substr(0, at)) ==
              (right ? start + w[i] - display_width(cell) : start));
        pos = at + cell.size();
      }
      start += w[i] + 2;
    }
  };
  check_line(lines[0], t.header, false);
  std::size_t total = 0;
  for (auto x : w)
    total += x + 2;
  CHECK(display_width(lines[1]) == total - 2);
  for (std::size_t r = 0; r < t.rows.size(); ++r)
    check_line(lines[r + 2], t.rows[r], true);
}

} // namespace

TEST_CASE("lecture language: a figure an observation quotes is the one of the method it names") {
  for (const char* lang : {"en", "zh"}) {
    INFO(lang);
    const LectureResult& r = small_lecture(lang);
    const Catalogue cat = load_catalogue(lang);
    // Demo 1: the baselines observation, by placeholder name.
    const auto& oracle = find_baseline(r.baselines, "oracle");
    const auto& pm = find_baseline(r.baselines, "per_m_table");
    const auto& single = find_baseline(r.baselines, "best_single");
    const std::map<std::string, std::string> demo1{
        {"oracle_test_vs_expert", fmt_speedup(oracle.test)},
        {"oracle_runs", format_thousands(oracle.kernel_runs)},
        {"per_m_table_runs", format_thousands(pm.kernel_runs)},
        {"per_m_table_test_of_oracle", fmt_fraction(pm.test)},
        {"best_single_test_of_oracle", fmt_fraction(single.test)}};
    // Demo 3: the per-M table of each split.
    const std::map<std::string, std::string> demo3{
        {"random_per_m_table_test_of_oracle",
         fmt_fraction(find_baseline(r.splits.at(0).baselines, "per_m_table").test)},
        {"model_per_m_table_test_of_oracle",
         fmt_fraction(find_baseline(r.splits.at(1).baselines, "per_m_table").test)},
        {"random_evolved_test_of_oracle",
         format_percent(r.splits.at(0).evolved.test_fraction.median)},
        {"model_evolved_test_of_oracle",
         format_percent(r.splits.at(1).evolved.test_fraction.median)}};
    std::size_t checked = 0;
    for (std::size_t si : {std::size_t(0), std::size_t(2)}) {
      const Section& sec = r.report.sections.at(si);
      const auto& expected = si == 0 ? demo1 : demo3;
      for (const auto& b : sec.blocks)
        for (const auto& o : b.observations)
          for (const auto& seg : o.segments) {
            const auto it = expected.find(seg.name);
            if (it == expected.end()) continue;
            INFO(sec.title << ": {" << seg.name << "}");
            REQUIRE(seg.cell);
            CHECK(seg.text == it->second);
            // And the cited cell sits in the row of that method.
            const auto& row = sec.tables.at(seg.cell->table).rows.at(seg.cell->row);
            const std::string method = seg.name.find("oracle_") == 0 ? method_name(cat, oracle)
                                       : seg.name.find("best_single") == 0
                                           ? method_name(cat, single)
                                           : "";
            if (!method.empty()) CHECK(row.at(0) == method);
            if (seg.name == "per_m_table_runs" || seg.name == "per_m_table_test_of_oracle")
              CHECK(row.at(0) == method_name(cat, pm));
            ++checked;
          }
    }
    CHECK(checked == demo1.size() + demo3.size());
    // Every baseline of the lecture has a name in the catalogue (none falls back to English).
    for (const auto& m : r.baselines)
      CHECK(cat.entries().count("method." + m.key));
  }
}

TEST_CASE("lecture language: tables line up by display width in both languages") {
  for (const char* lang : {"en", "zh"}) {
    INFO(lang);
    const LectureResult& r = small_lecture(lang);
    std::size_t tables = 0;
    for (const auto& sec : r.report.sections)
      for (const auto& t : sec.tables) {
        TextTable tt(t.header);
        for (const auto& row : t.rows)
          tt.add(row);
        const std::string rendered = tt.str();
        INFO(sec.title);
        check_aligned(t, rendered);
        CHECK(r.report.text().find(rendered) != std::string::npos); // as printed
        ++tables;
      }
    CHECK(tables >= 8);
  }
}

TEST_CASE("lecture language: paragraphs wrap at 100 columns as the observations do, only tables "
          "are wider") {
  for (const char* lang : {"en", "zh"}) {
    INFO(lang);
    const LectureResult& r = small_lecture(lang);
    std::set<std::string> table_lines; // the lines of every table, as printed
    for (const auto& sec : r.report.sections)
      for (const auto& t : sec.tables) {
        TextTable tt(t.header);
        for (const auto& row : t.rows)
          tt.add(row);
        std::istringstream in(tt.str());
        for (std::string line; std::getline(in, line);)
          table_lines.insert(line);
      }
    const std::string text = r.report.text();
    std::istringstream in(text);
    std::size_t wide = 0, lines = 0;
    for (std::string line; std::getline(in, line); ++lines) {
      if (display_width(line) <= 100) continue;
      INFO(line);
      CHECK(table_lines.count(line) == 1);
      ++wide;
    }
    CHECK(wide > 0);    // the tables themselves stay as wide as they are
    CHECK(lines > 100); // and the paragraphs are wrapped, not cut: every number of the intro is
    for (const std::string& n : numbers(r.report.intro)) // there (a line breaks at spaces, or
      CHECK(text.find(n) != std::string::npos);          // between CJK characters)
  }
}

TEST_CASE("lecture language: the binary prints and writes the same numbers in both languages") {
  const test::ScratchDir scratch("tilevolve_lecture_language_test");
  const fs::path base = scratch.at("out"); // not there yet: the binary makes it
  const std::string args = " lecture --budget 100 --seeds 2 --out ";
  const auto en =
      tv::test::run_shell(std::string(TILEVOLVE_BINARY) + args + (base / "en").string() + " 2>&1");
  const auto zh = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + args +
                                      (base / "zh").string() + " --lang zh 2>&1");
  REQUIRE(en.status == 0);
  REQUIRE(zh.status == 0);
  CHECK(en.out.find("Demo 1:") != std::string::npos);
  CHECK(zh.out.find("演示 1：") != std::string::npos);
  CHECK(zh.out.find("观察：") != std::string::npos);
  CHECK(zh.out.find("报告已写入") != std::string::npos);
  const auto ne = numbers(en.out), nz = numbers(zh.out);
  CHECK(ne.size() > 300);
  CHECK(ne == nz);
  for (std::size_t i = 0; i < std::min(ne.size(), nz.size()); ++i)
    if (ne[i] != nz[i]) {
      FAIL_CHECK("number " << i << ": en " << ne[i] << ", zh " << nz[i]);
      break;
    }
  const std::string md_en = tv::test::read_text((base / "en" / "report.md").string());
  const std::string md_zh = tv::test::read_text((base / "zh" / "report.md").string());
  CHECK(md_zh.rfind("# tilevolve 讲座", 0) == 0);
  CHECK(numbers(md_en) == numbers(md_zh));
  int svgs = 0;
  for (const auto& e : fs::directory_iterator(base / "en")) {
    if (e.path().extension() != ".svg") continue;
    ++svgs;
    INFO(e.path().filename().string());
    const std::string se = tv::test::read_text(e.path().string());
    const std::string sz = tv::test::read_text((base / "zh" / e.path().filename()).string());
    CHECK(numbers(svg_texts(se)) == numbers(svg_texts(sz)));
    CHECK(sz.find("Noto Sans CJK SC") != std::string::npos); // a CJK font first in the stack
    CHECK(svg_texts(sz) != svg_texts(se));
  }
  CHECK(svgs == 3);

  const auto bad = tv::test::run_shell(std::string(TILEVOLVE_BINARY) + " lecture --lang xx 2>&1");
  CHECK(bad.status != 0);
  CHECK(bad.out.find("--lang") != std::string::npos);
}

TEST_CASE("lecture language: no Chinese line holds an untranslated English sentence") {
  const LectureResult& r = small_lecture("zh");
  const auto allowed = allowed_english(r.run);
  // The printed text, less code blocks (programs and diffs, indented by four spaces).
  std::vector<std::string> bad;
  std::size_t checked = 0;
  for (const auto& line : lines_of(r.report.text())) {
    if (line.rfind("    ", 0) == 0) continue;
    ++checked;
    for (const auto& run : english_runs(line, allowed))
      bad.push_back("'" + run + "' in: " + line);
  }
  // The Markdown outside fenced code, and every text of the plots.
  bool fenced = false;
  for (const auto& line : lines_of(r.report.markdown())) {
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    for (const auto& run : english_runs(line, allowed))
      bad.push_back("'" + run + "' in report.md: " + line);
  }
  for (const auto& file : r.report.files)
    for (const auto& line : lines_of(svg_texts(file.second)))
      for (const auto& run : english_runs(line, allowed))
        bad.push_back("'" + run + "' in " + file.first + ": " + line);
  CHECK(checked > 100);
  for (const auto& b : bad)
    FAIL_CHECK(b);
  // The check itself catches English (the same lines in English fail it).
  std::size_t english = 0;
  for (const auto& line : lines_of(small_lecture("en").report.text()))
    english += english_runs(line, allowed).size();
  CHECK(english > 50);
}

} // namespace lecture_language_test
