#pragma once
/// The tilevolve version, as CMake's project() states it.
#include <string_view>

namespace tv {

/// "0.1.0": the version every export and `--version` report.
std::string_view version();

} // namespace tv
