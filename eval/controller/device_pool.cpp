#include "eval/controller/device_pool.hpp"

#include "eval/controller/worker_process.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <poll.h>
#include <utility>

namespace tv {

namespace {

using Seconds = std::chrono::duration<double>;

/// The job index of the canary: a pair that measured well before, sent alone to a worker
/// after a pair faulted alone on it, so that a device that works again proves it (and one
/// that faults on everything is retired, not taken for poison pairs).
constexpr std::size_t kCanary = std::size_t(-1);

/// The kind of fault a counter counts, as events and DeviceInfo::fault_kinds name it.
const char* fault_kind(long long PoolCounters::*counter) {
  if (counter == &PoolCounters::timeouts) return "timeout";
  if (counter == &PoolCounters::garbage_lines) return "garbage_line";
  if (counter == &PoolCounters::unknown_ids) return "unknown_id";
  if (counter == &PoolCounters::bad_replies) return "bad_reply";
  return "crash";
}

} // namespace

struct DevicePool::Slot {
  /// waiting: killed after a fault, to be started again at `restart_at` (the back-off).
  enum class State { starting, ready, waiting, retired };
  std::unique_ptr<WorkerProcess> proc;
  State state = State::starting;
  Clock::time_point deadline, restart_at;
  /// (request id, job index), in the order they were sent.
  std::vector<std::pair<std::uint64_t, std::size_t>> outstanding;
  bool isolated = false;               ///< its one outstanding request is a suspect, sent alone
  bool owes_proof = false;             ///< a pair faulted alone here: it measures the canary first
  std::vector<std::uint64_t> answered; ///< the last ids this process answered
  int consecutive_faults = 0;          ///< faults since its last good reply
  int failed_starts = 0;               ///< starts in a row that did not end in a good hello
  int generation = 0; ///< incremented at every start, to drop events of a dead process
  Clock::time_point busy_since;
};

DevicePool::DevicePool(PoolOptions options) : options_(std::move(options)) {
  if (options_.command.empty()) throw InputError("the worker command is empty");
  options_.inflight = std::max(1, options_.inflight);
  options_.max_failed_starts = std::max(1, options_.max_failed_starts);
  options_.max_faults_in_row = std::max(1, options_.max_faults_in_row);
  options_.poison_strikes = std::max(1, options_.poison_strikes);
  options_.poison_config_after = std::max(0, options_.poison_config_after);
  std::signal(SIGPIPE, SIG_IGN);
  const auto add = [&](const std::string& id) {
    slots_.push_back(std::make_unique<Slot>());
    DeviceInfo d;
    d.id = id;
    d.command = substitute_device(options_.command, id);
    info_.push_back(d);
    start(slots_.size() - 1);
  };
  // Until every device is ready or retired (a failed start is retried after its back-off).
  const auto wait_for_hellos = [&] {
    const auto settling = [&] {
      for (const auto& s : slots_)
        if (s->state == Slot::State::starting || s->state == Slot::State::waiting) return true;
      return false;
    };
    while (settling())
      pump(std::chrono::milliseconds(100));
  };
  if (options_.devices.empty()) {
    add("0");
    wait_for_hellos();
    if (slots_[0]->state == Slot::State::ready)
      for (int d = 1; d < info_[0].hello.devices; ++d)
        add(std::to_string(d));
  } else {
    for (const auto& id : options_.devices)
      add(id);
  }
  wait_for_hellos();
}

DevicePool::~DevicePool() {
  shutdown();
}

bool DevicePool::any_healthy() const {
  for (const auto& s : slots_)
    if (s->state == Slot::State::ready) return true;
  return false;
}

bool DevicePool::any_alive() const {
  for (const auto& s : slots_)
    if (s->state != Slot::State::retired) return true;
  return false;
}

bool DevicePool::starting() const {
  for (const auto& s : slots_)
    if (s->state == Slot::State::starting) return true;
  return false;
}

void DevicePool::start(std::size_t i) {
  Slot& s = *slots_[i];
  s.proc.reset();
  s.proc = std::make_unique<WorkerProcess>(info_[i].command, kMaxProtocolLine);
  s.answered.clear();
  s.state = Slot::State::starting;
  ++s.generation;
  info_[i].healthy = false;
  s.deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                  std::chrono::duration<double>(options_.timeout_s));
  if (!s.proc->send(format_hello_request(0)))
    fault(i, &PoolCounters::crashes, "its stdin closed before hello");
}

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
  // two different devices unless only one device is left; after one, when its config is a
  // poison pair on poison_config_after other shapes already.
  const MeasureJob& job = (*jobs_)[j];
  const auto config_key = poison_key(job.config, job.shape.dtype, job.vendor);
  const ShapeKey shape = shape_key(job.shape);
  std::size_t poison_elsewhere = 0;
  if (const auto it = poison_shapes_.find(config_key); it != poison_shapes_.end())
    poison_elsewhere = it->second.size() - it->second.count(shape);
  const bool config_known = options_.poison_config_after > 0 &&
                            poison_elsewhere >= std::size_t(options_.poison_config_after);
  std::vector<int>& st = strikes_[j];
  st.push_back(int(i));
  std::vector<int> devices = st;
  std::sort(devices.begin(), devices.end());
  devices.erase(std::unique(devices.begin(), devices.end()), devices.end());
  std::size_t alive = 0;
  for (const auto& s : slots_)
    if (s->state != Slot::State::retired) ++alive;
  // A device that never delivered a result is broken rather than the pair: its strikes make
  // no poison (it retires after max_faults_in_row and the pair waits for another device).
  const bool proven = info_[i].done > 0;
  const bool by_strikes =
      int(st.size()) >= options_.poison_strikes && (devices.size() >= 2 || alive <= 1);
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
  ++done_;
  ++counters_.poison;
  ++info_[i].poison;
  events_.add(
      poison_pair_event(info_[i].id, ids, job, int(st.size()), r.reply.detail, stderr_tail));
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

void DevicePool::handle_line(std::size_t i, const std::string& line) {
  Slot& s = *slots_[i];
  const ReplyLine r = read_reply_line(line);
  if (!r.ok) {
    fault(
        i, &PoolCounters::garbage_lines,
        fmt::format("printed a line that is not a reply ({}): '{}'", r.error, line_excerpt(line)));
    return;
  }
  if (s.state == Slot::State::starting) {
    if (r.id != 0) {
      fault(i, &PoolCounters::unknown_ids, fmt::format("answered id {} before hello", r.id));
      return;
    }
    HelloReply h;
    if (auto e = parse_hello_reply(r.body, h)) {
      fault(i, &PoolCounters::bad_replies, "sent a bad hello reply: " + *e);
      return;
    }
    if (!h.ok || h.protocol != kWorkerProtocol) {
      // The worker says it cannot work here: starting it again would not help.
      ++counters_.failed_starts;
      ++info_[i].failed_starts;
      retire(i, !h.ok ? "the worker cannot run: " + h.detail
                      : fmt::format("the worker speaks protocol {}; this tilevolve speaks {}",
                                    h.protocol, kWorkerProtocol));
      return;
    }
    s.failed_starts = 0;
    s.state = Slot::State::ready;
    info_[i].hello = h;
    info_[i].healthy = true;
    info_[i].error.clear();
    return;
  }
  auto it = std::find_if(s.outstanding.begin(), s.outstanding.end(),
                         [&](const auto& p) { return p.first == r.id; });
  if (it == s.outstanding.end() &&
      std::find(s.answered.begin(), s.answered.end(), r.id) != s.answered.end()) {
    // A second reply to an id this process already answered: its first answer stands, and
    // killing a worker that measures would cost a restart for nothing.
    ++counters_.duplicates;
    return;
  }
  if (it == s.outstanding.end()) {
    fault(i, &PoolCounters::unknown_ids,
          fmt::format("replied to id {}, which it was not sent", r.id));
    return;
  }
  MeasureReply m;
  if (auto e = parse_measure_reply(r.body, m)) {
    fault(i, &PoolCounters::bad_replies, fmt::format("sent a bad reply for id {}: {}", r.id, *e));
    return;
  }
  const std::size_t j = it->second;
  s.answered.push_back(it->first);
  if (s.answered.size() > 8) s.answered.erase(s.answered.begin());
  s.outstanding.erase(it);
  if (s.outstanding.empty()) s.isolated = false;
  if (j == kCanary) {
    // The device measures again: the pair that faulted alone here takes the blame.
    s.owes_proof = false;
    s.consecutive_faults = 0;
    const auto now = Clock::now();
    s.deadline = now + std::chrono::duration_cast<Clock::duration>(Seconds(options_.timeout_s));
    if (s.outstanding.empty())
      info_[i].busy_s += std::chrono::duration<double>(now - s.busy_since).count();
    return;
  }
  if (m.status == MeasureStatus::ok && !(*jobs_)[j].vendor) canary_ = (*jobs_)[j];
  PoolResult& res = (*results_)[j];
  res.reply = std::move(m);
  res.controller_error = false;
  res.poison = false;
  res.device = int(i);
  ++done_;
  ++counters_.measured;
  ++info_[i].done;
  ++run_done_[i];
  s.consecutive_faults = 0;
  const auto now = Clock::now();
  s.deadline = now + std::chrono::duration_cast<Clock::duration>(
                         std::chrono::duration<double>(options_.timeout_s));
  if (s.outstanding.empty()) {
    info_[i].busy_s += std::chrono::duration<double>(now - s.busy_since).count();
  }
}

bool DevicePool::send_job(std::size_t i, std::size_t j) {
  Slot& s = *slots_[i];
  const std::uint64_t id = next_id_++;
  const auto now = Clock::now();
  if (s.outstanding.empty()) {
    s.busy_since = now;
    s.deadline = now + std::chrono::duration_cast<Clock::duration>(Seconds(options_.timeout_s));
  }
  s.outstanding.emplace_back(id, j);
  ++counters_.sent;
  const MeasureJob& job = j == kCanary ? *canary_ : (*jobs_)[j];
  if (!s.proc->send(format_measure_request(id, job))) {
    fault(i, &PoolCounters::crashes, "exited while measuring (its stdin is closed)");
    return false;
  }
  return true;
}

void DevicePool::dispatch() {
  if (!jobs_) return;
  // A worker where a pair faulted alone measures the canary first, alone.
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = *slots_[i];
    if (!s.owes_proof || s.state != Slot::State::ready || !s.outstanding.empty()) continue;
    if (!canary_) {
      s.owes_proof = false; // nothing measured well yet: nothing to prove with
      continue;
    }
    s.isolated = true;
    ++counters_.canaries;
    send_job(i, kCanary);
  }
  // Suspects first, each alone on an idle worker, preferring a device where it has not
  // faulted alone (it waits for one while such a device is not retired).
  for (std::size_t k = 0; k < suspects_.size();) {
    const std::size_t j = suspects_[k];
    const auto struck = [&](std::size_t i) {
      return std::find(strikes_[j].begin(), strikes_[j].end(), int(i)) != strikes_[j].end();
    };
    bool other_alive = false;
    for (std::size_t i = 0; i < slots_.size(); ++i)
      if (slots_[i]->state != Slot::State::retired && !struck(i)) other_alive = true;
    std::size_t chosen = slots_.size();
    for (std::size_t i = 0; i < slots_.size() && chosen == slots_.size(); ++i) {
      const Slot& s = *slots_[i];
      if (s.state == Slot::State::ready && s.outstanding.empty() && !s.owes_proof &&
          !(other_alive && struck(i)))
        chosen = i;
    }
    if (chosen == slots_.size()) {
      ++k;
      continue;
    }
    suspects_.erase(suspects_.begin() + std::ptrdiff_t(k));
    Slot& s = *slots_[chosen];
    s.isolated = true;
    ++counters_.isolated;
    events_.add(
        pair_retry_event(info_[chosen].id, (*jobs_)[j], attempts_[j], int(strikes_[j].size())));
    send_job(chosen, j);
  }
  // A ready worker that a waiting suspect could use takes no new work: it drains.
  const auto wanted_by_suspect = [&](std::size_t i) {
    for (std::size_t j : suspects_) {
      const auto& st = strikes_[j];
      if (std::find(st.begin(), st.end(), int(i)) == st.end()) return true;
      bool other_alive = false;
      for (std::size_t d = 0; d < slots_.size(); ++d)
        if (slots_[d]->state != Slot::State::retired &&
            std::find(st.begin(), st.end(), int(d)) == st.end())
          other_alive = true;
      if (!other_alive) return true;
    }
    return false;
  };
  bool sent = true;
  while (sent && !pending_.empty()) {
    sent = false;
    for (std::size_t i = 0; i < slots_.size() && !pending_.empty(); ++i) {
      Slot& s = *slots_[i];
      if (s.state != Slot::State::ready || s.isolated ||
          int(s.outstanding.size()) >= options_.inflight || wanted_by_suspect(i))
        continue;
      const std::size_t j = pending_.back();
      pending_.pop_back();
      send_job(i, j);
      sent = true;
    }
  }
}

void DevicePool::pump(Clock::duration max_wait) {
  struct Watch {
    std::size_t slot;
    int generation;
    int kind; // 0 stdout, 1 stderr, 2 stdin
  };
  std::vector<pollfd> fds;
  std::vector<Watch> watches;
  auto now = Clock::now();
  Clock::duration wait = max_wait;
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = *slots_[i];
    if (s.state == Slot::State::waiting)
      wait = std::min(wait, std::max(Clock::duration::zero(), s.restart_at - now));
    if (s.state == Slot::State::retired || s.state == Slot::State::waiting || !s.proc) continue;
    const auto watch = [&](int fd, short events, int kind) {
      if (fd < 0) return;
      fds.push_back({fd, events, 0});
      watches.push_back({i, s.generation, kind});
    };
    watch(s.proc->stdout_fd(), POLLIN, 0);
    watch(s.proc->stderr_fd(), POLLIN, 1);
    if (s.proc->wants_write()) watch(s.proc->stdin_fd(), POLLOUT, 2);
    if (s.state == Slot::State::starting || !s.outstanding.empty())
      wait = std::min(wait, std::max(Clock::duration::zero(), s.deadline - now));
  }
  const int ms = int(std::chrono::ceil<std::chrono::milliseconds>(wait).count());
  const int n = ::poll(fds.data(), nfds_t(fds.size()), std::max(0, ms));
  if (n > 0) {
    for (std::size_t k = 0; k < fds.size(); ++k) {
      if (!fds[k].revents) continue;
      const Watch w = watches[k];
      Slot& s = *slots_[w.slot];
      if (s.generation != w.generation || s.state == Slot::State::retired ||
          s.state == Slot::State::waiting || !s.proc)
        continue;
      if (w.kind == 1) {
        s.proc->read_stderr();
      } else if (w.kind == 2) {
        if (!s.proc->flush())
          fault(w.slot, &PoolCounters::crashes, "exited while measuring (its stdin broke)");
      } else {
        std::vector<std::string> lines;
        const auto res = s.proc->read_stdout(lines);
        for (const auto& line : lines) {
          if (s.generation != w.generation || s.state == Slot::State::retired) break;
          handle_line(w.slot, line);
        }
        if (s.generation != w.generation || s.state == Slot::State::retired ||
            s.state == Slot::State::waiting)
          continue;
        if (res == WorkerProcess::ReadResult::eof) {
          s.proc->read_stderr();
          s.proc->wait_exit(0.2);
          fault(w.slot, &PoolCounters::crashes,
                s.state == Slot::State::starting ? "exited before answering hello"
                                                 : "exited while measuring");
        } else if (res == WorkerProcess::ReadResult::overlong) {
          fault(w.slot, &PoolCounters::garbage_lines,
                fmt::format("printed a line longer than {} bytes", kMaxProtocolLine));
        }
      }
    }
  }
  now = Clock::now();
  for (std::size_t i = 0; i < slots_.size(); ++i) {
    Slot& s = *slots_[i];
    if (s.state == Slot::State::waiting && now >= s.restart_at) start(i);
    if (s.state == Slot::State::retired || s.state == Slot::State::waiting) continue;
    if ((s.state == Slot::State::starting || !s.outstanding.empty()) && now >= s.deadline)
      fault(i, &PoolCounters::timeouts,
            fmt::format("was silent for {} s {}", options_.timeout_s,
                        s.state == Slot::State::starting ? "after hello" : "while measuring"));
  }
}

std::vector<PoolResult> DevicePool::run(const std::vector<MeasureJob>& jobs,
                                        const std::function<void(const PoolProgress&)>& progress) {
  std::vector<PoolResult> results(jobs.size());
  jobs_ = &jobs;
  results_ = &results;
  attempts_.assign(jobs.size(), 0);
  strikes_.assign(jobs.size(), {});
  suspect_.assign(jobs.size(), 0);
  suspects_.clear();
  pending_.clear();
  for (std::size_t j = jobs.size(); j-- > 0;)
    pending_.push_back(j);
  done_ = 0;
  run_done_.assign(slots_.size(), 0);
  const auto t0 = Clock::now();
  // A canary may still be out from the last run: its silence counts from now.
  for (auto& s : slots_)
    if (s->state == Slot::State::ready && !s->outstanding.empty())
      s->deadline = t0 + std::chrono::duration_cast<Clock::duration>(Seconds(options_.timeout_s));
  auto last_report = t0;
  const auto report = [&] {
    if (!progress) return;
    PoolProgress p;
    p.done = done_;
    p.total = jobs.size();
    p.done_per_device = run_done_;
    for (const auto& s : slots_)
      p.inflight_per_device.push_back(int(s->outstanding.size()));
    p.elapsed_s = std::chrono::duration<double>(Clock::now() - t0).count();
    progress(p);
  };
  while (done_ < jobs.size()) {
    dispatch();
    if (!any_alive()) {
      // Every device is retired for good (none is starting or waiting to restart).
      std::string why;
      for (const auto& d : info_)
        why += fmt::format("{}device {}: {}", why.empty() ? "" : "; ", d.id, d.error);
      pending_.insert(pending_.end(), suspects_.begin(), suspects_.end());
      suspects_.clear();
      for (std::size_t j : pending_) {
        results[j].reply = MeasureReply{};
        results[j].reply.status = MeasureStatus::error;
        results[j].reply.detail = "no worker left: every device is retired: " + why;
        results[j].controller_error = true;
        ++done_;
        ++counters_.errors;
      }
      pending_.clear();
      break;
    }
    pump(std::chrono::milliseconds(100));
    if (Clock::now() - last_report >= std::chrono::milliseconds(100)) {
      report();
      last_report = Clock::now();
    }
  }
  report();
  jobs_ = nullptr;
  results_ = nullptr;
  return results;
}

void DevicePool::shutdown(double grace_s) {
  for (auto& s : slots_) {
    if (!s->proc) continue;
    if (s->state == Slot::State::ready) s->proc->send(format_shutdown_request(next_id_++));
    s->proc->close_stdin();
  }
  const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                        std::chrono::duration<double>(grace_s));
  while (Clock::now() < until) {
    bool all_done = true;
    for (auto& s : slots_) {
      if (!s->proc || s->proc->poll_exit()) continue;
      all_done = false;
      std::vector<std::string> ignored;
      s->proc->read_stdout(ignored); // keep its pipes drained so it can exit
      s->proc->read_stderr();
    }
    if (all_done) break;
    ::poll(nullptr, 0, 5);
  }
  for (auto& s : slots_) {
    if (s->proc) s->proc->kill(0.0);
    s->proc.reset();
    if (s->state != Slot::State::retired) s->state = Slot::State::retired;
  }
}

} // namespace tv
