#include "eval/replay_device.hpp"

#include "eval/autoheuristic_data.hpp"
#include "eval/measurement_cache.hpp"
#include "eval/replay_backend.hpp"
#include "ir/error.hpp"
#include "models/gpu.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <vector>

namespace tv {

namespace {

/// The device of one replay file (see replay_device).
std::optional<ReplayDevice> device_of_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(fmt::format("{}: is a directory, not a replay file", path));
  std::string first;
  {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw InputError(fmt::format("{}: cannot read the replay file", path));
    std::getline(in, first);
  }
  if (is_measurement_cache(first)) {
    std::set<std::string> gpus;
    for (const auto& r : load_measurement_cache(path))
      gpus.insert(r.gpu);
    if (gpus.empty()) return std::nullopt;
    if (gpus.size() > 1)
      throw InputError(fmt::format("{} holds measurements of several GPUs ({}): choose one with "
                                   "--gpu",
                                   path, fmt::join(gpus, ", ")));
    const std::string& g = *gpus.begin();
    return ReplayDevice{g, fmt::format("GPU profile {}: the GPU every row of {} names", g, path)};
  }
  if (!looks_like_autoheuristic(first)) return std::nullopt; // the backend reports the format
  const AutoHeuristicData d = load_autoheuristic_file(path);
  if (!d.shared_memory && !d.device_capability) return std::nullopt;
  std::vector<std::string> matches;
  for (const std::string& name : known_gpus()) {
    const Gpu g = find_gpu(name);
    if (d.device_capability && g.vendor != "nvidia") continue;
    if (d.shared_memory && g.shared_per_block != *d.shared_memory) continue;
    matches.push_back(name);
  }
  std::string device;
  if (d.device_capability)
    device = fmt::format("compute capability {}.{}", d.device_capability->first,
                         d.device_capability->second);
  if (d.shared_memory)
    device += fmt::format("{}{} bytes of shared memory per block", device.empty() ? "" : ", ",
                          *d.shared_memory);
  if (matches.empty())
    throw InputError(fmt::format("{} was measured on a device with {}; no GPU profile in "
                                 "data/gpus matches it (add one, or pass --gpu)",
                                 path, device));
  std::string note = fmt::format("GPU profile {}: the profile that matches the device {} "
                                 "records ({})",
                                 matches.front(), path, device);
  if (matches.size() > 1)
    note += fmt::format("; {} {} too, choose with --gpu",
                        fmt::join(matches.begin() + 1, matches.end(), ", "),
                        matches.size() > 2 ? "match" : "matches");
  return ReplayDevice{matches.front(), note};
}

} // namespace

std::optional<ReplayDevice> replay_device(const std::string& path) {
  const std::vector<std::string> files = replay_paths(path);
  std::optional<ReplayDevice> first = device_of_file(files.front());
  for (std::size_t i = 1; i < files.size(); ++i) {
    const std::optional<ReplayDevice> d = device_of_file(files[i]);
    if (d.has_value() != first.has_value() || (d && d->gpu != first->gpu))
      throw InputError(fmt::format("replay files {} and {} were measured on different devices "
                                   "({} and {}): replay files of one device together",
                                   files.front(), files[i], first ? first->gpu : "unknown",
                                   d ? d->gpu : "unknown"));
  }
  if (first && files.size() > 1)
    first->note +=
        fmt::format("; each of the {} files listed records the same device", files.size());
  return first;
}

} // namespace tv
