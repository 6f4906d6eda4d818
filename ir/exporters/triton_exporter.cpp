#include "ir/exporters/triton_exporter.hpp"

#include "ir/exporters/python_exporter.hpp"
#include "ir/exporters/training_range_code.hpp"
#include "ir/exporters/triton_meta.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace tv {

namespace {

/// `triton.Config({...}, num_warps=W, num_stages=S)`: the block sizes, GROUP_SIZE_M and the AMD
/// knobs are kernel meta-parameters; num_warps and num_stages are Config's own arguments.
std::string triton_config(const Config& c) {
  std::string kwargs = "{";
  bool first = true;
  for (const auto& [name, value] : triton_meta(c)) {
    if (name == "num_warps" || name == "num_stages") continue;
    kwargs += fmt::format("{}\"{}\": {}", first ? "" : ", ", name, value);
    first = false;
  }
  kwargs += "}";
  return fmt::format("triton.Config({}, num_warps={}, num_stages={})", kwargs, c.warps, c.stages);
}

} // namespace

std::string export_triton(const Program& p, const ExportInfo& info) {
  // Every tile config the program can return, once, in the order they first appear.
  std::vector<Config> configs;
  const auto add = [&](const Config& c) {
    if (!c.vendor && std::find(configs.begin(), configs.end(), c) == configs.end())
      configs.push_back(c);
  };
  for (const auto& r : p.rules)
    add(r.config);
  add(p.default_config);
  const auto index_of = [&](const Config& c) -> std::string {
    if (c.vendor) return "VENDOR";
    return std::to_string(std::find(configs.begin(), configs.end(), c) - configs.begin());
  };

  std::string out;
  for (const auto& l : provenance_lines(p, info))
    out += "# " + l + "\n";
  out += "#\n"
         "# CONFIGS lists every tile config the heuristic returns, as triton.Config, for\n"
         "#     @triton.autotune(configs=CONFIGS, key=[\"M\", \"N\", \"K\"],\n"
         "#                      prune_configs_by={\"early_config_prune\": early_config_prune})\n"
         "# Triton's Autotuner launches the one config early_config_prune keeps without\n"
         "# benchmarking. Without autotune: kernel[grid](..., **launch_kwargs(M, N, K)).\n"
         "# Where the heuristic calls the vendor library (cuBLAS, hipBLASLt), choose_config and\n"
         "# launch_kwargs return VENDOR (None) and early_config_prune raises ValueError.\n\n"
         "import triton\n\n"
         "VENDOR = None  # returned where the vendor library should run the GEMM\n"
         "# True: early_config_prune keeps every config of CONFIGS for a shape outside the "
         "training\n"
         "# range (in_training_range below), so that @triton.autotune benchmarks them there.\n"
         "AUTOTUNE_OUTSIDE_TRAINING_RANGE = False\n\n";
  out += "CONFIGS = [\n";
  for (std::size_t i = 0; i < configs.size(); ++i)
    out += fmt::format("    {},  # {}: {}\n", triton_config(configs[i]), i, configs[i].brief());
  out += "]\n\n\n";
  out += python_export::helpers(p);
  out += python_export::decision_function(
      p, "choose_index", "Index into CONFIGS of the config for the GEMM (M, N, K), or VENDOR.",
      index_of);
  out +=
      "\n\n"
      "def choose_config(M, N, K):\n"
      "    \"\"\"The triton.Config for the GEMM (M, N, K), or VENDOR.\"\"\"\n"
      "    i = choose_index(M, N, K)\n"
      "    return VENDOR if i is None else CONFIGS[i]\n\n\n"
      "def launch_kwargs(M, N, K):\n"
      "    \"\"\"Keyword arguments for a direct launch: kernel[grid](..., **launch_kwargs(M, N, "
      "K)).\"\"\"\n"
      "    c = choose_config(M, N, K)\n"
      "    if c is None:\n"
      "        return VENDOR\n"
      "    return dict(c.kwargs, num_warps=c.num_warps, num_stages=c.num_stages)\n\n\n"
      "def early_config_prune(configs, named_args, **kwargs):\n"
      "    \"\"\"For prune_configs_by: keeps the heuristic's config for the kernel's M, N, "
      "K.\"\"\"\n"
      "    args = dict(named_args)\n"
      "    args.update(kwargs)\n"
      "    M, N, K = int(args[\"M\"]), int(args[\"N\"]), int(args[\"K\"])\n"
      "    if AUTOTUNE_OUTSIDE_TRAINING_RANGE and not in_training_range(M, N, K):\n"
      "        return list(configs)  # @triton.autotune benchmarks them and keeps the fastest\n"
      "    c = choose_config(M, N, K)\n"
      "    if c is None:\n"
      "        raise ValueError(\n"
      "            \"tilevolve heuristic: the vendor library is chosen for M=%d, N=%d, K=%d; \"\n"
      "            \"call it instead of this kernel\" % (M, N, K))\n"
      "    return [c]\n";
  out += "\n\n" + python_training_range(p, info);
  return out;
}

} // namespace tv
