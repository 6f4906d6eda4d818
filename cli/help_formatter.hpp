#pragma once
/// --help text wrapped at the terminal's width: each option's and subcommand's description
/// is broken at spaces and continued under itself, the app's description likewise.
#include <CLI/CLI.hpp>
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace tv {

/// The width help is wrapped at: the terminal's columns when stdout is one, else $COLUMNS
/// when set, else 80; never below 60.
std::size_t help_width();

/// `text` broken into lines of at most `width` characters at spaces (a longer word stands on
/// a line of its own); the lines after the first start with `indent` spaces, and so do the
/// lines after the text's own line breaks.
std::string wrap_text(const std::string& text, std::size_t width, std::size_t indent);

/// The group of options --help leaves out (--help-all shows it).
inline constexpr const char* kAdvancedGroup = "Advanced";

/// The first clause of an option's description, for the brief --help: up to the first "; ",
/// ": " or ". " outside parentheses that leaves at least 12 characters (the whole text when
/// none does); a description in lines keeps the lines after its first.
std::string brief_description(const std::string& text);

/// Options of a command by group, in the order --help shows them: each group's title and the
/// names of its options.
using HelpGroups = std::vector<std::pair<std::string, std::vector<std::string>>>;

/// Puts `cmd`'s options into `groups` (every option not named there into kAdvancedGroup) and
/// gives it -h,--help (brief, without the advanced group) and --help-all (everything in full)
/// as the last two options of the group of `help_group`. Throws std::logic_error when a name in
/// `groups` is not an option of `cmd`.
void arrange_help(CLI::App& cmd, const HelpGroups& groups, const std::string& help_group);

/// CLI11's formatter with descriptions wrapped at `width` characters. A command with a
/// --help-all flag gets two helps: --help lists its options by group, each with the first clause
/// of its description and its type without its range, and leaves out the group kAdvancedGroup;
/// --help-all shows every option in full.
class WrappingFormatter : public CLI::Formatter {
public:
  explicit WrappingFormatter(std::size_t width);
  std::string make_help(const CLI::App* app, std::string name,
                        CLI::AppFormatMode mode) const override;
  std::string make_option(const CLI::Option* opt, bool is_positional) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;

private:
  /// "  NAME   description" with the description wrapped in its column.
  std::string entry(const std::string& name, const std::string& description) const;
  /// The options of `app` by group (brief: without kAdvancedGroup, each entry brief).
  std::string groups(const CLI::App* app, bool brief) const;
  std::size_t width_;
  /// Set while a brief help is made (make_option reads it).
  mutable bool brief_ = false;
};

} // namespace tv
