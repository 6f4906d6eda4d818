#include "eval/controller/device_pool.hpp"

#include "eval/controller/device_pool_slot.hpp"
#include "eval/controller/worker_process.hpp"
#include "ir/error.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <poll.h>
#include <utility>

namespace tv {

using device_pool_detail::kCanary;
using device_pool_detail::Seconds;

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
                                  std::chrono::duration<double>(options_.start_timeout_s));
  if (!s.proc->send(format_hello_request(0)))
    fault(i, &PoolCounters::crashes, "its stdin closed before hello");
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
  finish(j);
}

void DevicePool::finish(std::size_t j) {
  ++done_;
  if (finished_ && *finished_) (*finished_)(j, (*results_)[j]);
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
    events_.add(pair_retry_event(info_[chosen].id, (*jobs_)[j], attempts_[j],
                                 int(counted_strikes_[j].size())));
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
            s.state == Slot::State::starting
                ? fmt::format("did not answer hello within {} s", options_.start_timeout_s)
                : fmt::format("was silent for {} s while measuring", options_.timeout_s));
  }
}

std::vector<PoolResult>
DevicePool::run(const std::vector<MeasureJob>& jobs,
                const std::function<void(const PoolProgress&)>& progress,
                const std::function<void(std::size_t, const PoolResult&)>& finished) {
  std::vector<PoolResult> results(jobs.size());
  jobs_ = &jobs;
  results_ = &results;
  finished_ = &finished;
  // A callback that throws ends the run; the pointers into this call must not outlive it.
  struct Detach {
    DevicePool& pool;
    ~Detach() {
      pool.jobs_ = nullptr;
      pool.results_ = nullptr;
      pool.finished_ = nullptr;
    }
  } detach{*this};
  attempts_.assign(jobs.size(), 0);
  strikes_.assign(jobs.size(), {});
  counted_strikes_.assign(jobs.size(), {});
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
        ++counters_.errors;
        finish(j);
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
