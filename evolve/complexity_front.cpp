#include "evolve/complexity_front.hpp"

#include "ir/error.hpp"
#include "ir/text.hpp"

#include <cmath>
#include <fmt/format.h>

namespace tv {

std::size_t program_size(const Program& p) {
  std::size_t n = 0;
  for (const Rule& r : p.rules)
    n += r.condition.terms.size();
  return n;
}

bool ComplexityFront::improves(std::size_t size, double speedup) const {
  if (!std::isfinite(speedup) || speedup <= 0) return false;
  const auto it = by_size_.find(size);
  return it == by_size_.end() || speedup > it->second.speedup;
}

void ComplexityFront::offer(const FrontEntry& e) {
  if (!std::isfinite(e.speedup) || e.speedup <= 0) return;
  const std::size_t n = program_size(e.candidate.program);
  auto it = by_size_.find(n);
  if (it == by_size_.end())
    by_size_.emplace(n, e);
  else if (e.speedup > it->second.speedup)
    it->second = e;
}

std::optional<FrontEntry> ComplexityFront::choose(double penalty) const {
  std::optional<FrontEntry> best;
  double best_value = 0;
  const double charge = std::log1p(-penalty);
  for (const auto& [size, e] : by_size_) { // ascending size: ties keep the smaller
    const double v = std::log(e.speedup) + double(size) * charge;
    if (!best || v > best_value) {
      best = e;
      best_value = v;
    }
  }
  return best;
}

nlohmann::json ComplexityFront::to_json() const {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& [size, e] : by_size_)
    out.push_back({{"id", e.candidate.id},
                   {"parent", e.candidate.parent},
                   {"island", e.candidate.island},
                   {"score", e.candidate.score},
                   {"speedup", e.speedup},
                   {"program", print_program(e.candidate.program)},
                   {"op", e.op},
                   {"diff", e.diff}});
  return out;
}

ComplexityFront ComplexityFront::from_json(const nlohmann::json& j) {
  if (!j.is_array()) throw InputError("complexity front: expected an array");
  ComplexityFront f;
  for (const auto& x : j) {
    try {
      FrontEntry e;
      e.candidate.id = x.at("id").get<std::uint64_t>();
      e.candidate.parent = x.at("parent").get<std::uint64_t>();
      e.candidate.island = x.at("island").get<int>();
      e.candidate.score = x.at("score").get<double>();
      e.speedup = x.at("speedup").get<double>();
      e.op = x.at("op").get<std::string>();
      e.diff = x.at("diff").get<std::string>();
      const ParseResult pr = parse_program(x.at("program").get<std::string>());
      if (!pr.ok()) throw InputError("complexity front: a program does not parse");
      e.candidate.program = *pr.program;
      f.offer(e);
    } catch (const nlohmann::json::exception& ex) {
      throw InputError(fmt::format("complexity front: malformed entry ({})", ex.what()));
    }
  }
  return f;
}

} // namespace tv
