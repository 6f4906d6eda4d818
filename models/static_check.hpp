#pragma once
/// Stage 0 of evaluation: can every config a program may return launch on the target?
#include "ir/program.hpp"
#include "ir/simplify.hpp"
#include "models/gpu.hpp"

#include <string>
#include <vector>

namespace tv {

/// One unlaunchable branch: the rule (-1 = default) and why its config cannot launch.
struct StaticIssue {
  int rule = -1;
  Config config;
  std::string reason;
};

/// Checks every reachable branch of `p` (dead rules are skipped) on `g` for each dtype;
/// an empty result means the program is launchable everywhere it can decide.
std::vector<StaticIssue> static_check(const Program& p, const Gpu& g,
                                      const std::vector<DType>& dtypes);
/// The same check on the branches `live` (live_branches(p), computed once by a caller that
/// needs them too).
std::vector<StaticIssue> static_check(const Program& p, const LiveBranches& live, const Gpu& g,
                                      const std::vector<DType>& dtypes);
/// "rule 2 (BM=256 BN=128 warps=4): 296 registers per thread > 255" style lines.
std::string format_static_issues(const std::vector<StaticIssue>& issues);

} // namespace tv
