#pragma once
/// A small W3C WebDriver client for browser tests (header-only): it starts chromedriver,
/// opens one headless Chromium session with a fresh profile and no network beyond loopback,
/// and drives it over HTTP (cpp-httplib).
#include "process.hpp"

#include <arpa/inet.h>
#include <chrono>
#include <cstdlib>
#include <doctest/doctest.h>
#include <filesystem>
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

namespace tv::test {

/// The first of `names` found as an executable on $PATH, or "".
inline std::string find_program(std::initializer_list<const char*> names) {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (const char* name : names) {
    std::size_t start = 0;
    while (start <= dirs.size()) {
      std::size_t end = dirs.find(':', start);
      if (end == std::string::npos) end = dirs.size();
      const std::filesystem::path p = std::filesystem::path(dirs.substr(start, end - start)) / name;
      if (::access(p.c_str(), X_OK) == 0) return p.string();
      start = end + 1;
    }
  }
  return "";
}

/// A TCP port that was free a moment ago on 127.0.0.1.
inline int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

/// Decodes standard base64 (screenshots).
inline std::string base64_decode(const std::string& in) {
  std::string out;
  int val = 0, bits = -8;
  for (const unsigned char c : in) {
    int d;
    if (c >= 'A' && c <= 'Z')
      d = c - 'A';
    else if (c >= 'a' && c <= 'z')
      d = c - 'a' + 26;
    else if (c >= '0' && c <= '9')
      d = c - '0' + 52;
    else if (c == '+')
      d = 62;
    else if (c == '/')
      d = 63;
    else
      continue;
    val = (val << 6) | d;
    bits += 6;
    if (bits >= 0) {
      out.push_back(char((val >> bits) & 0xff));
      bits -= 8;
    }
  }
  return out;
}

/// One chromedriver process and one headless Chromium session.
class Browser {
public:
  /// `chromium` and `chromedriver`: the executables; `work`: a directory for the profile and
  /// the driver's log.
  Browser(const std::string& chromium, const std::string& chromedriver,
          const std::filesystem::path& work)
      : port_(free_port()), driver_({chromedriver, "--port=" + std::to_string(port_)},
                                    (work / "chromedriver.log").string()),
        http_("127.0.0.1", port_) {
    http_.set_read_timeout(60);
    REQUIRE_MESSAGE(driver_.wait_for_output("started successfully", 20),
                    "chromedriver did not start: " << driver_.output());
    const auto profile = work / "profile";
    std::filesystem::remove_all(profile);
    const nlohmann::json args = {"--headless",
                                 "--no-sandbox",
                                 "--disable-gpu",
                                 "--disable-quic",
                                 "--no-first-run",
                                 "--disable-background-networking",
                                 "--disable-component-update",
                                 "--disable-sync",
                                 "--disable-dev-shm-usage",
                                 "--window-size=1400,3400",
                                 "--user-data-dir=" + profile.string()};
    const nlohmann::json caps = {
        {"capabilities",
         {{"alwaysMatch",
           {{"browserName", "chrome"},
            {"goog:chromeOptions", {{"binary", chromium}, {"args", args}}}}}}}};
    const auto r = call("POST", "/session", caps);
    REQUIRE_MESSAGE(r.contains("sessionId"), "no session: " << r.dump());
    session_ = r["sessionId"].get<std::string>();
  }
  ~Browser() {
    if (!session_.empty()) http_.Delete(("/session/" + session_).c_str());
  }

  /// Loads `url` and waits for the page's load event.
  void go(const std::string& url) { call("POST", path("/url"), {{"url", url}}); }
  /// Runs `script` (a function body; `return` gives the result, a promise is awaited).
  nlohmann::json eval(const std::string& script) {
    return call("POST", path("/execute/sync"),
                {{"script", script}, {"args", nlohmann::json::array()}});
  }
  /// Evaluates `script` until it returns true or `seconds` pass; true when it did. A
  /// script that throws (the page has not defined what it reads yet, e.g. a busy machine
  /// still loading the page's own script) counts as "not yet"; when the time is up, the last
  /// error is reported with the failure.
  bool wait_until(const std::string& script, double seconds = 20) {
    const auto end = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    // The page's exception is caught inside the page: chromedriver would answer it with a
    // "javascript error", which is not the same as false.
    const std::string guarded =
        "try {\n" + script + "\n} catch (e) { return {tilevolve_wait_error: String(e)}; }";
    std::string last_error;
    while (std::chrono::steady_clock::now() < end) {
      const nlohmann::json v = eval(guarded);
      if (v == true) return true;
      if (v.is_object() && v.contains("tilevolve_wait_error"))
        last_error = v["tilevolve_wait_error"].get<std::string>();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (!last_error.empty()) MESSAGE("the last try of '" << script << "' threw: " << last_error);
    return false;
  }
  /// Sets the window's size in CSS pixels.
  void resize(int width, int height) {
    call("POST", path("/window/rect"), {{"width", width}, {"height", height}});
  }
  /// A PNG of the window.
  std::string screenshot() {
    return base64_decode(call("GET", path("/screenshot"), nullptr).get<std::string>());
  }

private:
  std::string path(const std::string& tail) const { return "/session/" + session_ + tail; }

  /// One WebDriver command; returns its "value".
  nlohmann::json call(const std::string& method, const std::string& p, const nlohmann::json& body) {
    httplib::Result res = method == "GET" ? http_.Get(p.c_str())
                                          : http_.Post(p.c_str(), body.dump(), "application/json");
    REQUIRE_MESSAGE(res, "no answer from chromedriver to " << method << " " << p);
    const auto j = nlohmann::json::parse(res->body, nullptr, false);
    REQUIRE_MESSAGE(!j.is_discarded(), "chromedriver said: " << res->body);
    REQUIRE_MESSAGE(res->status == 200, method << " " << p << ": " << res->body.substr(0, 2000));
    return j["value"];
  }

  int port_;
  Process driver_;
  httplib::Client http_;
  std::string session_;
};

} // namespace tv::test
