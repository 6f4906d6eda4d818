#include "experiments/svg.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <fmt/format.h>

namespace tv {

namespace {
/// Length of the valid UTF-8 sequence starting at text[i], or 0 when it is not valid.
std::size_t utf8_length(std::string_view text, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char c = b(i);
  std::size_t n = 0;
  std::uint32_t cp = 0;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF)
    n = 2, cp = c & 0x1F;
  else if (c >= 0xE0 && c <= 0xEF)
    n = 3, cp = c & 0x0F;
  else if (c >= 0xF0 && c <= 0xF4)
    n = 4, cp = c & 0x07;
  else
    return 0;
  if (i + n > text.size()) return 0;
  for (std::size_t k = 1; k < n; ++k) {
    if ((b(i + k) & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (b(i + k) & 0x3F);
  }
  if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF))) return 0;
  if (cp >= 0xD800 && cp <= 0xDFFF) return 0; // surrogates
  if (cp == 0xFFFE || cp == 0xFFFF) return 0; // not characters in XML
  return n;
}
} // namespace

std::string xml_escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const char ch = text[i];
    const std::size_t n = utf8_length(text, i);
    if (n == 0) { // invalid UTF-8 would make the file unreadable: replace the byte
      out += '?';
      ++i;
      continue;
    }
    if (n > 1) {
      out.append(text.substr(i, n));
      i += n;
      continue;
    }
    ++i;
    switch (ch) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&apos;";
      break;
    default:
      if (static_cast<unsigned char>(ch) < 0x20 && ch != '\t' && ch != '\n' && ch != '\r')
        break; // not allowed in XML 1.0
      out += ch;
    }
  }
  return out;
}

std::string svg_number(double v) {
  if (!std::isfinite(v)) return "0";
  std::string s = fmt::format("{:.2f}", v);
  while (!s.empty() && s.back() == '0')
    s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

namespace {
std::string points_attr(const std::vector<std::pair<double, double>>& points) {
  std::string s;
  for (const auto& [x, y] : points) {
    if (!s.empty()) s += ' ';
    s += svg_number(x) + "," + svg_number(y);
  }
  return s;
}
} // namespace

SvgDocument::SvgDocument(double width, double height) : width_(width), height_(height) {}

void SvgDocument::rect(double x, double y, double w, double h, std::string_view fill,
                       std::string_view stroke, double opacity) {
  body_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"{}\"",
                       svg_number(x), svg_number(y), svg_number(std::max(0.0, w)),
                       svg_number(std::max(0.0, h)), xml_escape(fill));
  if (!stroke.empty()) body_ += fmt::format(" stroke=\"{}\"", xml_escape(stroke));
  if (opacity < 1) body_ += fmt::format(" fill-opacity=\"{}\"", svg_number(opacity));
  body_ += "/>\n";
}

void SvgDocument::line(double x1, double y1, double x2, double y2, std::string_view stroke,
                       double width, bool dashed) {
  body_ +=
      fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" "
                  "stroke-width=\"{}\"{}/>\n",
                  svg_number(x1), svg_number(y1), svg_number(x2), svg_number(y2),
                  xml_escape(stroke), svg_number(width), dashed ? " stroke-dasharray=\"6,4\"" : "");
}

void SvgDocument::polyline(const std::vector<std::pair<double, double>>& points,
                           std::string_view stroke, double width, bool dashed) {
  if (points.size() < 2) return;
  body_ += fmt::format("<polyline points=\"{}\" fill=\"none\" stroke=\"{}\" stroke-width=\"{}\" "
                       "stroke-linejoin=\"round\"{}/>\n",
                       points_attr(points), xml_escape(stroke), svg_number(width),
                       dashed ? " stroke-dasharray=\"6,4\"" : "");
}

void SvgDocument::polygon(const std::vector<std::pair<double, double>>& points,
                          std::string_view fill, double opacity) {
  if (points.size() < 3) return;
  body_ += fmt::format("<polygon points=\"{}\" fill=\"{}\" fill-opacity=\"{}\" stroke=\"none\"/>\n",
                       points_attr(points), xml_escape(fill), svg_number(opacity));
}

void SvgDocument::circle(double x, double y, double r, std::string_view fill) {
  body_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{}\"/>\n", svg_number(x),
                       svg_number(y), svg_number(r), xml_escape(fill));
}

void SvgDocument::text(double x, double y, std::string_view content, double size, TextAnchor anchor,
                       double degrees, bool bold) {
  const char* a = anchor == TextAnchor::start    ? "start"
                  : anchor == TextAnchor::middle ? "middle"
                                                 : "end";
  body_ += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"{}\" text-anchor=\"{}\"", svg_number(x),
                       svg_number(y), svg_number(size), a);
  if (degrees != 0 && std::isfinite(degrees))
    body_ += fmt::format(" transform=\"rotate({} {} {})\"", svg_number(degrees), svg_number(x),
                         svg_number(y));
  if (bold) body_ += " font-weight=\"bold\"";
  body_ += fmt::format(">{}</text>\n", xml_escape(content));
}

void SvgDocument::title(std::string_view content) {
  title_ = std::string(content);
}

std::string SvgDocument::str() const {
  std::string s = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" "
                              "height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
                              "font-family=\"{2}\">\n",
                              svg_number(width_), svg_number(height_), kSvgFontFamily);
  if (!title_.empty()) s += "<title>" + xml_escape(title_) + "</title>\n";
  s += fmt::format("<rect x=\"0\" y=\"0\" width=\"{}\" height=\"{}\" fill=\"white\"/>\n",
                   svg_number(width_), svg_number(height_));
  s += body_;
  s += "</svg>\n";
  return s;
}

namespace {

bool name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
         c == '.';
}

/// Problems of entity references in `text` (every '&' must start one).
void check_entities(std::string_view text, std::vector<std::string>& out) {
  for (std::size_t i = text.find('&'); i != std::string_view::npos; i = text.find('&', i + 1)) {
    std::size_t j = i + 1;
    if (j < text.size() && text[j] == '#') ++j;
    const std::size_t start = j;
    while (j < text.size() && std::isalnum(static_cast<unsigned char>(text[j])))
      ++j;
    if (j == start || j >= text.size() || text[j] != ';')
      out.push_back(fmt::format("unescaped '&' at offset {}", i));
  }
}

/// Problems in one tag's attributes: unquoted values, bad entities, nan/inf in values.
void check_attributes(std::string_view attrs, std::size_t at, std::vector<std::string>& out) {
  std::size_t i = 0;
  while (i < attrs.size()) {
    while (i < attrs.size() && std::isspace(static_cast<unsigned char>(attrs[i])))
      ++i;
    if (i >= attrs.size()) break;
    const std::size_t name_start = i;
    while (i < attrs.size() && name_char(attrs[i]))
      ++i;
    if (i == name_start || i >= attrs.size() || attrs[i] != '=' || i + 1 >= attrs.size() ||
        (attrs[i + 1] != '"' && attrs[i + 1] != '\'')) {
      out.push_back(fmt::format("malformed attribute in the tag at offset {}", at));
      return;
    }
    const char q = attrs[i + 1];
    const std::size_t end = attrs.find(q, i + 2);
    if (end == std::string_view::npos) {
      out.push_back(fmt::format("unterminated attribute value in the tag at offset {}", at));
      return;
    }
    const std::string_view value = attrs.substr(i + 2, end - i - 2);
    if (value.find('<') != std::string_view::npos)
      out.push_back(fmt::format("'<' in an attribute value at offset {}", at));
    check_entities(value, out);
    std::string word;
    for (std::size_t k = 0; k <= value.size(); ++k) {
      const char c = k < value.size() ? value[k] : ' ';
      if (std::isalpha(static_cast<unsigned char>(c))) {
        word += char(std::tolower(static_cast<unsigned char>(c)));
        continue;
      }
      if (word == "nan" || word == "inf" || word == "infinity")
        out.push_back(fmt::format("'{}' in an attribute value at offset {}", word, at));
      word.clear();
    }
    i = end + 1;
  }
}

} // namespace

std::vector<std::string> svg_problems(std::string_view doc) {
  std::vector<std::string> out;
  if (doc.substr(0, 4) != "<svg") out.push_back("does not start with <svg");
  std::vector<std::string> open;
  bool root_closed = false;
  std::size_t i = 0;
  while (i < doc.size()) {
    const std::size_t lt = doc.find('<', i);
    const std::string_view text = doc.substr(i, lt == std::string_view::npos ? doc.npos : lt - i);
    check_entities(text, out);
    if (root_closed && text.find_first_not_of(" \t\r\n") != std::string_view::npos)
      out.push_back("text after the root element");
    if (lt == std::string_view::npos) break;
    if (doc.substr(lt, 4) == "<!--") {
      const std::size_t e = doc.find("-->", lt + 4);
      if (e == std::string_view::npos) {
        out.push_back("unterminated comment");
        break;
      }
      i = e + 3;
      continue;
    }
    // Find the end of the tag, skipping quoted attribute values.
    std::size_t j = lt + 1;
    char quote = 0;
    for (; j < doc.size(); ++j) {
      if (quote) {
        if (doc[j] == quote) quote = 0;
      } else if (doc[j] == '"' || doc[j] == '\'') {
        quote = doc[j];
      } else if (doc[j] == '>' || doc[j] == '<') {
        break;
      }
    }
    if (j >= doc.size() || doc[j] != '>') {
      out.push_back(fmt::format("unterminated tag at offset {}", lt));
      break;
    }
    std::string_view tag = doc.substr(lt + 1, j - lt - 1);
    i = j + 1;
    const bool closing = !tag.empty() && tag.front() == '/';
    const bool self_closing = !closing && !tag.empty() && tag.back() == '/';
    if (closing) tag.remove_prefix(1);
    if (self_closing) tag.remove_suffix(1);
    std::size_t n = 0;
    while (n < tag.size() && name_char(tag[n]))
      ++n;
    const std::string name(tag.substr(0, n));
    if (name.empty()) {
      out.push_back(fmt::format("a tag without a name at offset {}", lt));
      continue;
    }
    if (root_closed) out.push_back(fmt::format("<{}> after the root element", name));
    if (closing) {
      if (open.empty() || open.back() != name)
        out.push_back(fmt::format("</{}> at offset {} does not close <{}>", name, lt,
                                  open.empty() ? "" : open.back()));
      else
        open.pop_back();
      if (open.empty()) root_closed = true;
      continue;
    }
    check_attributes(tag.substr(n), lt, out);
    if (self_closing) {
      if (open.empty()) root_closed = true;
    } else {
      open.push_back(name);
    }
  }
  for (auto it = open.rbegin(); it != open.rend(); ++it)
    out.push_back(fmt::format("<{}> is never closed", *it));
  return out;
}

} // namespace tv
