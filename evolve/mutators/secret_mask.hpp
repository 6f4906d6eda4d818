#pragma once
/// Keeping secrets out of what is recorded and printed. A server may reflect the API key back
/// (a 401 whose message quotes "Bearer <key>"), and a URL may carry user:password@; every text
/// that reaches a file, a report or the terminal goes through these first.
#include <string>
#include <string_view>

namespace tv {

/// What a masked secret becomes.
inline constexpr std::string_view kMaskedSecret = "***";

/// `text` with every occurrence of `secret` replaced by kMaskedSecret. Secrets shorter than 4
/// characters are no secrets and are left alone (masking them would garble ordinary text).
std::string mask_secret(std::string text, std::string_view secret);

/// `url` with its user:password@ part (everything between "://", or the start, and the last
/// '@' of the URL: a password may hold an unescaped '/') replaced by "***@".
std::string url_without_userinfo(std::string_view url);

} // namespace tv
