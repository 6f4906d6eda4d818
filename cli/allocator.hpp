#pragma once
/// The memory allocator the binary runs with. Release builds link mimalloc (Debian's
/// libmimalloc-dev) into the tool and the benchmarks when CMake finds it: the lecture and the
/// evolution allocate many small objects (programs, rules, measurement lists), and mimalloc takes
/// about 15% off the lecture's time against glibc's malloc (README, "Benchmarks"). Sanitized and
/// fuzz builds keep the C library's malloc, which AddressSanitizer replaces.
#include <string>

namespace tv {

/// "mimalloc 2.0.9 (malloc redirected)" when the binary links mimalloc and malloc() is
/// mimalloc's; "mimalloc 2.0.9 (linked, malloc not redirected)" when linked but malloc() is
/// another allocator's (a link-order fault); "the C library's malloc" otherwise.
std::string allocator_text();

} // namespace tv
