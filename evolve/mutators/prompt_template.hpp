#pragma once
/// A prompt template: plain text with `{name}` placeholders, `{{` and `}}` for literal braces.
/// Templates are user files, so every problem is reported with the file, line and column.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// A parsed template.
class PromptTemplate {
public:
  /// Parses `text` (named `source` in errors). Throws InputError "source:line:col: ..." for
  /// a placeholder not in `known` or a brace that is neither a placeholder nor doubled, and
  /// "source: ..." when a name in `required` is never used.
  static PromptTemplate parse(std::string_view text, std::string source,
                              const std::vector<std::string>& known,
                              const std::vector<std::string>& required);
  /// Reads and parses the file `path`; throws InputError naming it when it cannot be read.
  static PromptTemplate load(const std::string& path, const std::vector<std::string>& known,
                             const std::vector<std::string>& required);
  /// The text with every placeholder replaced by its value; throws std::logic_error when a
  /// used placeholder has no value (a programming error: values come from the code).
  std::string fill(const std::map<std::string, std::string>& values) const;
  /// Names of the placeholders used, in order of first use.
  const std::vector<std::string>& used() const { return used_; }
  /// Where the template came from.
  const std::string& source() const { return source_; }
  /// The template text as read.
  const std::string& text() const { return text_; }

private:
  struct Piece {
    bool placeholder = false;
    std::string text; ///< literal text, or the placeholder's name
  };
  std::vector<Piece> pieces_;
  std::vector<std::string> used_;
  std::string source_, text_;
};

} // namespace tv
