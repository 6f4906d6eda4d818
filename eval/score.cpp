#include "eval/score.hpp"

#include "ir/error.hpp"

#include <cmath>
#include <fmt/format.h>
#include <limits>

namespace tv {

Scorer::Scorer(const TimeTable& table, std::vector<std::size_t> rows, const Program& expert)
    : table_(&table), rows_(std::move(rows)) {
  double wsum = 0;
  for (std::size_t r : rows_)
    wsum += table.shapes()[r].weight;
  if (rows_.empty() || !(wsum > 0) || !std::isfinite(wsum))
    throw InputError("a shape set to score on needs shapes whose weights sum to a positive, "
                     "finite number");
  expert_ = program_times(expert);
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const Shape& s = table.shapes()[rows_[i]];
    if (!std::isfinite(expert_[i]))
      throw InputError(fmt::format("the expert program has no time for {}: its config {} is "
                                   "not launchable or not in the table",
                                   s.label(), expert.choose(s).brief()));
    oracle_.push_back(table.oracle_time(rows_[i]));
    weights_.push_back(s.weight / wsum);
    log_expert_ += weights_.back() * std::log(expert_[i]);
    log_oracle_ += weights_.back() * std::log(oracle_.back());
    plain_expert_ += std::log(expert_[i]);
    plain_oracle_ += std::log(oracle_.back());
    expert_total_ += weights_.back() * expert_[i];
    weighted_ = weighted_ || table.shapes()[rows_[i]].weight != table.shapes()[rows_[0]].weight;
  }
  plain_expert_ /= double(rows_.size());
  plain_oracle_ /= double(rows_.size());
}

std::vector<double> Scorer::program_times(const Program& p) const {
  // Resolve each branch's column once, then walk the rows.
  std::vector<int> column(p.rules.size() + 1);
  for (std::size_t i = 0; i < p.rules.size(); ++i)
    column[i] = table_->config_index(p.rules[i].config);
  column.back() = table_->config_index(p.default_config);
  std::vector<double> out(rows_.size());
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const int rule = p.deciding_rule(table_->shapes()[rows_[i]]);
    const int c = column[rule < 0 ? p.rules.size() : std::size_t(rule)];
    out[i] = c < 0 ? std::numeric_limits<double>::infinity() : table_->time(rows_[i], c);
  }
  return out;
}

SetScore Scorer::score_times(const std::vector<double>& times) const {
  SetScore r;
  r.shapes = rows_.size();
  r.weighted = weighted_;
  double log_t = 0, plain_t = 0, total = 0;
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    if (!std::isfinite(times[i]) || !(times[i] > 0)) {
      r.problem = fmt::format("{} has no time", table_->shapes()[rows_[i]].label());
      return r;
    }
    const double l = std::log(times[i]);
    log_t += weights_[i] * l;
    plain_t += l;
    total += weights_[i] * times[i];
  }
  plain_t /= double(rows_.size());
  r.valid = true;
  r.speedup_vs_expert = std::exp(log_expert_ - log_t);
  r.fraction_of_oracle = std::exp(log_oracle_ - log_t);
  r.plain_speedup_vs_expert = std::exp(plain_expert_ - plain_t);
  r.plain_fraction_of_oracle = std::exp(plain_oracle_ - plain_t);
  r.uplift = expert_total_ / total;
  return r;
}

SetScore Scorer::score(const Program& p) const {
  SetScore r = score_times(program_times(p));
  if (!r.valid)
    for (std::size_t i = 0; i < rows_.size(); ++i) {
      const Shape& s = table_->shapes()[rows_[i]];
      if (table_->config_index(p.choose(s)) < 0) {
        r.problem = fmt::format("{}: {} is not in the table", s.label(), p.choose(s).brief());
        break;
      }
    }
  return r;
}

} // namespace tv
