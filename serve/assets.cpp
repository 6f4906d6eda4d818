#include "serve/assets.hpp"

namespace tv {

namespace {
bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
} // namespace

std::string_view content_type_for(std::string_view name) {
  if (ends_with(name, ".html")) return "text/html; charset=utf-8";
  if (ends_with(name, ".css")) return "text/css; charset=utf-8";
  if (ends_with(name, ".js")) return "text/javascript; charset=utf-8";
  if (ends_with(name, ".json")) return "application/json";
  if (ends_with(name, ".png")) return "image/png";
  if (ends_with(name, ".svg")) return "image/svg+xml";
  return "text/plain; charset=utf-8";
}

std::optional<Asset> find_asset(std::string_view name) {
  for (std::size_t i = 0; i < embedded::file_count; ++i) {
    const embedded::EmbeddedFile& f = embedded::files[i];
    if (name == f.name)
      return Asset{std::string_view(reinterpret_cast<const char*>(f.data), f.size),
                   content_type_for(name)};
  }
  return std::nullopt;
}

} // namespace tv
