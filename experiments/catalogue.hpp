#pragma once
/// The sentences of a report in one language, kept apart from the code that computes the
/// figures: data/lang/LANG.json maps a key to a sentence with named placeholders ("{runs} kernel
/// runs"; "{{" and "}}" are literal braces). A new language is a new file with the same keys.
#include "experiments/report.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// A placeholder's value: text, or a cited table cell (for observations).
using CatalogueArgs = std::map<std::string, std::string>;

/// The sentences of one language, by key.
class Catalogue {
public:
  /// A catalogue of `entries` read from `source` (a file name, for error messages).
  Catalogue(std::string lang, std::string source, std::map<std::string, std::string> entries);
  /// The language code ("en", "zh").
  const std::string& lang() const { return lang_; }
  /// Every key and its sentence.
  const std::map<std::string, std::string>& entries() const { return entries_; }
  /// The sentence of `key` with its placeholders filled from `args`; throws InputError naming
  /// the file and the key when the key is missing, a placeholder has no value or a brace is
  /// unbalanced.
  std::string text(const std::string& key, const CatalogueArgs& args = {}) const;
  /// The sentence of `key` as observation parts: prose, and each placeholder the part `args`
  /// gives it (a cited cell, or prose), named after the placeholder; throws like text().
  std::vector<Part> parts(const std::string& key, const std::map<std::string, Part>& args) const;

private:
  const std::string& sentence(const std::string& key) const;
  std::string lang_, source_;
  std::map<std::string, std::string> entries_;
};

/// A piece of a sentence: literal text, or a placeholder's name.
struct SentencePiece {
  std::string text;
  bool placeholder = false;
};

/// `sentence` cut into literal text and placeholders ("a {x}b" -> "a ", x, "b"); throws
/// InputError (prefixed with `where`) for an unbalanced or empty brace.
std::vector<SentencePiece> sentence_pieces(std::string_view sentence, std::string_view where = "");

/// The placeholder names of `sentence`, in order.
std::vector<std::string> placeholders(std::string_view sentence);

/// The languages with a catalogue under data/lang (file stems, sorted).
std::vector<std::string> catalogue_languages();

/// Reads data/lang/LANG.json (an object of string values); throws InputError for an unknown
/// language (naming those there are) or a malformed file (naming it and the key).
Catalogue load_catalogue(const std::string& lang);

} // namespace tv
