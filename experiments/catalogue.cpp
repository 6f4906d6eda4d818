#include "experiments/catalogue.hpp"

#include "ir/error.hpp"
#include "models/data_dir.hpp"
#include "models/json_text.hpp"

#include <algorithm>
#include <filesystem>
#include <fmt/format.h>
#include <fstream>
#include <sstream>

namespace tv {

Catalogue::Catalogue(std::string lang, std::string source,
                     std::map<std::string, std::string> entries)
    : lang_(std::move(lang)), source_(std::move(source)), entries_(std::move(entries)) {}

const std::string& Catalogue::sentence(const std::string& key) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) throw InputError(fmt::format("{}: no sentence '{}'", source_, key));
  return it->second;
}

std::string Catalogue::text(const std::string& key, const CatalogueArgs& args) const {
  const std::string where = fmt::format("{}: sentence '{}'", source_, key);
  std::string out;
  for (const auto& p : sentence_pieces(sentence(key), where)) {
    if (!p.placeholder) {
      out += p.text;
      continue;
    }
    const auto it = args.find(p.text);
    if (it == args.end()) throw InputError(fmt::format("{}: no value for {{{}}}", where, p.text));
    out += it->second;
  }
  return out;
}

std::vector<Part> Catalogue::parts(const std::string& key,
                                   const std::map<std::string, Part>& args) const {
  const std::string where = fmt::format("{}: sentence '{}'", source_, key);
  std::vector<Part> out;
  for (const auto& p : sentence_pieces(sentence(key), where)) {
    if (!p.placeholder) {
      if (!p.text.empty()) out.emplace_back(p.text);
      continue;
    }
    const auto it = args.find(p.text);
    if (it == args.end()) throw InputError(fmt::format("{}: no value for {{{}}}", where, p.text));
    Part part = it->second;
    part.name = p.text;
    out.push_back(std::move(part));
  }
  return out;
}

std::vector<SentencePiece> sentence_pieces(std::string_view s, std::string_view where) {
  std::vector<SentencePiece> out;
  std::string lit;
  auto bad = [&](const char* what) {
    return InputError(fmt::format("{}{}{}", where, where.empty() ? "" : ": ", what));
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if ((c == '{' || c == '}') && i + 1 < s.size() && s[i + 1] == c) {
      lit += c;
      ++i;
    } else if (c == '{') {
      const auto end = s.find_first_of("{}", i + 1);
      if (end == std::string_view::npos || s[end] != '}')
        throw bad("a '{' without its '}' (write {{ for a brace)");
      if (end == i + 1) throw bad("an empty placeholder {}");
      if (!lit.empty()) out.push_back({std::move(lit), false});
      lit.clear();
      out.push_back({std::string(s.substr(i + 1, end - i - 1)), true});
      i = end;
    } else if (c == '}') {
      throw bad("a '}' without its '{' (write }} for a brace)");
    } else {
      lit += c;
    }
  }
  if (!lit.empty()) out.push_back({std::move(lit), false});
  return out;
}

std::vector<std::string> placeholders(std::string_view sentence) {
  std::vector<std::string> out;
  for (auto& p : sentence_pieces(sentence))
    if (p.placeholder) out.push_back(std::move(p.text));
  return out;
}

std::vector<std::string> catalogue_languages() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(data_path("lang"), ec))
    if (e.path().extension() == ".json") out.push_back(e.path().stem().string());
  std::sort(out.begin(), out.end());
  return out;
}

Catalogue load_catalogue(const std::string& lang) {
  const auto langs = catalogue_languages();
  if (std::find(langs.begin(), langs.end(), lang) == langs.end())
    throw InputError(fmt::format("unknown language '{}' (catalogues in {}: {})", lang,
                                 data_path("lang"), fmt::join(langs, ", ")));
  const std::string path = data_path("lang/" + lang + ".json");
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  if (!in) throw InputError(fmt::format("cannot read {}", path));
  const nlohmann::json j = parse_json_text(ss.str(), path);
  if (!j.is_object())
    throw InputError(fmt::format("{}: expected an object of key: sentence", path));
  std::map<std::string, std::string> entries;
  for (const auto& [key, value] : j.items()) {
    if (!value.is_string())
      throw InputError(fmt::format("{}: sentence '{}': expected a string", path, key));
    const std::string where = fmt::format("{}: sentence '{}'", path, key);
    sentence_pieces(value.get<std::string>(), where); // braces checked once, here
    entries[key] = value.get<std::string>();
  }
  return Catalogue(lang, path, std::move(entries));
}

} // namespace tv
