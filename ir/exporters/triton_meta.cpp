#include "ir/exporters/triton_meta.hpp"

namespace tv {

std::vector<std::pair<std::string_view, int>> triton_meta(const Config& c) {
  std::vector<std::pair<std::string_view, int>> f = {
      {kTritonRequiredFields[0], c.BM},    {kTritonRequiredFields[1], c.BN},
      {kTritonRequiredFields[2], c.BK},    {kTritonRequiredFields[3], c.group},
      {kTritonRequiredFields[4], c.warps}, {kTritonRequiredFields[5], c.stages}};
  if (c.waves_per_eu) f.emplace_back(kTritonAmdFields[0], *c.waves_per_eu);
  if (c.matrix_instr_nonkdim) f.emplace_back(kTritonAmdFields[1], *c.matrix_instr_nonkdim);
  if (c.kpack) f.emplace_back(kTritonAmdFields[2], *c.kpack);
  return f;
}

bool set_triton_field(Config& c, std::string_view name, int value) {
  if (name == "BLOCK_SIZE_M")
    c.BM = value;
  else if (name == "BLOCK_SIZE_N")
    c.BN = value;
  else if (name == "BLOCK_SIZE_K")
    c.BK = value;
  else if (name == "GROUP_SIZE_M")
    c.group = value;
  else if (name == "num_warps")
    c.warps = value;
  else if (name == "num_stages")
    c.stages = value;
  else if (name == "waves_per_eu")
    c.waves_per_eu = value;
  else if (name == "matrix_instr_nonkdim")
    c.matrix_instr_nonkdim = value;
  else if (name == "kpack")
    c.kpack = value;
  else
    return false;
  return true;
}

} // namespace tv
