#include "cli/help_formatter.hpp"

#include <cstdlib>
#include <sys/ioctl.h>
#include <unistd.h>

namespace tv {

std::size_t help_width() {
  std::size_t width = 80;
  winsize ws{};
  if (::isatty(STDOUT_FILENO) && ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) {
    width = ws.ws_col;
  } else if (const char* env = std::getenv("COLUMNS"); env && *env) {
    const long v = std::strtol(env, nullptr, 10);
    if (v > 0 && v < 10000) width = std::size_t(v);
  }
  return std::max<std::size_t>(width, 60);
}

std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent) {
  std::string out;
  std::size_t col = 0; // characters on the current line after its indent
  const std::size_t room = width > indent + 10 ? width - indent : 10;
  const std::string pad(indent, ' ');
  std::size_t i = 0;
  bool line_start = true;
  for (; i < text.size() && text[i] == ' '; ++i, ++col)
    out += ' '; // the first line's own indent stays
  while (i < text.size()) {
    if (text[i] == '\n') {
      out += '\n' + pad;
      ++i;
      col = 0;
      line_start = true;
      for (; i < text.size() && text[i] == ' '; ++i, ++col)
        out += ' '; // a line's own indent stays
      continue;
    }
    if (text[i] == ' ') {
      ++i;
      continue;
    }
    std::size_t end = text.find_first_of(" \n", i);
    if (end == std::string::npos) end = text.size();
    const std::size_t len = end - i;
    if (!line_start && col + 1 + len > room) {
      out += '\n' + pad;
      col = 0;
      line_start = true;
    }
    if (!line_start) {
      out += ' ';
      ++col;
    }
    out.append(text, i, len);
    col += len;
    line_start = false;
    i = end;
  }
  return out;
}

WrappingFormatter::WrappingFormatter(std::size_t width) : width_(width) {
  column_width(std::min<std::size_t>(34, width / 3));
}

std::string WrappingFormatter::entry(const std::string& name,
                                     const std::string& description) const {
  const std::size_t col = get_column_width();
  std::string out = "  " + name;
  if (!description.empty()) {
    if (out.size() >= col)
      out += "\n" + std::string(col, ' ');
    else
      out += std::string(col - out.size(), ' ');
    out += wrap_text(description, width_, col);
  }
  return out + "\n";
}

std::string WrappingFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  return entry(make_option_name(opt, is_positional) + make_option_opts(opt), make_option_desc(opt));
}

std::string WrappingFormatter::make_subcommand(const CLI::App* sub) const {
  return entry(sub->get_display_name(true), sub->get_description());
}

namespace {

/// `text` wrapped at `width` with its line breaks at the end kept as they were.
std::string wrap_block(std::string text, std::size_t width) {
  std::size_t end = text.size();
  while (end > 0 && text[end - 1] == '\n')
    --end;
  const std::string tail = text.substr(end);
  text.resize(end);
  return wrap_text(text, width, 0) + tail;
}

} // namespace

std::string WrappingFormatter::make_description(const CLI::App* app) const {
  return wrap_block(CLI::Formatter::make_description(app), width_);
}

std::string WrappingFormatter::make_footer(const CLI::App* app) const {
  return wrap_block(CLI::Formatter::make_footer(app), width_);
}

} // namespace tv
