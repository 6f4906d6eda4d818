#include "serve/device_view.hpp"

#include <algorithm>

namespace tv {

namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxText = 1000; ///< bytes of one text field kept
/// The fault kinds the pool names; any other counts as "other".
constexpr const char* kKinds[] = {"timeout", "crash", "garbage_line", "unknown_id", "bad_reply"};

std::string cut(std::string s, std::size_t max) {
  if (s.size() > max) s.resize(max);
  return s;
}

/// A string field cut to `max` bytes, or "" when missing or not a string.
std::string text_field(const json& j, const char* key, std::size_t max = kMaxText) {
  const auto it = j.find(key);
  return it == j.end() || !it->is_string() ? std::string() : cut(it->get<std::string>(), max);
}

/// A non-negative integer field (saturated), or 0.
long long count_or_zero(const json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return 0;
  if (it->is_number_unsigned())
    return (long long)std::min<std::uint64_t>(it->get<std::uint64_t>(), INT64_MAX);
  return std::max<long long>(0, it->get<long long>());
}

std::string known_kind(const std::string& k) {
  for (const char* n : kKinds)
    if (k == n) return k;
  return "other";
}

} // namespace

void DeviceView::reset() {
  *this = DeviceView();
}

DeviceView::Device* DeviceView::device(const json& e) {
  const auto it = e.find("device");
  if (it == e.end() || !it->is_string()) {
    ++skipped_;
    return nullptr;
  }
  const std::string id = text_field(e, "device", 64);
  for (Device& d : devices_)
    if (d.id == id) return &d;
  if (devices_.size() >= kMaxViewDevices) {
    ++skipped_;
    return nullptr;
  }
  devices_.push_back(Device{});
  devices_.back().id = id;
  return &devices_.back();
}

bool DeviceView::apply(const std::string& kind, const json& e) {
  if (kind == "worker_fault") {
    any_ = true;
    ++faults_;
    if (Device* d = device(e)) {
      ++d->faults;
      ++d->kinds[known_kind(text_field(e, "kind", 32))];
      d->restarts = std::max(d->restarts, count_or_zero(e, "restarts"));
      d->error = text_field(e, "error");
    }
  } else if (kind == "pair_retry") {
    any_ = true;
    ++retries_;
  } else if (kind == "poison_pair") {
    any_ = true;
    ++poison_count_;
    if (Device* d = device(e)) ++d->poison;
    if (poison_.size() < kMaxViewPoison) {
      json devices = json::array();
      const auto it = e.find("devices");
      if (it != e.end() && it->is_array())
        for (const json& x : *it)
          if (x.is_string() && devices.size() < 16)
            devices.push_back(cut(x.get<std::string>(), 64));
      poison_.push_back({{"shape", text_field(e, "shape", 200)},
                         {"config", text_field(e, "config", 200)},
                         {"device", text_field(e, "device", 64)},
                         {"devices", devices},
                         {"strikes", count_or_zero(e, "strikes")},
                         {"error", text_field(e, "error")},
                         {"stderr", text_field(e, "stderr")}});
    }
  } else if (kind == "device_retired") {
    any_ = true;
    if (Device* d = device(e)) {
      d->retired = true;
      d->error = text_field(e, "reason");
    }
  } else if (kind == "devices") {
    // The run's last word: what each device went through, as its summary says.
    any_ = true;
    final_ = true;
    const auto list = e.find("devices");
    if (list != e.end() && list->is_array()) {
      std::vector<Device> fresh;
      for (const json& x : *list) {
        if (!x.is_object() || !x.contains("id") || !x["id"].is_string()) {
          ++skipped_;
          continue;
        }
        if (fresh.size() >= kMaxViewDevices) {
          ++skipped_;
          continue;
        }
        Device d;
        d.id = text_field(x, "id", 64);
        d.retired = x.value("retired", false) == true;
        d.restarts = count_or_zero(x, "restarts");
        d.faults = count_or_zero(x, "faults");
        d.poison = count_or_zero(x, "poison");
        d.measured = count_or_zero(x, "measured");
        const auto k = x.find("fault_kinds");
        if (k != x.end() && k->is_object())
          for (const auto& [name, n] : k->items())
            if (n.is_number_integer()) d.kinds[known_kind(name)] += count_or_zero(*k, name.c_str());
        d.error = text_field(x, d.retired ? "error" : "last_fault");
        fresh.push_back(std::move(d));
      }
      devices_ = std::move(fresh);
    }
    const auto pool = e.find("pool");
    pool_ = json::object();
    if (pool != e.end() && pool->is_object())
      for (const auto& [name, n] : pool->items())
        if (n.is_number_integer() && pool_.size() < 64)
          pool_[name.substr(0, 32)] = count_or_zero(*pool, name.c_str());
    // Runs written before the poison_pair events: the summary's lines.
    const auto poison = e.find("poison");
    if (poison_count_ == 0 && poison != e.end() && poison->is_array()) {
      for (const json& p : *poison) {
        if (!p.is_string()) continue;
        ++poison_count_;
        if (poison_.size() < kMaxViewPoison)
          poison_.push_back({{"text", cut(p.get<std::string>(), kMaxText)}});
      }
    }
  } else {
    return false;
  }
  return true;
}

json DeviceView::to_json() const {
  if (!any_) return json();
  json devices = json::array();
  for (const Device& d : devices_)
    devices.push_back({{"id", d.id},
                       {"state", d.retired ? "retired" : "alive"},
                       {"restarts", d.restarts},
                       {"faults", d.faults},
                       {"fault_kinds", d.kinds},
                       {"poison", d.poison},
                       {"error", d.error},
                       {"measured", d.measured >= 0 ? json(d.measured) : json()}});
  return {{"devices", devices},  {"poison", poison_},  {"poison_count", poison_count_},
          {"retries", retries_}, {"faults", faults_},  {"pool", final_ ? pool_ : json()},
          {"final", final_},     {"skipped", skipped_}};
}

} // namespace tv
