#pragma once
/// How the dashboard shows a program: its text, its simplified form (ir/simplify.hpp: same
/// config for every shape) and its line diff from the expert.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string_view>

namespace tv {

/// Limits on what is simplified here: texts and programs beyond them are shown as they are,
/// with a note (the text comes from a run file: untrusted).
struct ProgramViewLimits {
  std::size_t max_text = 256 * 1024;
  std::size_t max_rules = 400;
};

/// {"program": text, "rules": n | null, "simplified": text | null, "simplified_rules",
///  "note": why there is no simplified form (parse error, too large) or "",
///  "diff": [{"kind": " " | "-" | "+", "text"}] from `expert` to `program` (empty when the
///  expert is unknown)}.
nlohmann::json program_view(std::string_view program, std::string_view expert,
                            const ProgramViewLimits& limits = {});

} // namespace tv
