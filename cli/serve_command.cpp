#include "cli/serve_command.hpp"

#include "serve/dashboard_server.hpp"

#include <atomic>
#include <csignal>
#include <cstdio>
#include <fmt/format.h>
#include <memory>
#include <pthread.h>
#include <thread>

namespace tv {

namespace {

void run_serve(const ServeOptions& o) {
  DashboardServer server(o);
  // SIGINT and SIGTERM are blocked in every thread (the server's pool inherits the mask) and
  // taken by one waiter thread that stops the server.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  server.bind();
  if (!is_loopback_host(o.host))
    fmt::print(stderr,
               "tilevolve serve: warning: {} is not a loopback address: anyone who can reach it "
               "can read these runs\n",
               o.host);
  fmt::print("tilevolve serve: {} run(s) under {} at {} (Ctrl-C stops)\n",
             server.index().names().size(), server.index().root().string(), server.url());
  std::fflush(stdout);
  std::atomic<bool> done{false};
  std::thread waiter([&] {
    int sig = 0;
    sigwait(&stop_signals, &sig);
    if (!done) server.stop();
  });
  server.listen();
  done = true;
  pthread_kill(waiter.native_handle(), SIGTERM); // wakes the waiter if listen ended by itself
  waiter.join();
}

} // namespace

void add_serve_command(CLI::App& app) {
  auto o = std::make_shared<ServeOptions>();
  CLI::App* cmd = app.add_subcommand(
      "serve", "Serve a live web dashboard of the runs under RUNS_DIR (each written by "
               "`tilevolve evolve --out RUNS_DIR/NAME`): scores vs programs, cascade and "
               "operator counters, the best program, per-shape speedups, lineage");
  cmd->add_option("RUNS_DIR", o->runs_dir,
                  "directory holding run directories (or one run directory)")
      ->capture_default_str();
  cmd->add_option("--port", o->port, "TCP port (0 = any free port; the URL is printed)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  cmd->add_option("--host", o->host,
                  "address to listen on; the default serves this machine only (another address "
                  "lets anyone who reaches it read the runs)")
      ->capture_default_str();
  cmd->callback([o] { run_serve(*o); });
}

} // namespace tv
