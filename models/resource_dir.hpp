#pragma once
/// Where tilevolve finds the files it ships (data/, prompts/, eval/workers/): beside an
/// installed binary, or in the source tree it was built from.
#include <string>

namespace tv {

/// The installed share/tilevolve when the running binary is BIN/tilevolve (or another binary
/// in BIN) and BIN/../share/tilevolve/data exists (`cmake --install build --prefix P` puts them
/// there); else the source tree (compiled in). Worked out once.
std::string resource_dir();

} // namespace tv
