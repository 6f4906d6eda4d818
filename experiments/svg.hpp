#pragma once
/// A minimal SVG writer: a document of shapes and text with escaped content and finite
/// coordinates, so every file it writes opens in any browser.
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace tv {

/// Escapes & < > " ' for XML text and attribute values, drops the control characters XML 1.0
/// forbids (tab, newline and carriage return are kept) and replaces bytes that are not valid
/// UTF-8 with '?'.
std::string xml_escape(std::string_view text);
/// A coordinate or length as SVG text: two decimals at most, never "nan" or "inf" (a
/// non-finite value is written as 0).
std::string svg_number(double v);

/// What would stop a browser from showing `doc` as an SVG picture: it does not start with
/// <svg, a tag is unbalanced or mismatched, a '<' or '&' is not escaped, or an attribute holds
/// "nan" or "inf". Empty when the document is fine. (A light check of the documents this
/// writer produces, not a full XML parser.)
std::vector<std::string> svg_problems(std::string_view doc);

/// The font stack of every picture: a CJK font Debian ships (fonts-noto-cjk) first, so Chinese
/// labels render where it is installed, then common Latin fonts.
inline constexpr const char* kSvgFontFamily =
    "Noto Sans CJK SC, Noto Sans SC, Source Han Sans SC, WenQuanYi Micro Hei, DejaVu Sans, "
    "Helvetica, Arial, sans-serif";

/// Where a text's x coordinate sits on it.
enum class TextAnchor { start, middle, end };

/// An SVG document built element by element; str() is a standalone file starting with <svg.
class SvgDocument {
public:
  /// A white canvas of `width` x `height` pixels.
  SvgDocument(double width, double height);
  /// A filled rectangle; `stroke` empty draws no outline.
  void rect(double x, double y, double w, double h, std::string_view fill,
            std::string_view stroke = "", double opacity = 1);
  /// A straight line.
  void line(double x1, double y1, double x2, double y2, std::string_view stroke, double width = 1,
            bool dashed = false);
  /// An open polyline through `points` (nothing is drawn for fewer than two points).
  void polyline(const std::vector<std::pair<double, double>>& points, std::string_view stroke,
                double width = 1.5, bool dashed = false);
  /// A closed filled polygon (nothing is drawn for fewer than three points).
  void polygon(const std::vector<std::pair<double, double>>& points, std::string_view fill,
               double opacity = 1);
  /// A filled circle.
  void circle(double x, double y, double r, std::string_view fill);
  /// Text at (x, y) (the baseline), rotated by `degrees` around that point; content escaped.
  void text(double x, double y, std::string_view content, double size = 12,
            TextAnchor anchor = TextAnchor::start, double degrees = 0, bool bold = false);
  /// A <title> tooltip for the whole picture (content escaped).
  void title(std::string_view content);
  /// The whole document.
  std::string str() const;

private:
  double width_, height_;
  std::string title_;
  std::string body_;
};

} // namespace tv
