#include "eval/report_format.hpp"

#include "eval/text_table.hpp"
#include "ir/text.hpp"

#include <fmt/format.h>

namespace tv {

nlohmann::json score_json(const SetScore& s) {
  nlohmann::json j{{"valid", s.valid}, {"shapes", s.shapes}};
  if (s.valid) {
    j["speedup_vs_expert"] = s.speedup_vs_expert;
    j["fraction_of_oracle"] = s.fraction_of_oracle;
  } else {
    j["speedup_vs_expert"] = nullptr;
    j["fraction_of_oracle"] = nullptr;
    j["problem"] = s.problem;
  }
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
          {"configs", p.table->configs().size()}};
}

std::string fmt_speedup(const SetScore& s) {
  return s.valid ? fmt::format("{:.3f}x", s.speedup_vs_expert) : "n/a";
}

std::string fmt_fraction(const SetScore& s) {
  return s.valid ? fmt::format("{:.1f}%", 100.0 * s.fraction_of_oracle) : "n/a";
}

std::string methods_table(const std::vector<MethodResult>& methods) {
  TextTable t({"method", "train vs expert", "train of oracle", "test vs expert", "test of oracle",
               "kernel runs to tune"});
  for (const auto& m : methods)
    t.add({
        m.label,
        fmt_speedup(m.train),
        fmt_fraction(m.train),
        fmt_speedup(m.test),
        fmt_fraction(m.test),
        m.kernel_runs ? fmt::format("{}", m.kernel_runs) : "0",
    });
  return t.str();
}

std::string problem_header(const Problem& p) {
  return fmt::format("GPU {} ({}), backend {}; {} shapes from {}{}\n"
                     "split: {} -> {} train, {} test; {} {} configs\n",
                     p.gpu.name, p.gpu.full_name, p.backend->name(), p.table->shapes().size(),
                     p.shapes_path, p.test_shapes_path.empty() ? "" : " and " + p.test_shapes_path,
                     p.split_description, p.train_rows.size(), p.test_rows.size(),
                     p.table->configs().size(),
                     p.backend->complete_table() ? "launchable" : "measured");
}

} // namespace tv
