#include "evolve/mutators/secret_mask.hpp"

namespace tv {

std::string mask_secret(std::string text, std::string_view secret) {
  if (secret.size() < 4) return text;
  std::string out;
  std::size_t from = 0;
  for (std::size_t at; (at = text.find(secret, from)) != std::string::npos;
       from = at + secret.size())
    out.append(text, from, at - from).append(kMaskedSecret);
  if (from == 0) return text;
  out.append(text, from, std::string::npos);
  return out;
}

std::string url_without_userinfo(std::string_view url) {
  const std::size_t scheme = url.find("://");
  const std::size_t start = scheme == std::string_view::npos ? 0 : scheme + 3;
  // A password may hold an unescaped '/', '?' or '#', so the last '@' anywhere counts:
  // masking too much of a URL that is only printed in a message costs nothing.
  const std::size_t at = url.rfind('@');
  if (at == std::string_view::npos || at < start) return std::string(url);
  return std::string(url.substr(0, start)) + std::string(kMaskedSecret) + "@" +
         std::string(url.substr(at + 1));
}

} // namespace tv
