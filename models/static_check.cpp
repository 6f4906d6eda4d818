#include "models/static_check.hpp"

#include "ir/simplify.hpp"
#include "models/launch.hpp"

#include <fmt/format.h>
#include <optional>
#include <string>
#include <unordered_map>

namespace tv {

std::vector<StaticIssue> static_check(const Program& p, const Gpu& g,
                                      const std::vector<DType>& dtypes) {
  // One pass over the rules (live_branches), not effective_region per rule (quadratic).
  return static_check(p, live_branches(p), g, dtypes);
}

std::vector<StaticIssue> static_check(const Program& p, const LiveBranches& live, const Gpu& g,
                                      const std::vector<DType>& dtypes) {
  std::vector<StaticIssue> out;
  std::unordered_map<Config, std::optional<std::string>> verdict; // one check per distinct config
  auto check = [&](int rule, const Config& c) {
    auto [it, fresh] = verdict.try_emplace(c);
    if (fresh)
      for (DType d : dtypes)
        if (auto why = launch_problem(c, g, d)) {
          it->second = std::move(why);
          break;
        }
    if (it->second) out.push_back({rule, c, *it->second});
  };
  for (std::size_t i : live.rules)
    check(int(i), p.rules[i].config);
  if (live.default_live) check(-1, p.default_config);
  return out;
}

std::string format_static_issues(const std::vector<StaticIssue>& issues) {
  std::string s;
  for (const auto& i : issues) {
    s += i.rule < 0 ? std::string("default") : fmt::format("rule {}", i.rule + 1);
    s += fmt::format(" ({}): {}\n", i.config.brief(), i.reason);
  }
  return s;
}

} // namespace tv
