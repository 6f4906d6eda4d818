#include "cli/help_formatter.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <stdexcept>
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

namespace {

/// The order arrange_help gave each command's groups.
std::map<const CLI::App*, std::vector<std::string>>& group_order() {
  static std::map<const CLI::App*, std::vector<std::string>> order;
  return order;
}

} // namespace

void arrange_help(CLI::App& cmd, const HelpGroups& groups, const std::string& help_group) {
  std::vector<std::string>& order = group_order()[&cmd];
  order.clear();
  for (const auto& g : groups)
    order.push_back(g.first);
  order.push_back(kAdvancedGroup);
  for (CLI::Option* o : cmd.get_options())
    o->group(kAdvancedGroup);
  // Groups are listed in the order their first option was made: the help flags go last.
  cmd.set_help_flag();
  for (const auto& [title, names] : groups)
    for (const std::string& name : names) {
      CLI::Option* o = cmd.get_option_no_throw(name);
      if (!o) throw std::logic_error("arrange_help: no option " + name);
      o->group(title);
    }
  cmd.set_help_flag("-h,--help", "print the options most runs need and exit")->group(help_group);
  cmd.set_help_all_flag("--help-all", "print every option, the advanced ones too, in full, and "
                                      "exit")
      ->group(help_group);
}

std::string brief_description(const std::string& text) {
  // A description in lines (a list) keeps its lines; the first is cut.
  const std::size_t line_end = text.find('\n');
  if (line_end != std::string::npos)
    return brief_description(text.substr(0, line_end)) + text.substr(line_end);
  // The first "; ", ": " or ". " outside parentheses that leaves 12 characters or more (not
  // the stop of "e.g." or "i.e.").
  int depth = 0;
  std::size_t cut = std::string::npos;
  for (std::size_t at = 0; at + 1 < text.size() && cut == std::string::npos; ++at) {
    const char c = text[at];
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (depth > 0 || at < 12 || text[at + 1] != ' ' || (c != ';' && c != ':' && c != '.')) continue;
    if (c == '.' && (text.compare(at - 3, 3, "e.g") == 0 || text.compare(at - 3, 3, "i.e") == 0))
      continue;
    cut = at;
  }
  return cut == std::string::npos ? text : text.substr(0, cut);
}

std::string WrappingFormatter::make_option(const CLI::Option* opt, bool is_positional) const {
  std::string opts = make_option_opts(opt);
  if (brief_) {
    // "INT:from 1 to 65536=8" -> "INT=8": the range is --help-all's.
    const std::size_t colon = opts.find(':');
    if (colon != std::string::npos) {
      const std::size_t eq = opts.find('=', colon);
      opts = opts.substr(0, colon) + (eq == std::string::npos ? "" : opts.substr(eq));
    }
  }
  const std::string desc = make_option_desc(opt);
  return entry(make_option_name(opt, is_positional) + opts,
               brief_ ? brief_description(desc) : desc);
}

std::string WrappingFormatter::groups(const CLI::App* app, bool brief) const {
  std::string out;
  std::vector<std::string> names = app->get_groups();
  if (const auto it = group_order().find(app); it != group_order().end()) names = it->second;
  for (const std::string& group : names) {
    if (group.empty() || (brief && group == kAdvancedGroup)) continue;
    const std::vector<const CLI::Option*> opts = app->get_options(
        [&](const CLI::Option* o) { return o->get_group() == group && o->nonpositional(); });
    if (opts.empty()) continue;
    out += make_group(group, false, opts);
  }
  return out;
}

std::string WrappingFormatter::make_help(const CLI::App* app, std::string name,
                                         CLI::AppFormatMode mode) const {
  if (mode == CLI::AppFormatMode::Sub || !app->get_help_all_ptr())
    return CLI::Formatter::make_help(app, std::move(name), mode);
  brief_ = mode != CLI::AppFormatMode::All;
  std::string out = make_description(app) + make_usage(app, name) + make_positionals(app) +
                    groups(app, brief_) + make_subcommands(app, mode) + "\n" + make_footer(app);
  brief_ = false;
  return out;
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
