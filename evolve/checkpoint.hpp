#pragma once
/// The envelope of a run's checkpoint.json: format, version, the fingerprint of the run
/// configuration it belongs to, and a checksum of the state it carries.
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// Fingerprint of a run configuration (the content of config.json, see
/// Evolution::run_config): a checkpoint only resumes the run it was written by.
std::string run_fingerprint(const nlohmann::json& run_config);
/// The text of checkpoint.json for run state `state` of the run with `fingerprint`.
std::string checkpoint_text(const nlohmann::json& state, const std::string& fingerprint);
/// The state carried by checkpoint text `text` (read from `path`), its format version in
/// `*version` when given (an older one's state is the caller's to migrate). Throws InputError
/// naming `path` for malformed or truncated JSON, a repeated key, another format, a version
/// older than the oldest read or newer than this one's, a checksum that does not match the
/// state, or a fingerprint none of `fingerprints`.
nlohmann::json checkpoint_state(std::string_view text, const std::string& path,
                                const std::vector<std::string>& fingerprints,
                                int* version = nullptr);
/// checkpoint_state with one fingerprint.
inline nlohmann::json checkpoint_state(std::string_view text, const std::string& path,
                                       const std::string& fingerprint) {
  return checkpoint_state(text, path, std::vector<std::string>{fingerprint});
}

} // namespace tv
