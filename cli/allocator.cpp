#include "cli/allocator.hpp"

#include <cstdlib>
#include <fmt/format.h>

#ifdef TILEVOLVE_MIMALLOC
#include <mimalloc.h>
#endif

namespace tv {

std::string allocator_text() {
#ifdef TILEVOLVE_MIMALLOC
  const int v = mi_version(); // e.g. 209 for 2.0.9
  const std::string name = fmt::format("mimalloc {}.{}.{}", v / 100, v / 10 % 10, v % 10);
  // Ask the process's malloc, not mi_malloc: only an override puts its blocks in mimalloc's heap.
  void* probe = std::malloc(64);
  const bool redirected = probe != nullptr && mi_is_in_heap_region(probe);
  std::free(probe);
  return name + (redirected ? " (malloc redirected)" : " (linked, malloc not redirected)");
#else
  return "the C library's malloc";
#endif
}

} // namespace tv
