#pragma once
/// The fastest configs measured on one shape, fastest first: an immutable list that copies
/// share (a run's mutation requests show every training shape's list; copying the lists for
/// each request cost more than the rest of building it).
#include "ir/config.hpp"

#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

namespace tv {

/// A shared, read-only list of (seconds, config), fastest first; empty by default.
class MeasuredConfigs {
public:
  using Entry = std::pair<double, Config>;

  MeasuredConfigs() = default;
  /// Takes the entries (implicit, so a vector can be assigned where a list is expected).
  MeasuredConfigs(std::vector<Entry> entries) // NOLINT(google-explicit-constructor)
      : list_(entries.empty() ? nullptr
                              : std::make_shared<const std::vector<Entry>>(std::move(entries))) {}

  const Entry* begin() const { return list_ ? list_->data() : nullptr; }
  const Entry* end() const { return list_ ? list_->data() + list_->size() : nullptr; }
  std::size_t size() const { return list_ ? list_->size() : 0; }
  bool empty() const { return size() == 0; }
  const Entry& operator[](std::size_t i) const { return (*list_)[i]; }
  /// True when both hold the very same list (copies of one list, not two equal lists that
  /// were built apart) or both are empty.
  bool same_list(const MeasuredConfigs& o) const { return list_ == o.list_; }
  /// Appends an entry; the list is copied first when another holder shares it.
  void emplace_back(double seconds, const Config& config) {
    auto next = list_ ? std::make_shared<std::vector<Entry>>(*list_)
                      : std::make_shared<std::vector<Entry>>();
    next->emplace_back(seconds, config);
    list_ = std::move(next);
  }

private:
  std::shared_ptr<const std::vector<Entry>> list_;
};

} // namespace tv
