// tilevolve-fake-worker: a worker that speaks the worker protocol (eval/workers/PROTOCOL.md)
// and answers from the analytic model with a little seeded noise, for machines without a
// GPU. Flags make it misbehave in each way the controller must survive.
#include "eval/controller/worker_protocol.hpp"
#include "ir/hash.hpp"
#include "models/analytic_model.hpp"
#include "models/gpu.hpp"
#include "models/launch.hpp"
#include "models/time_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <poll.h>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

namespace {

struct Options {
  std::string gpu = "h100";
  std::string device = "0";
  std::string device_name; ///< default: "<profile full name> (fake)"
  std::string version = "1";
  int devices = 1;
  double noise = 0.01;
  std::uint64_t seed = 0;
  int slow_ms = 0;
  int hello_delay_ms = 0;
  long long crash_after = -1, hang_after = -1, garbage_after = -1, unknown_id_after = -1,
            lie_after = -1;
  bool out_of_order = false, exit_at_hello = false;
  std::string hello_error;
  std::string once_file;    ///< faults only while this file does not exist; a fault creates it
  std::string fault_device; ///< faults only on this device (empty: every device)
  int wrong_result_bm = 0;  ///< configs with this BM give wrong_result (0: none)
  std::string idle_log;     ///< appends "start end" (steady clock, s) of every wait for input
  double fault_rate = 0;    ///< random mode: share of measure requests that fault
  std::uint64_t fault_seed = 0;
  std::string poison_config; ///< this config (brief form) always crashes the worker
};

const char* kUsage =
    "usage: tilevolve-fake-worker [--gpu NAME] [--device ID] [--device-name NAME]\n"
    "         [--worker-version V] [--devices N] [--noise F] [--seed S] [--slow-ms MS]\n"
    "         [--crash-after N] [--hang-after N] [--garbage-after N] [--unknown-id-after N]\n"
    "         [--lie-after N] [--out-of-order] [--exit-at-hello] [--hello-error TEXT]\n"
    "         [--hello-delay-ms MS]\n"
    "         [--once-file PATH] [--fault-device ID] [--wrong-result-bm BM]\n"
    "         [--idle-log PATH] [--fault-rate P --fault-seed S] [--poison-config CFG]\n"
    "Speaks the tilevolve worker protocol on stdin/stdout; times come from the analytic\n"
    "model of --gpu times (1 + noise * u), u uniform in [-1, 1], seeded by the request.\n"
    "The *-after faults happen after N measure replies of this process. --idle-log appends\n"
    "the start and end (steady clock seconds) of every wait for a request (for bench_pool).\n"
    "--fault-rate P: a share P of measure requests fault, each with a kind drawn per request\n"
    "(a garbage line, a reply to an id not sent, a time with a failed status, a crash, a\n"
    "hang, a duplicate reply), decided by --fault-seed and the request id.\n"
    "--poison-config \"128x128x64 w4 s3 g8\": that config crashes the worker every time.\n";

Options parse_args(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "fake worker: %s needs a value\n%s", a.c_str(), kUsage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--gpu")
      o.gpu = value();
    else if (a == "--device")
      o.device = value();
    else if (a == "--device-name")
      o.device_name = value();
    else if (a == "--worker-version")
      o.version = value();
    else if (a == "--devices")
      o.devices = std::atoi(value().c_str());
    else if (a == "--noise")
      o.noise = std::atof(value().c_str());
    else if (a == "--seed")
      o.seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--slow-ms")
      o.slow_ms = std::atoi(value().c_str());
    else if (a == "--crash-after")
      o.crash_after = std::atoll(value().c_str());
    else if (a == "--hang-after")
      o.hang_after = std::atoll(value().c_str());
    else if (a == "--garbage-after")
      o.garbage_after = std::atoll(value().c_str());
    else if (a == "--unknown-id-after")
      o.unknown_id_after = std::atoll(value().c_str());
    else if (a == "--lie-after")
      o.lie_after = std::atoll(value().c_str());
    else if (a == "--out-of-order")
      o.out_of_order = true;
    else if (a == "--hello-delay-ms")
      o.hello_delay_ms = std::atoi(value().c_str());
    else if (a == "--exit-at-hello")
      o.exit_at_hello = true;
    else if (a == "--hello-error")
      o.hello_error = value();
    else if (a == "--once-file")
      o.once_file = value();
    else if (a == "--fault-device")
      o.fault_device = value();
    else if (a == "--wrong-result-bm")
      o.wrong_result_bm = std::atoi(value().c_str());
    else if (a == "--idle-log")
      o.idle_log = value();
    else if (a == "--fault-rate")
      o.fault_rate = std::atof(value().c_str());
    else if (a == "--fault-seed")
      o.fault_seed = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--poison-config")
      o.poison_config = value();
    else if (a == "--help") {
      std::fputs(kUsage, stdout);
      std::exit(0);
    } else {
      std::fprintf(stderr, "fake worker: unknown argument '%s'\n%s", a.c_str(), kUsage);
      std::exit(2);
    }
  }
  return o;
}

class FakeWorker {
public:
  explicit FakeWorker(Options o) : o_(std::move(o)), gpu_(tv::find_gpu(o_.gpu)) {
    if (o_.device_name.empty()) o_.device_name = gpu_.full_name + " (fake)";
    if (!o_.idle_log.empty()) idle_ = std::fopen(o_.idle_log.c_str(), "a");
  }
  ~FakeWorker() {
    if (idle_) std::fclose(idle_);
  }
  FakeWorker(const FakeWorker&) = delete;
  FakeWorker& operator=(const FakeWorker&) = delete;

  /// Runs the protocol loop until shutdown or end of input; returns the exit status.
  int run() {
    std::fprintf(stderr, "fake worker: device %s (%s) ready\n", o_.device.c_str(),
                 o_.device_name.c_str());
    std::string buffer;
    std::vector<tv::WorkerRequest> held; // out-of-order mode: answered in reverse
    while (true) {
      pollfd p{0, POLLIN, 0};
      const int timeout = o_.out_of_order && !held.empty() ? 20 : -1;
      const double wait_start = now_s();
      const int n = ::poll(&p, 1, timeout);
      if (idle_) std::fprintf(idle_, "%.9f %.9f\n", wait_start, now_s());
      if (n == 0) { // quiet: answer what is held, last first
        for (auto it = held.rbegin(); it != held.rend(); ++it)
          if (!measure(*it)) return 1;
        held.clear();
        continue;
      }
      char chunk[65536];
      const ssize_t got = ::read(0, chunk, sizeof chunk);
      if (got <= 0) return 0; // end of input
      buffer.append(chunk, std::size_t(got));
      std::size_t nl;
      while ((nl = buffer.find('\n')) != std::string::npos) {
        const std::string line = buffer.substr(0, nl);
        buffer.erase(0, nl + 1);
        const tv::WorkerRequest r = tv::parse_request(line);
        if (!r.ok) {
          std::fprintf(stderr, "fake worker: ignoring a bad request: %s\n", r.error.c_str());
          continue;
        }
        if (r.op == "shutdown") {
          std::fprintf(stderr, "fake worker: shutdown after %lld measurements\n", replies_);
          return 0;
        }
        if (r.op == "hello") {
          hello(r);
          continue;
        }
        if (o_.out_of_order) {
          held.push_back(r);
          if (held.size() >= 2) { // a pair: answer the second first
            for (auto it = held.rbegin(); it != held.rend(); ++it)
              if (!measure(*it)) return 1;
            held.clear();
          }
        } else if (!measure(r)) {
          return 1;
        }
      }
    }
  }

private:
  static double now_s() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
  }
  bool faults_on() const {
    if (!o_.fault_device.empty() && o_.fault_device != o_.device) return false;
    return o_.once_file.empty() || !std::filesystem::exists(o_.once_file);
  }
  void mark_fault() const {
    if (!o_.once_file.empty()) std::ofstream(o_.once_file) << "fault\n";
  }
  bool due(long long after) const { return after >= 0 && replies_ >= after && faults_on(); }
  /// A hang: no answer ever, but the end once the controller is gone (its end of the pipe
  /// closed), so a controller killed while a worker hangs leaves no worker behind.
  [[noreturn]] static void hang() {
    while (true) {
      pollfd in{0, POLLIN, 0};
      if (::poll(&in, 1, 1000) > 0 && (in.revents & (POLLHUP | POLLERR))) std::_Exit(0);
      std::this_thread::sleep_for(std::chrono::milliseconds(200)); // a request waits, unread
    }
  }

  void write_line(const std::string& line) {
    std::fwrite(line.data(), 1, line.size(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
  }

  void hello(const tv::WorkerRequest& r) {
    // A slow start (a real worker imports torch and Triton first).
    if (o_.hello_delay_ms > 0 && faults_on())
      std::this_thread::sleep_for(std::chrono::milliseconds(o_.hello_delay_ms));
    if (o_.exit_at_hello && faults_on()) {
      mark_fault();
      std::fprintf(stderr, "fake worker: exiting at hello as asked (--exit-at-hello)\n");
      std::exit(3);
    }
    tv::HelloReply h;
    h.protocol = tv::kWorkerProtocol;
    h.device = o_.device_name;
    h.backend = "fake";
    h.worker = "tilevolve-fake-worker " + o_.version;
    h.devices = o_.devices;
    h.ok = o_.hello_error.empty();
    h.detail = o_.hello_error;
    write_line(tv::format_hello_reply(r.id, h));
  }

  /// A deterministic value in [-1, 1] for this request and repetition.
  double jitter(const tv::MeasureJob& j, int rep) const {
    std::uint64_t h = tv::hash_mix(o_.seed, std::uint64_t(j.shape.M));
    h = tv::hash_mix(h, std::uint64_t(j.shape.N));
    h = tv::hash_mix(h, std::uint64_t(j.shape.K));
    h = tv::hash_mix(h, std::uint64_t(j.shape.dtype));
    for (char c : j.shape.layout)
      h = tv::hash_mix(h, std::uint64_t(c));
    h = tv::hash_mix(h, j.vendor ? 1 : std::uint64_t(tv::hash_value(j.config)));
    h = tv::hash_mix(h, std::uint64_t(j.sample));
    h = tv::hash_mix(h, std::uint64_t(rep));
    return double(h >> 11) / double(1ULL << 53) * 2.0 - 1.0;
  }

  /// The vendor library: a little slower than the model's best config for the shape.
  double vendor_time(const tv::Shape& s) {
    // The launchable configs of a dtype are listed once per process: listing them took a
    // third of the worker's time in runs that ask for the vendor library's column.
    // Each shape's best time is modelled once too: a run asks for it once per sample.
    const tv::ShapeKey key = tv::shape_key(s);
    if (auto known = vendor_times_.find(key); known != vendor_times_.end()) return known->second;
    auto [it, added] = vendor_configs_.try_emplace(s.dtype);
    if (added) it->second = tv::model_configs(gpu_, {s.dtype});
    double best = std::numeric_limits<double>::infinity();
    for (const tv::Config& c : it->second)
      best = std::min(best, tv::model_time(s, c, gpu_));
    return vendor_times_[key] = best * 1.02;
  }

  /// The kinds of fault of the random mode.
  enum class Fault { none, garbage, unknown_id, lie, crash, hang, duplicate };

  /// The random mode's fault for request `id`: deterministic in the seed and the id alone.
  /// The controller numbers its requests in one sequence over every device, so which ids
  /// fault does not depend on which device a request happened to go to: a run meets the
  /// same faults however the scheduling falls.
  Fault random_fault(std::uint64_t id) const {
    if (!(o_.fault_rate > 0)) return Fault::none;
    std::uint64_t h = tv::hash_mix(o_.fault_seed, 0x6661756c74ULL);
    h = tv::hash_mix(h, id);
    const double u = double(h >> 11) / double(1ULL << 53);
    if (u >= o_.fault_rate) return Fault::none;
    return Fault(1 + int(tv::hash_mix(h, 7) % 6));
  }

  /// Answers one measure request; false when the process must end (a crash).
  bool measure(const tv::WorkerRequest& r) {
    if (!o_.poison_config.empty() && !r.job.vendor && r.job.config.brief() == o_.poison_config) {
      std::fprintf(stderr, "fake worker: Segmentation fault while compiling %s (--poison-config)\n",
                   o_.poison_config.c_str());
      std::fflush(stderr);
      std::_Exit(139);
    }
    const Fault fault = random_fault(r.id);
    if (fault == Fault::crash) {
      std::fprintf(stderr, "fake worker: crashing at random (--fault-rate, request %llu)\n",
                   (unsigned long long)r.id);
      std::fflush(stderr);
      std::_Exit(1);
    }
    if (fault == Fault::hang) {
      std::fprintf(stderr, "fake worker: hanging at random (--fault-rate, request %llu)\n",
                   (unsigned long long)r.id);
      std::fflush(stderr);
      hang();
    }
    if (fault == Fault::garbage) {
      write_line("Traceback (most recent call last): a random fault, not a reply {");
      ++replies_;
      return true;
    }
    if (due(o_.crash_after)) {
      mark_fault();
      std::fprintf(stderr, "fake worker: crashing as asked (--crash-after %lld)\n", o_.crash_after);
      std::fflush(stderr);
      std::_Exit(1);
    }
    if (due(o_.hang_after)) {
      mark_fault();
      std::fprintf(stderr, "fake worker: hanging as asked (--hang-after %lld)\n", o_.hang_after);
      std::fflush(stderr);
      hang();
    }
    if (o_.slow_ms > 0) std::this_thread::sleep_for(std::chrono::milliseconds(o_.slow_ms));
    if (due(o_.garbage_after)) {
      mark_fault();
      write_line("Traceback (most recent call last): this is not a reply {");
      ++replies_;
      return true;
    }
    const tv::MeasureJob& j = r.job;
    tv::MeasureReply m;
    std::uint64_t id = r.id;
    if (due(o_.unknown_id_after) || fault == Fault::unknown_id) {
      if (fault == Fault::none) mark_fault();
      id += 1000000;
    }
    double base = 0;
    if (j.vendor) {
      base = vendor_time(j.shape);
    } else if (auto why = tv::launch_problem(j.config, gpu_, j.shape.dtype)) {
      m.status = tv::MeasureStatus::unlaunchable;
      m.detail = *why;
    } else if (o_.wrong_result_bm > 0 && j.config.BM == o_.wrong_result_bm) {
      m.status = tv::MeasureStatus::wrong_result;
      m.max_rel_error = 0.5;
      m.detail = fmt::format("max relative error 0.5 > tolerance (--wrong-result-bm {})",
                             o_.wrong_result_bm);
    } else {
      base = tv::model_time(j.shape, j.config, gpu_);
    }
    if (base > 0) {
      m.status = tv::MeasureStatus::ok;
      for (int rep = 0; rep < j.reps; ++rep)
        m.times.push_back(base * (1.0 + o_.noise * jitter(j, rep)));
      m.seconds = tv::median_of(m.times);
      m.max_rel_error = 0.0;
    }
    if (due(o_.lie_after) || fault == Fault::lie) {
      if (fault == Fault::none) mark_fault();
      // A failed status with a time: the controller must not believe it.
      nlohmann::json lie{{"id", id},
                         {"status", "wrong_result"},
                         {"seconds", base > 0 ? base : 1e-5},
                         {"times", {base > 0 ? base : 1e-5}}};
      write_line(lie.dump());
    } else {
      write_line(tv::format_measure_reply(id, m));
      if (fault == Fault::duplicate) write_line(tv::format_measure_reply(id, m));
    }
    ++replies_;
    return true;
  }

  Options o_;
  tv::Gpu gpu_;
  std::map<tv::DType, std::vector<tv::Config>> vendor_configs_; ///< vendor_time's configs
  std::map<tv::ShapeKey, double> vendor_times_;                 ///< vendor_time's results
  long long replies_ = 0;
  std::FILE* idle_ = nullptr;
};

} // namespace

/// LeakSanitizer's hook (read only in a sanitized build): no leak check at the fake worker's
/// exit. It is a test double that the sanitized suite starts hundreds of times, and the check
/// took 0.03 of its 0.05 s per start; the library code it runs is checked in `tilevolve` and the
/// test executable.
extern "C" int __lsan_is_turned_off() {
  return 1;
}

int main(int argc, char** argv) {
  const Options o = parse_args(argc, argv);
  try {
    FakeWorker w(o);
    return w.run();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fake worker: %s\n", e.what());
    return 2;
  }
}
