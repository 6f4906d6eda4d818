#pragma once
/// A report of an experiment: sections of paragraphs, tables, code, observations and figures,
/// rendered for a terminal or as Markdown, and written with its SVG plots into a directory.
///
/// Observation sentences are built from prose and citations of table cells, so every figure a
/// sentence quotes is, by construction, the same text as a cell of a table of its section;
/// tests check this structurally (each segment knows the cell it came from).
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace tv {

/// A table of formatted cells.
struct ReportTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

/// Which cell of a section's tables: tables are numbered in the order they were added.
struct CellRef {
  std::size_t table = 0, row = 0, col = 0;
};

/// A piece of an observation: prose, or a figure quoted from a cell (text = the cell's text).
struct Segment {
  std::string text;
  std::optional<CellRef> cell;
  std::string name; ///< the catalogue placeholder it filled ("" when none)
};

/// One observation sentence.
struct Observation {
  std::vector<Segment> segments;
  /// The sentence as plain text.
  std::string text() const;
};

/// What an observation is built from: prose or a cell reference.
struct Part {
  /// Prose.
  Part(const char* s) : text(s) {}
  /// Prose.
  Part(std::string s) : text(std::move(s)) {}
  /// A quoted cell.
  Part(CellRef r) : cell(r) {}
  std::string text;
  std::optional<CellRef> cell;
  std::string name; ///< the catalogue placeholder it fills ("" when none)
};

/// One element of a section, in order.
struct Block {
  enum class Kind { paragraph, table, code, observations, figure };
  Kind kind = Kind::paragraph;
  std::string text;      ///< paragraph, code, or the figure's caption
  std::string file;      ///< figure file name (relative to the report)
  std::size_t table = 0; ///< index into the section's tables
  std::vector<Observation> observations;
};

/// A titled part of a report.
struct Section {
  std::string title;
  std::vector<ReportTable> tables;
  std::vector<Block> blocks;

  /// Appends a paragraph.
  void paragraph(std::string text);
  /// Appends a table; returns its index for CellRef.
  std::size_t table(ReportTable t);
  /// Appends a preformatted block (a program, a diff).
  void code(std::string text);
  /// Appends a figure (shown in Markdown only).
  void figure(std::string file, std::string caption);
  /// Builds an observation from prose and cells of this section's tables; throws
  /// std::out_of_range for a reference to a missing cell.
  Observation observe(std::vector<Part> parts) const;
  /// Appends a list of observations.
  void observations(std::vector<Observation> list);
  /// The text of a cell; throws std::out_of_range when it does not exist.
  const std::string& cell(const CellRef& r) const;
};

/// A whole report plus the files (plots) that go with it.
struct Report {
  std::string title;
  std::string intro;
  std::vector<Section> sections;
  std::map<std::string, std::string> files;         ///< file name -> content (e.g. SVG plots)
  std::string observations_label = "Observations:"; ///< the heading of each observation list

  /// For a terminal: aligned tables, indented code, paragraphs and "- " observations wrapped
  /// at 100 columns (display width: CJK text may break between characters; a paragraph's
  /// lines that fit stay as written), no figures.
  std::string text() const;
  /// The same content as Markdown (pipe tables, fenced code, figures as images).
  std::string markdown() const;
  /// Creates `dir` and writes report.md and every file there (atomically); throws
  /// InputError when the directory or a file cannot be written.
  void write(const std::string& dir) const;
};

/// Every citation in `report` checked: its text equals the cited cell and the cell exists.
/// Returns descriptions of the mismatches (empty when all is well).
std::vector<std::string> check_citations(const Report& report);

/// "12,345".
std::string format_thousands(long long v);
/// "93.7%" from a fraction 0.937.
std::string format_percent(double fraction);
/// "1.234x".
std::string format_ratio(double ratio);
/// "+1.2 pts" from a difference of two fractions (+0.012); "n/a" when not finite.
std::string format_points(double difference);
/// "+1,234" or "-56" (the sign always shown, "0" for zero).
std::string format_signed(long long v);
/// "lo–hi" of two already formatted values (an en dash between them).
std::string format_range(const std::string& lo, const std::string& hi);

} // namespace tv
