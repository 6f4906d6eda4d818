#pragma once
/// The directories of a dashboard root that hold one kind of thing (a run, a split study):
/// its subdirectories that do, by name, or the root itself when it does. A subdirectory that is
/// a symlink to somewhere outside the root is never one of them.
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace tv {

/// The canonical form of a runs directory; throws InputError when it does not exist or is not
/// a directory.
std::filesystem::path canonical_runs_dir(const std::filesystem::path& root);

/// Whether a directory holds the kind of thing listed.
using DirectoryTest = std::function<bool(const std::filesystem::path&)>;

/// The name `root` (canonical) has when it holds the thing itself: its own name, or `fallback`
/// when that name could not be a URL component.
std::string root_directory_name(const std::filesystem::path& root, std::string_view fallback);

/// The names of the directories under `root` (canonical) that `holds` accepts, sorted; when
/// `root` itself is accepted, its name alone (root_directory_name).
std::vector<std::string> named_directories(const std::filesystem::path& root,
                                           const DirectoryTest& holds, std::string_view fallback);

/// The canonical directory `name` stands for among named_directories, or empty when none.
std::filesystem::path named_directory(const std::filesystem::path& root, const std::string& name,
                                      const DirectoryTest& holds, std::string_view fallback);

} // namespace tv
