#include "evolve/checkpoint.hpp"

#include <algorithm>

#include "ir/error.hpp"
#include "ir/hash.hpp"
#include "models/json_text.hpp"

#include <cstdint>
#include <fmt/format.h>

namespace tv {

namespace {

constexpr int kCheckpointVersion = 3;
/// The oldest version read (evolution_checkpoint.cpp migrates what changed since).
constexpr int kOldestCheckpointVersion = 2;

std::string hex64(std::uint64_t v) {
  return fmt::format("{:016x}", v);
}

/// Deterministic 64-bit digest of a string (for checksums and fingerprints).
std::uint64_t digest(const std::string& s) {
  return text_digest(s, 0x74696c65766f6c76ULL);
}

} // namespace

std::string run_fingerprint(const nlohmann::json& run_config) {
  return hex64(digest(run_config.dump()));
}

std::string checkpoint_text(const nlohmann::json& state, const std::string& fingerprint) {
  const nlohmann::json cp{{"format", "tilevolve-checkpoint"},
                          {"version", kCheckpointVersion},
                          {"fingerprint", fingerprint},
                          {"checksum", hex64(digest(state.dump()))},
                          {"state", state}};
  return cp.dump() + "\n";
}

nlohmann::json checkpoint_state(std::string_view text, const std::string& path,
                                const std::vector<std::string>& fingerprints, int* version_out) {
  nlohmann::json cp;
  try {
    cp = parse_json_text(text, path);
  } catch (const InputError& e) {
    throw InputError(fmt::format("corrupt or truncated checkpoint: {}", e.what()));
  }
  const auto text_field = [&](const char* key) {
    const auto it = cp.find(key);
    return it != cp.end() && it->is_string() ? it->get<std::string>() : std::string();
  };
  if (!cp.is_object() || text_field("format") != "tilevolve-checkpoint")
    throw InputError(fmt::format("{}: not a tilevolve checkpoint", path));
  const auto version = cp.find("version");
  if (version == cp.end() || !version->is_number_integer() ||
      version->get<long long>() < kOldestCheckpointVersion ||
      version->get<long long>() > kCheckpointVersion)
    throw InputError(fmt::format("{}: checkpoint version {} is not supported (expected {} to {})",
                                 path, version == cp.end() ? "(none)" : version->dump(),
                                 kOldestCheckpointVersion, kCheckpointVersion));
  if (version_out) *version_out = int(version->get<long long>());
  const auto st = cp.find("state");
  if (st == cp.end() || !st->is_object() || text_field("checksum") != hex64(digest(st->dump())))
    throw InputError(fmt::format("{}: checksum mismatch: the checkpoint is corrupt", path));
  if (std::find(fingerprints.begin(), fingerprints.end(), text_field("fingerprint")) ==
      fingerprints.end())
    throw InputError(fmt::format("{}: the checkpoint belongs to a different run configuration "
                                 "(options, shapes, GPU or expert changed since it was written)",
                                 path));
  return *st;
}

} // namespace tv
