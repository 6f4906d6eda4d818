#include "models/static_check.hpp"

#include "ir/simplify.hpp"
#include "models/launch.hpp"

#include <fmt/format.h>

namespace tv {

std::vector<StaticIssue> static_check(const Program& p, const Gpu& g,
                                      const std::vector<DType>& dtypes) {
  std::vector<StaticIssue> out;
  auto check = [&](int rule, const Config& c) {
    for (DType d : dtypes)
      if (auto why = launch_problem(c, g, d)) {
        out.push_back({rule, c, *why});
        return;
      }
  };
  for (std::size_t i = 0; i < p.rules.size(); ++i)
    if (!effective_region(p, i).empty()) check(int(i), p.rules[i].config);
  if (default_reachable(p)) check(-1, p.default_config);
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
