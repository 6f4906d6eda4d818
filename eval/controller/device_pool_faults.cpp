// The device pool's fault handling (see device_pool.hpp): a fault kills and restarts a worker
// with a back-off, its unanswered requests are retried alone, a pair that faults alone often
// enough is poison, and a device that keeps failing is retired. Dispatch, replies and the
// poll() loop are device_pool.cpp.
#include "eval/controller/device_pool.hpp"

#include "eval/controller/device_pool_slot.hpp"
#include "eval/controller/worker_process.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace tv {

using device_pool_detail::kCanary;
using device_pool_detail::Seconds;

namespace {

/// The kind of fault a counter counts, as events and DeviceInfo::fault_kinds name it.
const char* fault_kind(long long PoolCounters::*counter) {
  if (counter == &PoolCounters::timeouts) return "timeout";
  if (counter == &PoolCounters::garbage_lines) return "garbage_line";
  if (counter == &PoolCounters::unknown_ids) return "unknown_id";
  if (counter == &PoolCounters::bad_replies) return "bad_reply";
  return "crash";
}

} // namespace

void DevicePool::retire(std::size_t i, const std::string& why) {
  Slot& s = *slots_[i];
  if (s.proc) s.proc->kill(0.2);
  s.state = Slot::State::retired;
  s.isolated = false;
  info_[i].healthy = false;
  info_[i].retired = true;
  info_[i].error = why;
  ++counters_.retired;
  events_.add(device_retired_event(info_[i].id, why, info_[i].faults, info_[i].restarts,
                                   info_[i].failed_starts));
}

std::tuple<Config, DType, bool> DevicePool::poison_key(const Config& config, DType dtype,
                                                       bool vendor) {
  return std::make_tuple(vendor ? Config{} : config, dtype, vendor);
}

void DevicePool::remember_poison(const Shape& shape, const Config& config, bool vendor) {
  poison_shapes_[poison_key(config, shape.dtype, vendor)].insert(shape_key(shape));
}

void DevicePool::strike(std::size_t i, std::size_t j, const std::string& what,
                        const std::string& stderr_tail) {
  // The pair was alone on the worker: the fault is its own. Poison after poison_strikes, on
  // two different devices unless only one device that could strike is left; after one, when
  // its config is a poison pair on poison_config_after other shapes already.
  const MeasureJob& job = (*jobs_)[j];
  const auto config_key = poison_key(job.config, job.shape.dtype, job.vendor);
  const ShapeKey shape = shape_key(job.shape);
  std::size_t poison_elsewhere = 0;
  if (const auto it = poison_shapes_.find(config_key); it != poison_shapes_.end())
    poison_elsewhere = it->second.size() - it->second.count(shape);
  const bool config_known = options_.poison_config_after > 0 &&
                            poison_elsewhere >= std::size_t(options_.poison_config_after);
  // A device that never delivered a result is broken rather than the pair: its fault is no
  // strike, now or later (it retires after max_faults_in_row and the pair waits for another
  // device). The pair still avoids it while another device is alive (strikes_ steers that).
  const bool proven = info_[i].done > 0;
  strikes_[j].push_back(int(i));
  std::vector<int>& st = counted_strikes_[j];
  if (proven) st.push_back(int(i));
  std::vector<int> devices = st;
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  // Witnesses: the devices alive that delivered a result (only they could strike).
  std::size_t witnesses = 0;
  for (std::size_t d = 0; d < slots_.size(); ++d)
    if (slots_[d]->state != Slot::State::retired && info_[d].done > 0) ++witnesses;
  const bool by_strikes =
      int(st.size()) >= options_.poison_strikes && (devices.size() >= 2 || witnesses <= 1);
  if (!proven || !(by_strikes || config_known)) {
    suspects_.push_back(j);
    ++counters_.requeued;
    return;
  }
  std::string on;
  std::vector<std::string> ids;
  for (int d : devices) {
    on += (on.empty() ? "" : ", ") + info_[std::size_t(d)].id;
    ids.push_back(info_[std::size_t(d)].id);
  }
  PoolResult& r = (*results_)[j];
  r.reply = MeasureReply{};
  r.reply.status = MeasureStatus::crash;
  const std::string times = st.size() == 1 ? "once" : fmt::format("{} times", st.size());
  // When the strikes alone would not have made it poison, the detail says what did.
  const std::string known =
      !by_strikes ? fmt::format(", and its config is a poison pair on {} other shape{}",
                                poison_elsewhere, poison_elsewhere == 1 ? "" : "s")
                  : "";
  r.reply.detail = fmt::format("poison pair: it faulted alone on its worker {} (device{} {}){}; "
                               "the last: {}",
                               times, devices.size() == 1 ? "" : "s", on, known, what);
  poison_shapes_[config_key].insert(shape);
  r.controller_error = false;
  r.poison = true;
  r.device = int(i);
  ++counters_.poison;
  ++info_[i].poison;
  events_.add(
      poison_pair_event(info_[i].id, ids, job, int(st.size()), r.reply.detail, stderr_tail));
  finish(j);
}

void DevicePool::fault(std::size_t i, long long PoolCounters::*counter, const std::string& why) {
  Slot& s = *slots_[i];
  const auto now = Clock::now();
  counters_.*counter += 1;
  ++info_[i].faults;
  ++info_[i].fault_kinds[fault_kind(counter)];
  const bool was_starting = s.state == Slot::State::starting;
  if (was_starting) {
    ++counters_.failed_starts;
    ++info_[i].failed_starts;
    ++s.failed_starts;
  }
  std::string what = why, tail;
  if (s.proc) {
    s.proc->kill(0.2);
    what += fmt::format(" (worker {})", s.proc->exit_description());
    tail = last_lines(s.proc->stderr_tail(), 3);
    if (!tail.empty()) what += "; its stderr: " + tail;
  }
  info_[i].last_fault = what;
  FaultEvent ev;
  ev.device = info_[i].id;
  ev.kind = fault_kind(counter);
  ev.starting = was_starting;
  ev.error = what;
  for (const auto& [id, j] : s.outstanding) {
    ev.requests.push_back(id);
    nlohmann::json p = j == kCanary ? event_pair(*canary_) : event_pair((*jobs_)[j]);
    if (j == kCanary) p["canary"] = true;
    ev.pairs.push_back(std::move(p));
  }
  if (!s.outstanding.empty())
    info_[i].busy_s += std::chrono::duration<double>(now - s.busy_since).count();
  // Every unanswered request is retried, alone on a worker; one that was alone here when the
  // worker faulted takes the blame (a strike). Nothing is given up on while a device is left.
  const bool alone =
      s.isolated && s.outstanding.size() == 1 && s.outstanding.front().second != kCanary;
  if (alone) s.owes_proof = true;
  for (auto it = s.outstanding.rbegin(); it != s.outstanding.rend(); ++it) {
    const std::size_t j = it->second;
    if (j == kCanary) continue; // the device failed its proof: nothing to retry
    ++attempts_[j];
    if (alone) {
      strike(i, j, what, tail);
    } else if (!suspect_[j]) {
      suspect_[j] = 1;
      suspects_.push_back(j);
      ++counters_.requeued;
    } else {
      suspects_.push_back(j);
      ++counters_.requeued;
    }
  }
  s.outstanding.clear();
  s.isolated = false;
  ++s.consecutive_faults;
  ev.faults_in_row = s.consecutive_faults;
  ev.restarts = info_[i].restarts;
  const bool start_limit = was_starting && s.failed_starts >= options_.max_failed_starts;
  if (start_limit || s.consecutive_faults >= options_.max_faults_in_row) {
    ev.action = "retire";
    events_.add(worker_fault_event(ev));
    retire(i, start_limit ? fmt::format("failed to start {} times in a row; the last: {}",
                                        s.failed_starts, what)
                          : fmt::format("faulted {} times in a row without a result; the last: {}",
                                        s.consecutive_faults, what));
    return;
  }
  info_[i].healthy = false;
  info_[i].error = what; // kept for the report while it restarts
  ++counters_.restarts;
  ++info_[i].restarts;
  // Back off: the first fault in a row restarts at once, then backoff_s doubling.
  double delay = 0;
  if (s.consecutive_faults >= 2)
    delay = std::min(options_.max_backoff_s,
                     options_.backoff_s * double(1LL << std::min(s.consecutive_faults - 2, 30)));
  ev.restarts = info_[i].restarts;
  ev.action = delay > 0 ? "back-off" : "restart";
  ev.backoff_s = std::max(0.0, delay);
  events_.add(worker_fault_event(ev));
  if (delay <= 0) {
    start(i);
    return;
  }
  s.proc.reset();
  s.state = Slot::State::waiting;
  ++s.generation;
  s.restart_at = now + std::chrono::duration_cast<Clock::duration>(Seconds(delay));
}

} // namespace tv
