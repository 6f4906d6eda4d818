#include "eval/report_format.hpp"

#include "eval/text_table.hpp"
#include "ir/number_text.hpp"
#include "ir/text.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace tv {

nlohmann::json score_json(const SetScore& s) {
  nlohmann::json j{{"valid", s.valid}, {"shapes", s.shapes}, {"weighted", s.weighted}};
  const auto figure = [&](double v) { return s.valid ? nlohmann::json(v) : nlohmann::json(); };
  j["speedup_vs_expert"] = figure(s.speedup_vs_expert);
  j["fraction_of_oracle"] = figure(s.fraction_of_oracle);
  j["plain_speedup_vs_expert"] = figure(s.plain_speedup_vs_expert);
  j["plain_fraction_of_oracle"] = figure(s.plain_fraction_of_oracle);
  j["uplift"] = figure(s.uplift);
  if (!s.valid) j["problem"] = s.problem;
  return j;
}

nlohmann::json method_json(const MethodResult& m) {
  nlohmann::json j{{"label", m.label},
                   {"train", score_json(m.train)},
                   {"test", score_json(m.test)},
                   {"kernel_runs", m.kernel_runs},
                   {"kernel_runs_note", m.cost_note}};
  j["program"] = m.program ? nlohmann::json(print_program(*m.program)) : nlohmann::json(nullptr);
  return j;
}

nlohmann::json problem_json(const Problem& p) {
  return {{"gpu", p.gpu.name},
          {"gpu_full_name", p.gpu.full_name},
          {"backend", p.backend->name()},
          {"shapes_file", p.shapes_path},
          {"test_shapes_file", p.test_shapes_path},
          {"expert_file", p.expert_path},
          {"split", p.split_description},
          {"train_shapes", p.train_rows.size()},
          {"test_shapes", p.test_rows.size()},
          {"configs", p.table->configs().size()},
          {"weighted", p.train->weighted() || p.test->weighted()},
          {"notes", p.notes}};
}

std::string fmt_speedup(const SetScore& s) {
  return s.valid ? fmt::format("{:.3f}x", s.speedup_vs_expert) : "n/a";
}

std::string fmt_fraction(const SetScore& s) {
  return s.valid ? fmt::format("{:.1f}%", 100.0 * s.fraction_of_oracle) : "n/a";
}

std::string fmt_uplift(const SetScore& s) {
  return s.valid ? fmt::format("{:.3f}x", s.uplift) : "n/a";
}

std::string methods_table(const std::vector<MethodResult>& methods) {
  // With thousands separators, as the cost table below it prints its counts.
  const auto runs = [](const MethodResult& m) { return thousands(m.kernel_runs); };
  const bool weighted = std::any_of(methods.begin(), methods.end(), [](const MethodResult& m) {
    return m.train.weighted || m.test.weighted;
  });
  if (!weighted) {
    TextTable t({"method", "train vs expert", "train of oracle", "test vs expert", "test of oracle",
                 "kernel runs to tune"});
    for (const auto& m : methods)
      t.add({m.label, fmt_speedup(m.train), fmt_fraction(m.train), fmt_speedup(m.test),
             fmt_fraction(m.test), runs(m)});
    return t.str();
  }
  // Unequal weights: the workload-weighted figures with the end-to-end uplift, then the plain
  // figures that count every shape once.
  TextTable t({"method", "train vs expert", "train of oracle", "train uplift", "test vs expert",
               "test of oracle", "test uplift", "kernel runs to tune"});
  TextTable plain(
      {"method", "train vs expert", "train of oracle", "test vs expert", "test of oracle"});
  const auto plain_speedup = [](const SetScore& s) {
    return s.valid ? fmt::format("{:.3f}x", s.plain_speedup_vs_expert) : std::string("n/a");
  };
  const auto plain_fraction = [](const SetScore& s) {
    return s.valid ? fmt::format("{:.1f}%", 100.0 * s.plain_fraction_of_oracle)
                   : std::string("n/a");
  };
  for (const auto& m : methods) {
    t.add({m.label, fmt_speedup(m.train), fmt_fraction(m.train), fmt_uplift(m.train),
           fmt_speedup(m.test), fmt_fraction(m.test), fmt_uplift(m.test), runs(m)});
    plain.add({m.label, plain_speedup(m.train), plain_fraction(m.train), plain_speedup(m.test),
               plain_fraction(m.test)});
  }
  return "Weighted by the workload (geomeans weighted by each shape's weight; uplift = total "
         "weighted time of the expert / of the method):\n" +
         t.str() + "\nPlain (every shape counted once):\n" + plain.str();
}

std::string problem_header(const Problem& p) {
  std::string out = fmt::format("GPU {} ({}), backend {}; {} shapes from {}{}\n"
                                "split: {} -> {} train, {} test; {} {} configs\n",
                                p.gpu.name, p.gpu.full_name, p.backend->name(),
                                thousands((long long)p.table->shapes().size()), p.shapes_path,
                                p.test_shapes_path.empty() ? "" : " and " + p.test_shapes_path,
                                p.split_description, thousands((long long)p.train_rows.size()),
                                thousands((long long)p.test_rows.size()),
                                thousands((long long)p.table->configs().size()),
                                p.backend->complete_table() ? "launchable" : "measured");
  for (const std::string& n : p.notes)
    out += "  " + n + "\n";
  return out;
}

} // namespace tv
