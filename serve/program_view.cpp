#include "serve/program_view.hpp"

#include "ir/line_diff.hpp"
#include "ir/simplify.hpp"
#include "ir/text.hpp"

#include <fmt/format.h>

namespace tv {

nlohmann::json program_view(std::string_view program, std::string_view expert,
                            const ProgramViewLimits& limits) {
  nlohmann::json j{{"program", std::string(program)},
                   {"rules", nullptr},
                   {"simplified", nullptr},
                   {"simplified_rules", nullptr},
                   {"note", ""}};
  if (program.size() > limits.max_text) {
    j["note"] = fmt::format("the program has {} bytes; only up to {} are simplified here",
                            program.size(), limits.max_text);
  } else if (const ParseResult pr = parse_program(program); !pr.ok()) {
    j["note"] = "the program does not parse: " + pr.error->str();
  } else {
    j["rules"] = pr.program->rules.size();
    if (pr.program->rules.size() > limits.max_rules) {
      j["note"] = fmt::format("the program has {} rules; only up to {} are simplified here",
                              pr.program->rules.size(), limits.max_rules);
    } else {
      const Program s = simplify(*pr.program);
      j["simplified"] = print_program(s);
      j["simplified_rules"] = s.rules.size();
    }
  }
  nlohmann::json diff = nlohmann::json::array();
  if (!expert.empty() && expert.size() <= limits.max_text && program.size() <= limits.max_text)
    for (const DiffLine& l : line_diff(expert, program))
      diff.push_back({{"kind", std::string(1, l.kind)}, {"text", l.text}});
  j["diff"] = std::move(diff);
  return j;
}

} // namespace tv
