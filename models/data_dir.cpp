#include "models/data_dir.hpp"

#include "models/resource_dir.hpp"

#include <cstdlib>

namespace tv {

std::string data_dir() {
  if (const char* env = std::getenv("TILEVOLVE_DATA"); env && *env) return env;
  return resource_dir() + "/data";
}

std::string data_path(const std::string& relative) {
  return data_dir() + "/" + relative;
}

} // namespace tv
