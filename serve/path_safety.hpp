#pragma once
/// Confines file requests to a root directory: the dashboard serves nothing outside RUNS_DIR.
#include <filesystem>
#include <string>
#include <string_view>

namespace tv {

/// The outcome of resolving a requested path: `status` 200 with the canonical path, 403 when
/// the request is refused (it would leave the root, or names a hidden file), 404 when there
/// is no such file.
struct ResolvedPath {
  int status = 404;
  std::filesystem::path path;
  std::string why; ///< why it was refused or not found (for the response body)
  bool ok() const { return status == 200; }
};

/// True when a raw request target (before percent-decoding) encodes a slash, backslash, dot,
/// NUL or other control byte ("%2f", "%5C", "%2e", "%00", ...): such requests are refused.
bool has_encoded_separator(std::string_view raw_target);

/// Checks one path component taken from a URL: not empty, not starting with '.' (this refuses
/// "." and ".." and hidden files), no '/', '\\', NUL or control bytes; empty when fine, else
/// the reason.
std::string component_problem(std::string_view component);

/// True when `path` exists and its real location (symlinks followed) is outside `root`
/// (canonical): readers of run files check this before they open one.
bool leaves_root(const std::filesystem::path& root, const std::filesystem::path& path);

/// Resolves `relative` ('/'-separated components, each checked by component_problem) under
/// `root` (canonical), following symlinks, and refuses anything whose real location is not
/// inside `root`. With `want_directory` the target must be a directory, else a regular file.
ResolvedPath resolve_under(const std::filesystem::path& root, std::string_view relative,
                           bool want_directory = false);

} // namespace tv
