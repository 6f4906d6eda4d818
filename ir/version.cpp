#include "ir/version.hpp"

#ifndef TILEVOLVE_VERSION
#error "TILEVOLVE_VERSION must be defined by the build (CMakeLists.txt sets it from project())"
#endif

namespace tv {

std::string_view version() {
  return TILEVOLVE_VERSION;
}

} // namespace tv
