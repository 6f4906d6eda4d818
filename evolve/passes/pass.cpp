// PassReport's JSON form and what PassContext offers the passes.
#include "evolve/passes/pass.hpp"

#include "evolve/evolution_options.hpp"
#include "evolve/measured_tree.hpp"
#include "ir/error.hpp"
#include "models/json_text.hpp"

#include <algorithm>
#include <fmt/format.h>

namespace tv {

nlohmann::json PassReport::to_json(bool with_seconds) const {
  nlohmann::json j{
      {"name", name},       {"ran", ran},     {"changed", changed}, {"kernel_runs", kernel_runs},
      {"summary", summary}, {"lines", lines}, {"data", data}};
  if (!why.empty()) j["why"] = why;
  if (with_seconds) j["seconds"] = seconds;
  return j;
}

namespace {

template <class T> T report_field(const nlohmann::json& j, const char* key, const char* where) {
  if (!j.is_object() || !j.contains(key))
    throw InputError(fmt::format("{}: field '{}' missing", where, key));
  if (const std::string why = json_type_problem<T>(j.at(key)); !why.empty())
    throw InputError(fmt::format("{}: field '{}' has the wrong type ({})", where, key, why));
  return j.at(key).get<T>();
}

} // namespace

PassReport PassReport::from_json(const nlohmann::json& j, const char* where) {
  PassReport r;
  r.name = report_field<std::string>(j, "name", where);
  r.ran = report_field<bool>(j, "ran", where);
  r.changed = report_field<bool>(j, "changed", where);
  r.kernel_runs = report_field<long long>(j, "kernel_runs", where);
  r.summary = report_field<std::string>(j, "summary", where);
  r.lines = report_field<std::vector<std::string>>(j, "lines", where);
  r.data = report_field<nlohmann::json>(j, "data", where);
  if (!r.data.is_object()) throw InputError(fmt::format("{}: 'data' is not an object", where));
  if (j.contains("why")) r.why = report_field<std::string>(j, "why", where);
  if (j.contains("seconds")) r.seconds = report_field<double>(j, "seconds", where);
  return r;
}

const PassReport* PassContext::report(std::string_view name) const {
  if (!done) return nullptr;
  const auto it =
      std::find_if(done->begin(), done->end(), [&](const PassReport& r) { return r.name == name; });
  return it == done->end() ? nullptr : &*it;
}

Program PassContext::measured_tree(int leaves, int lookahead) const {
  return measured_tree_of(eval, problem, train_shapes, leaves, lookahead,
                          options.model_prior ? &problem.gpu : nullptr);
}

int PassContext::refit_leaves() const {
  return std::min(kMaxTreeLeaves, kRefitLeafFactor * problem.spec.tree_leaves);
}

Evaluation PassContext::time_config(const std::string& pass, const Config& c,
                                    const std::vector<std::size_t>& which, long long limit) {
  std::vector<std::size_t> rows;
  rows.reserve(which.size());
  for (std::size_t i : which)
    rows.push_back(problem.train_rows[i]);
  const Evaluation ev = eval.time_config(c, rows, limit);
  ledger.charge(pass, ev.kernel_runs);
  return ev;
}

} // namespace tv
