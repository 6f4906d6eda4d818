#pragma once
/// Where tilevolve finds its data files (GPU profiles, shape sets, expert programs).
#include <string>

namespace tv {

/// The data directory: $TILEVOLVE_DATA if set, else resource_dir()'s data/ (the installed
/// one, or the source tree's).
std::string data_dir();
/// `data_dir() + "/" + relative`.
std::string data_path(const std::string& relative);

} // namespace tv
