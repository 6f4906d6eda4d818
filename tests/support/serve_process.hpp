#pragma once
/// `tilevolve serve` as a child process for end-to-end tests, and a JSON GET against it over
/// real HTTP on 127.0.0.1.
#include "http.hpp"
#include "process.hpp"

#include <doctest/doctest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tv::test {

/// `tilevolve serve DIR --port 0 [extra...]` with its output in `log`; `port` once it printed
/// its URL.
struct ServeProcess {
  Process process;
  int port = 0;
  ServeProcess(const std::string& dir, const std::string& log,
               const std::vector<std::string>& extra = {})
      : process(
            [&] {
              std::vector<std::string> a{TILEVOLVE_BINARY, "serve", dir, "--port", "0"};
              a.insert(a.end(), extra.begin(), extra.end());
              return a;
            }(),
            log) {
    REQUIRE(process.wait_for_output("http://"));
    port = url_port(served_url(process.output()));
    REQUIRE(port > 0);
  }
};

/// GET `target` from the server on `port`: requires the status `expect` and a JSON content
/// type, and returns the parsed body.
inline nlohmann::json get_json(int port, const std::string& target, int expect = 200) {
  const auto r = http_request(port, target);
  INFO(target << " -> " << r.status << " " << r.body);
  REQUIRE(r.status == expect);
  CHECK(r.headers.find("Content-Type: application/json") != std::string::npos);
  return nlohmann::json::parse(r.body);
}

} // namespace tv::test
