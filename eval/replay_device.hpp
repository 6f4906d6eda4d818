#pragma once
/// The GPU profile a replay file was measured on, from what the file says about its device:
/// a tilevolve measurement file names the GPU profile on every row; an AutoHeuristic dataset's
/// JSON line gives the compute capability (so an NVIDIA GPU) and the shared memory per block.
#include <optional>
#include <string>

namespace tv {

/// The profile a replay file fits and why.
struct ReplayDevice {
  std::string gpu;  ///< profile name in data/gpus, e.g. "h100"
  std::string note; ///< one sentence for reports, naming the file's device and other matches
};

/// The device of the replay file `path` (or of every file of a list, see replay_paths), or
/// nullopt when the file says nothing about it. Throws InputError when a file cannot be read
/// or parsed, names several GPUs, or matches no profile in data/gpus, or when the files of a
/// list disagree.
std::optional<ReplayDevice> replay_device(const std::string& path);

} // namespace tv
