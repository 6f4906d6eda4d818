#pragma once
/// --help text wrapped at the terminal's width: each option's and subcommand's description
/// is broken at spaces and continued under itself, the app's description likewise.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>

namespace tv {

/// The width help is wrapped at: the terminal's columns when stdout is one, else $COLUMNS
/// when set, else 80; never below 60.
std::size_t help_width();

/// `text` broken into lines of at most `width` characters at spaces (a longer word stands on
/// a line of its own); the lines after the first start with `indent` spaces, and so do the
/// lines after the text's own line breaks.
std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent);

/// CLI11's formatter with descriptions wrapped at `width` characters.
class WrappingFormatter : public CLI::Formatter {
public:
  explicit WrappingFormatter(std::size_t width);
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;

private:
  /// "  NAME   description" with the description wrapped in its column.
  std::string entry(const std::string& name, const std::string& description) const;
  std::size_t width_;
};

} // namespace tv
