// Printer and hand-written parser for the Python-looking program text (see text.hpp).
//
// Map: the printer (print_program, print_config, print_condition) is this file; the parser
// (parse_program, parse_config, load_program_file, and the accepted language) is
// text_parser.cpp; its lexer (tokens, error positions) is text_lexer.hpp/.cpp.
#include "ir/text.hpp"

#include <charconv>
#include <string>

namespace tv {

namespace {

void append_int(std::string& out, std::int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, r.ptr);
}

void append_field(std::string& out, std::string_view name, int v, bool first = false) {
  if (!first) out += ", ";
  out += name;
  out += '=';
  append_int(out, v);
}

void append_config(std::string& out, const Config& c) {
  if (c.vendor) {
    out += "\"vendor\"";
    return;
  }
  out += "Config(";
  append_field(out, "BM", c.BM, true);
  append_field(out, "BN", c.BN);
  append_field(out, "BK", c.BK);
  append_field(out, "warps", c.warps);
  append_field(out, "stages", c.stages);
  append_field(out, "group", c.group);
  if (c.waves_per_eu) append_field(out, "waves_per_eu", *c.waves_per_eu);
  if (c.matrix_instr_nonkdim) append_field(out, "matrix_instr_nonkdim", *c.matrix_instr_nonkdim);
  if (c.kpack) append_field(out, "kpack", *c.kpack);
  out += ')';
}

void append_condition(std::string& out, const Condition& c) {
  if (c.terms.empty()) {
    out += "True";
    return;
  }
  bool first = true;
  for (const auto& t : c.terms) {
    if (!first) out += " and ";
    first = false;
    out += feature_text(t);
    out += ' ';
    out += cmp_op_text(t.op);
    out += ' ';
    append_int(out, t.value);
  }
}

} // namespace

std::string print_config(const Config& c) {
  std::string out;
  append_config(out, c);
  return out;
}

std::string rule_reference(const Program& p, std::size_t i) {
  return i < p.rules.size() ? "`" + print_condition(p.rules[i].condition) + "`"
                            : std::string("the default");
}

std::string print_condition(const Condition& c) {
  std::string out;
  append_condition(out, c);
  return out;
}

std::string print_program(const Program& p) {
  std::string out;
  out.reserve(64 + 120 * (p.rules.size() + 1));
  out += "def choose(M, N, K):\n";
  for (const auto& r : p.rules) {
    out += "    if ";
    append_condition(out, r.condition);
    out += ":\n        return ";
    append_config(out, r.config);
    out += '\n';
  }
  out += "    return ";
  append_config(out, p.default_config);
  out += '\n';
  return out;
}

} // namespace tv
