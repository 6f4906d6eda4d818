// The worker protocol's lines: requests as documented, replies validated as untrusted input.
#include "eval/controller/worker_protocol.hpp"
#include "ir/rng.hpp"

#include "support/fixtures.hpp"
#include "support/mutate.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace worker_protocol_test {

using namespace tv;
using tv::test::cfg;

namespace {

std::string measure_error(const std::string& line) {
  const ReplyLine r = read_reply_line(line);
  REQUIRE(r.ok);
  MeasureReply m;
  return parse_measure_reply(r.body, m).value_or("");
}

std::string hello_error(const std::string& line) {
  const ReplyLine r = read_reply_line(line);
  REQUIRE(r.ok);
  HelloReply h;
  return parse_hello_reply(r.body, h).value_or("");
}

} // namespace

TEST_CASE("worker_protocol: requests carry the documented fields") {
  CHECK(format_hello_request(0) == "{\"id\":0,\"op\":\"hello\",\"protocol\":1}");
  CHECK(format_shutdown_request(9) == "{\"id\":9,\"op\":\"shutdown\"}");
  MeasureJob j;
  j.shape = tv::test::shape(128, 4096, 1024, DType::f16);
  j.shape.layout = "NT";
  j.config = cfg(128, 64, 32, 4, 3, 8);
  j.config.waves_per_eu = 2;
  j.sample = 3;
  const std::string line = format_measure_request(17, j);
  const auto body = nlohmann::json::parse(line);
  CHECK(body["id"] == 17);
  CHECK(body["op"] == "measure");
  CHECK(body["M"] == 128);
  CHECK(body["dtype"] == "f16");
  CHECK(body["layout"] == "NT");
  CHECK(body["config"]["BN"] == 64);
  CHECK(body["config"]["waves_per_eu"] == 2);
  CHECK(!body["config"].contains("kpack"));
  CHECK(body["sample"] == 3);
  CHECK(body["reps"] == 20);
  // The worker side reads back the same job.
  const WorkerRequest back = parse_request(line);
  REQUIRE(back.ok);
  CHECK(back.job.shape.M == 128);
  CHECK(back.job.shape.layout == "NT");
  CHECK(back.job.config == j.config);
  CHECK(back.job.sample == 3);
  j.vendor = true;
  const WorkerRequest vendor = parse_request(format_measure_request(18, j));
  REQUIRE(vendor.ok);
  CHECK(vendor.job.vendor);
  // An unset layout is NN on the wire.
  j.shape.layout.clear();
  CHECK(nlohmann::json::parse(format_measure_request(1, j))["layout"] == "NN");
}

TEST_CASE("worker_protocol: good replies are read, with their times") {
  const ReplyLine r = read_reply_line(
      "{\"id\": 5, \"status\": \"ok\", \"seconds\": 1.5e-5, \"times\": [1.4e-5, 1.5e-5, 1.6e-5], "
      "\"max_rel_error\": 0.002, \"extra\": {\"ignored\": true}}");
  REQUIRE(r.ok);
  CHECK(r.id == 5);
  MeasureReply m;
  CHECK(!parse_measure_reply(r.body, m));
  CHECK(m.status == MeasureStatus::ok);
  CHECK(m.seconds == 1.5e-5);
  CHECK(m.times.size() == 3);
  CHECK(m.max_rel_error == 0.002);
  CHECK(measure_error("{\"id\":1,\"status\":\"unlaunchable\",\"detail\":\"out of LDS\"}").empty());
  CHECK(measure_error("{\"id\":1,\"status\":\"wrong_result\",\"max_rel_error\":0.4}").empty());
  CHECK(measure_error("{\"id\":1,\"status\":\"timeout\",\"seconds\":null,\"times\":[]}").empty());
  HelloReply h;
  const ReplyLine hl = read_reply_line("{\"id\":0,\"status\":\"ok\",\"protocol\":1,\"device\":"
                                       "\"AMD Instinct MI300X\",\"backend\":\"rocm\",\"worker\":"
                                       "\"w 1\",\"devices\":8}");
  REQUIRE(hl.ok);
  CHECK(!parse_hello_reply(hl.body, h));
  CHECK(h.ok);
  CHECK(h.devices == 8);
  CHECK(h.backend == "rocm");
  // A worker that cannot run says so: a valid reply that is not ok.
  const ReplyLine he =
      read_reply_line("{\"id\":0,\"status\":\"error\",\"detail\":\"torch not importable\"}");
  CHECK(!parse_hello_reply(he.body, h));
  CHECK(!h.ok);
  CHECK(h.detail == "torch not importable");
}

TEST_CASE("worker_protocol: lies and malformed replies are refused with a reason") {
  CHECK(measure_error("{\"id\":1,\"status\":\"wrong_result\",\"seconds\":1e-5}") ==
        "reply with status wrong_result carries a time");
  CHECK(measure_error("{\"id\":1,\"status\":\"compile_error\",\"times\":[1e-5]}") ==
        "reply with status compile_error carries a time");
  CHECK(measure_error("{\"id\":1,\"status\":\"ok\"}") == "ok reply without a finite \"seconds\"");
  CHECK(measure_error("{\"id\":1,\"status\":\"ok\",\"seconds\":\"fast\"}") ==
        "ok reply without a finite \"seconds\"");
  CHECK(measure_error("{\"id\":1,\"status\":\"ok\",\"seconds\":-1}") ==
        "ok reply with seconds -1 outside (0, 10000]");
  CHECK(measure_error("{\"id\":1,\"status\":\"ok\",\"seconds\":1e-5,\"times\":[1e-5,0]}") ==
        "\"times\" holds a time that is not positive and finite");
  CHECK(measure_error("{\"id\":1,\"status\":\"fast\"}") == "reply has unknown status 'fast'");
  CHECK(measure_error("{\"id\":1,\"status\":\"unmeasured\"}") ==
        "reply has unknown status 'unmeasured'");
  CHECK(measure_error("{\"id\":1}") == "reply has no \"status\" string");
  CHECK(measure_error("{\"id\":1,\"status\":\"ok\",\"seconds\":1e-5,\"max_rel_error\":-1}") ==
        "\"max_rel_error\" is not a non-negative finite number");
  CHECK(hello_error("{\"id\":0,\"status\":\"ok\",\"protocol\":1,\"device\":\"d\",\"worker\":\"w\","
                    "\"backend\":\"opencl\"}") ==
        "hello reply: backend 'opencl' is not cuda, rocm or fake");
  CHECK(hello_error("{\"id\":0,\"status\":\"ok\",\"protocol\":1,\"backend\":\"cuda\",\"worker\":"
                    "\"w\"}") == "hello reply has no \"device\" name");
  CHECK(hello_error("{\"id\":0,\"status\":\"maybe\"}") ==
        "hello reply has status 'maybe' (expected ok or error)");
  // Lines that are no reply at all.
  CHECK(read_reply_line("Traceback (most recent call last):").error == "not JSON");
  CHECK(read_reply_line("[1, 2]").error == "not a JSON object");
  CHECK(read_reply_line("{\"status\":\"ok\"}").error == "no \"id\"");
  CHECK(read_reply_line("{\"id\":-3}").error == "\"id\" is not a non-negative integer");
  CHECK(read_reply_line("{\"id\":1.5}").error == "\"id\" is not a non-negative integer");
  CHECK(read_reply_line(std::string(64, '[') + std::string(64, ']')).error ==
        "nested deeper than 4 levels");
  CHECK(read_reply_line(std::string(kMaxProtocolLine + 1, ' ')).error ==
        "line of 1048577 bytes is longer than 1048576");
}

TEST_CASE("worker_protocol: text from a worker is kept printable and bounded") {
  const ReplyLine r = read_reply_line("{\"id\":1,\"status\":\"error\",\"detail\":\"a\\u0001b\\nc" +
                                      std::string(3000, 'x') + "\"}");
  REQUIRE(r.ok);
  MeasureReply m;
  REQUIRE(!parse_measure_reply(r.body, m));
  CHECK(m.detail.rfind("a?b c", 0) == 0);
  CHECK(m.detail.size() <= kMaxReplyText + 3);
}

TEST_CASE("worker_protocol: mutated lines are refused or accepted by the rules, never crash") {
  const std::string base[] = {
      "{\"id\":1,\"status\":\"ok\",\"seconds\":1.5e-05,\"times\":[1.4e-05,1.5e-05]}",
      "{\"id\":0,\"status\":\"ok\",\"protocol\":1,\"device\":\"d\",\"backend\":\"fake\","
      "\"worker\":\"w\"}",
      format_measure_request(3, MeasureJob{})};
  const std::string alphabet = "{}[]\",:0123456789.-eE okstaudinr\\";
  Rng rng(7);
  int accepted = 0;
  for (int i = 0; i < 3000; ++i) {
    const std::string line = tv::test::mutate_text(base[i % 3], alphabet, rng);
    const ReplyLine r = read_reply_line(line);
    if (r.ok) {
      MeasureReply m;
      if (!parse_measure_reply(r.body, m)) {
        ++accepted;
        CHECK((m.status == MeasureStatus::ok) == (m.seconds > 0));
        if (m.status != MeasureStatus::ok) CHECK(m.times.empty());
        for (double t : m.times)
          CHECK((t > 0 && std::isfinite(t)));
      }
      HelloReply h;
      if (!parse_hello_reply(r.body, h) && h.ok) CHECK(!h.device.empty());
    }
    const WorkerRequest q = parse_request(line);
    if (q.ok && q.op == "measure") CHECK(q.job.reps >= 1);
  }
  CHECK(accepted > 0);
}

} // namespace worker_protocol_test
