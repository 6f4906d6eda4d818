#include "evolve/kernel_run_budget.hpp"

#include "ir/error.hpp"
#include "models/json_text.hpp"

#include <charconv>
#include <cmath>
#include <fmt/format.h>

namespace tv {

namespace {

/// The largest count the parser takes (as --budget's limit).
constexpr long long kMaxRuns = 1'000'000'000'000LL;

[[noreturn]] void refuse(std::string_view text) {
  throw InputError(
      fmt::format("kernel-run budget '{}': expected a count of kernel runs (e.g. 2000), a share of "
                  "exhaustive tuning of the training shapes (e.g. 30%) or none",
                  text));
}

} // namespace

long long KernelRunBudget::cap(long long exhaustive) const {
  long long c = runs;
  if (share > 0 && exhaustive > 0) {
    const long long s = std::max(1LL, (long long)std::floor(share * double(exhaustive)));
    c = c > 0 ? std::min(c, s) : s;
  }
  return c;
}

std::string KernelRunBudget::text() const {
  // Ten significant digits: parse() reads back the same cap (27.123456% stays 27.123456%, where
  // six digits gave 27.1235%), and 0.275 x 100 still prints as 27.5.
  if (runs > 0 && share > 0) return fmt::format("{} or {:.10g}%", runs, share * 100);
  if (runs > 0) return std::to_string(runs);
  if (share > 0) return fmt::format("{:.10g}%", share * 100);
  return "";
}

std::string KernelRunBudget::describe() const {
  const std::string share_text = fmt::format(
      "{:g}% of the kernel runs of exhaustive tuning of the training shapes", share * 100);
  if (runs > 0 && share > 0)
    return fmt::format("at most {} kernel runs or {}, whichever is fewer", runs, share_text);
  if (runs > 0) return fmt::format("at most {} kernel runs", runs);
  if (share > 0) return "at most " + share_text;
  return "";
}

KernelRunBudget KernelRunBudget::parse(std::string_view text) {
  KernelRunBudget b;
  if (text.empty()) refuse(text);
  if (text == "none") return b;
  if (text.back() == '%') {
    const std::string_view num = text.substr(0, text.size() - 1);
    double p = 0;
    const auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), p);
    if (num.empty() || ec != std::errc() || end != num.data() + num.size() || !(p > 0) ||
        !(p <= 100))
      refuse(text);
    b.share = p / 100;
    if (!(b.share > 0)) refuse(text); // so small a percentage that its fraction underflows to 0
    return b;
  }
  long long n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxRuns) refuse(text);
  b.runs = n;
  return b;
}

void KernelRunBudget::to_json(nlohmann::json& options) const {
  if (runs > 0) options["max_kernel_runs"] = runs;
  if (share > 0) options["max_kernel_share"] = share;
}

KernelRunBudget KernelRunBudget::from_json(const nlohmann::json& options) {
  KernelRunBudget b;
  if (options.contains("max_kernel_runs")) {
    const auto& v = options["max_kernel_runs"];
    if (!json_type_problem<long long>(v).empty() || v.get<long long>() < 1 ||
        v.get<long long>() > kMaxRuns)
      throw InputError(fmt::format("options.max_kernel_runs: expected a count from 1 to {}, got {}",
                                   kMaxRuns, v.dump()));
    b.runs = v.get<long long>();
  }
  if (options.contains("max_kernel_share")) {
    const auto& v = options["max_kernel_share"];
    if (!json_type_problem<double>(v).empty() || !(v.get<double>() > 0) || !(v.get<double>() <= 1))
      throw InputError(fmt::format(
          "options.max_kernel_share: expected a fraction above 0 and at most 1, got {}", v.dump()));
    b.share = v.get<double>();
  }
  return b;
}

} // namespace tv
