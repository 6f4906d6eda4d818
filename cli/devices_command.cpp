#include "cli/devices_command.hpp"

#include "cli/exit_code.hpp"
#include "cli/worker_options.hpp"
#include "eval/controller/device_pool.hpp"
#include "eval/text_table.hpp"

#include <fmt/format.h>
#include <memory>
#include <nlohmann/json.hpp>

namespace tv {

namespace {

struct DevicesOptions {
  PoolOptions pool;
  bool json = false;
};

void run_devices(DevicesOptions o) {
  check_worker_options(o.pool);
  if (o.pool.command.empty()) o.pool.command = default_worker_command();
  int healthy = 0;
  nlohmann::json list = nlohmann::json::array();
  TextTable t({"device", "status", "name", "backend", "worker"});
  std::string errors;
  PoolCounters counters;
  {
    DevicePool pool(o.pool);
    counters = pool.counters();
    for (const auto& d : pool.devices()) {
      healthy += d.healthy;
      list.push_back({{"id", d.id},
                      {"healthy", d.healthy},
                      {"device", d.hello.device},
                      {"backend", d.hello.backend},
                      {"worker", d.hello.worker},
                      {"devices_reported", d.hello.devices},
                      {"command", d.command},
                      {"error", d.error}});
      t.add({d.id, d.healthy ? "ok" : "failed", d.healthy ? d.hello.device : "-",
             d.healthy ? d.hello.backend : "-", d.healthy ? d.hello.worker : "-"});
      if (!d.healthy) errors += fmt::format("device {} ({}): {}\n", d.id, d.command, d.error);
    }
  }
  if (o.json) {
    fmt::print("{}\n", nlohmann::json{{"command", "devices"},
                                      {"devices", list},
                                      {"healthy", healthy},
                                      {"pool", counters.to_json()}}
                           .dump(2));
  } else {
    fmt::print("tilevolve devices ({} of {} healthy; worker command: {})\n{}", healthy, list.size(),
               o.pool.command, t.str());
    if (!errors.empty()) fmt::print("\n{}", errors);
  }
  if (healthy < int(list.size())) throw ExitCode{kExitCheckFailed};
}

} // namespace

void add_devices_command(CLI::App& app) {
  auto o = std::make_shared<DevicesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "devices", "Start one worker per device and show what each reports (device name, "
                 "backend, worker version); exit status 1 when a worker failed to start");
  add_worker_options(*cmd, o->pool, false);
  cmd->add_flag("--json", o->json, "print one JSON object to stdout");
  cmd->callback([o] { run_devices(*o); });
}

} // namespace tv
