// Fuzz target for the GPU profile reader (models/gpu.hpp): any bytes must parse or raise
// InputError naming the file, never crash, hang or leak; a profile that loads has a config
// space whose every config goes through the launch check and, when launchable, the analytic
// model without undefined behaviour (issue 13: large config values overflowed int), giving a
// finite, positive time. Seeds in tests/fuzz/corpus/gpu_profile/, tokens in
// tests/fuzz/gpu_profile.dict. Built by -DTILEVOLVE_FUZZ=ON (links the tv_ libraries).
#include "ir/error.hpp"
#include "models/analytic_model.hpp"
#include "models/gpu.hpp"
#include "models/launch.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  tv::Gpu g;
  try {
    g = tv::parse_gpu_profile(text, "fuzz.json");
  } catch (const tv::InputError& e) {
    if (std::string_view(e.what()).substr(0, 9) != "fuzz.json") __builtin_trap();
    return 0;
  }
  const tv::ConfigSpace& s = g.space;
  // Cap the work per input: the product of the lists can be large; check at most ~200 configs.
  const std::size_t n = s.BM.size() * s.BN.size() * s.BK.size() * s.warps.size() * s.stages.size() *
                        s.group.size() * std::max<std::size_t>(1, s.kpack.size()) *
                        std::max<std::size_t>(1, s.waves_per_eu.size()) *
                        std::max<std::size_t>(1, s.matrix_instr_nonkdim.size());
  if (n > 200000) return 0;
  const std::vector<tv::Config> all = tv::all_configs(g);
  const std::size_t step = std::max<std::size_t>(1, all.size() / 200);
  const tv::Shape shapes[] = {{1, 4096, 4096}, {8192, 8192, 8192}, {7, 3, 1}};
  for (std::size_t i = 0; i < all.size(); i += step) {
    const tv::Config& c = all[i];
    for (const tv::Shape& sh : shapes) {
      if (tv::launch_problem(c, g, sh.dtype)) continue;
      const double t = tv::model_time(sh, c, g);
      if (!(t > 0) || !std::isfinite(t)) __builtin_trap();
    }
  }
  return 0;
}
