// Fuzz target for the worker protocol's readers (eval/controller/worker_protocol.hpp): a line
// from a worker (reply) or from the controller (request) must parse or be refused with an
// error text, never crash, throw, hang or leak; whatever is accepted obeys the protocol's
// rules. Not part of the CMake build. Seeds in tests/fuzz/corpus/worker_reply/. From the
// repository root:
//
//   clang++ -std=c++20 -O1 -g -fsanitize=fuzzer,address,undefined -I. \
//       tests/fuzz/fuzz_worker_reply.cpp eval/controller/worker_protocol.cpp \
//       eval/measurement.cpp models/csv_fields.cpp ir/shape.cpp ir/config.cpp \
//       $(pkg-config --libs fmt) -o /tmp/f
//   /tmp/f -max_total_time=30 -max_len=4096 tests/fuzz/corpus/worker_reply
#include "eval/controller/worker_protocol.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  const tv::ReplyLine r = tv::read_reply_line(line);
  if (r.ok) {
    tv::HelloReply h;
    if (!tv::parse_hello_reply(r.body, h) && h.ok && (h.device.empty() || h.worker.empty()))
      __builtin_trap();
    tv::MeasureReply m;
    if (!tv::parse_measure_reply(r.body, m)) {
      // Accepted: a time only with ok, and then positive and finite; never a failure's time.
      if (m.status == tv::MeasureStatus::ok) {
        if (!(m.seconds > 0) || !std::isfinite(m.seconds)) __builtin_trap();
        for (double t : m.times)
          if (!(t > 0) || !std::isfinite(t)) __builtin_trap();
      } else if (!m.times.empty() || m.seconds != 0) {
        __builtin_trap();
      }
      (void)tv::format_measure_reply(r.id, m); // what the fake worker writes back
    }
  }
  const tv::WorkerRequest q = tv::parse_request(line);
  if (q.ok && q.op == "measure") {
    if (q.job.shape.M < 1 || q.job.shape.N < 1 || q.job.shape.K < 1 || q.job.reps < 1)
      __builtin_trap();
    (void)tv::format_measure_request(q.id, q.job); // what the controller would send
  }
  return 0;
}
