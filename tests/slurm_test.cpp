// The multi-node path for real: a one-node Slurm cluster on localhost (Debian's slurm-wlm and
// munge, started here in a temporary directory), and fake workers launched through `srun`.
// It needs root (slurmd runs jobs as their users) and the packages scripts/setup.sh test installs;
// CI has both. Elsewhere it says why it did not run.
#include "support/fake_worker.hpp"
#include "support/process.hpp"
#include "support/shell.hpp"
#include "support/temp_dir.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <netinet/in.h>
#include <optional>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

// In a namespace of its own: the test files are compiled several to a unit (unity build).
namespace slurm_test {

namespace {

using tv::test::run_shell;

/// A TCP port nobody listens on now (the kernel picks it).
int free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  socklen_t len = sizeof a;
  ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(fd);
  return ntohs(a.sin_port);
}

std::string short_hostname() {
  char buf[256] = {};
  ::gethostname(buf, sizeof buf - 1);
  std::string h = buf;
  return h.substr(0, h.find('.'));
}

/// Why this machine cannot run the cluster, or "" when it can.
std::string cannot_run() {
  if (::geteuid() != 0) return "not root (slurmd must run as root to start jobs)";
  for (const char* tool : {"munged", "mungekey", "slurmctld", "slurmd", "srun", "sinfo"})
    if (run_shell(fmt::format("command -v {} >/dev/null 2>&1", tool)).status != 0)
      return fmt::format("{} is not installed (scripts/setup.sh test installs slurm-wlm and munge)",
                         tool);
  return "";
}

/// munged, slurmctld and slurmd for one node, in `dir`, each in the foreground as a child of
/// the test: stopped when the object goes away, and killed with the test process if that ends
/// first (a test killed by ctest's timeout leaves no daemon running).
class LocalCluster {
public:
  explicit LocalCluster(const std::string& dir) : dir_(dir) {
    const std::string host = short_hostname();
    run_shell(fmt::format("mkdir -p {0}/munge {0}/spool {0}/state && chmod 755 {0}", dir));
    const auto key = run_shell(
        fmt::format("mungekey --create --keyfile={0}/munge/munge.key --force 2>&1 && chmod 600 "
                    "{0}/munge/munge.key",
                    dir));
    REQUIRE_MESSAGE(key.status == 0, key.out);
    munged_.emplace(
        std::vector<std::string>{
            "munged", "--foreground", "--force", "--socket=" + dir + "/munge/munge.sock",
            "--key-file=" + dir + "/munge/munge.key", "--log-file=" + dir + "/munge/munged.log",
            "--pid-file=" + dir + "/munge/munged.pid", "--seed-file=" + dir + "/munge/munged.seed"},
        dir + "/munged.out");
    // Slurm's daemons authenticate through munged's socket: wait until it is there.
    for (int i = 0; i < 200 && !std::filesystem::exists(dir + "/munge/munge.sock"); ++i)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    REQUIRE_MESSAGE(std::filesystem::exists(dir + "/munge/munge.sock"), munged_->output());
    std::ofstream(dir + "/slurm.conf") << fmt::format(
        "ClusterName=tilevolve\n"
        "SlurmctldHost={1}(127.0.0.1)\n"
        "AuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket={0}/munge/munge.sock\n"
        "SlurmUser=root\nSlurmdUser=root\n"
        "SlurmctldPort={2}\nSlurmdPort={3}\n"
        "StateSaveLocation={0}/state\nSlurmdSpoolDir={0}/spool\n"
        "SlurmctldPidFile={0}/slurmctld.pid\nSlurmdPidFile={0}/slurmd.pid\n"
        "SlurmctldLogFile={0}/slurmctld.log\nSlurmdLogFile={0}/slurmd.log\n"
        "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\n"
        "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
        "JobContainerType=job_container/none\nMpiDefault=none\n"
        "SchedulerType=sched/builtin\nSelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
        "SlurmdParameters=config_overrides\nReturnToService=2\n"
        "NodeName={1} NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN\n"
        "PartitionName=tv Nodes={1} Default=YES MaxTime=INFINITE State=UP\n",
        dir, host, free_port(), free_port());
    ::setenv("SLURM_CONF", (dir + "/slurm.conf").c_str(), 1);
    slurmctld_.emplace(std::vector<std::string>{"slurmctld", "-D", "-f", dir + "/slurm.conf"},
                       dir + "/slurmctld.out");
    slurmd_.emplace(std::vector<std::string>{"slurmd", "-D", "-f", dir + "/slurm.conf", "-N", host},
                    dir + "/slurmd.out");
    // Up when the node is idle (a few seconds).
    for (int i = 0; i < 150; ++i) {
      if (run_shell("sinfo -h -o %t 2>/dev/null").out.find("idle") != std::string::npos) {
        up_ = true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
  }
  ~LocalCluster() {
    // The node first, munged last (the others authenticate through it while they stop).
    for (auto* daemon : {&slurmd_, &slurmctld_, &munged_})
      if (*daemon) (*daemon)->stop(SIGTERM, 5);
    ::unsetenv("SLURM_CONF");
  }
  /// True once the node reported idle.
  bool up() const { return up_; }
  /// The daemons' logs, for failure messages.
  std::string logs() const {
    return tv::test::read_text(dir_ + "/slurmctld.log") +
           tv::test::read_text(dir_ + "/slurmd.log") +
           tv::test::read_text(dir_ + "/slurmctld.out") + tv::test::read_text(dir_ + "/slurmd.out");
  }

private:
  std::string dir_;
  std::optional<tv::test::Process> munged_, slurmctld_, slurmd_;
  bool up_ = false;
};

std::string srun_worker(const std::string& args = "") {
  return "srun -N1 -n1 --quiet " + tv::test::fake_worker_cmd(args);
}

} // namespace

TEST_CASE("slurm: fake workers through srun on a one-node cluster: devices, a measured run, "
          "a fault") {
  if (const std::string why = cannot_run(); !why.empty()) {
    MESSAGE("the Slurm test did not run: " << why);
    return;
  }
  tv::test::ScratchDir dir("tv_slurm");
  LocalCluster cluster(dir.path);
  REQUIRE_MESSAGE(cluster.up(), cluster.logs());
  const std::string bin = TILEVOLVE_BINARY;

  // Every step really runs under Slurm.
  const auto step = run_shell("srun -N1 -n1 sh -c 'echo $SLURM_JOB_ID' 2>&1");
  REQUIRE(step.status == 0);
  CHECK(std::atol(step.out.c_str()) > 0);

  const auto devices =
      run_shell(bin + " devices --json --devices 0,1 --worker-cmd \"" + srun_worker() + "\" 2>&1");
  REQUIRE_MESSAGE(devices.status == 0, devices.out);
  const auto dj = nlohmann::json::parse(devices.out.substr(devices.out.find('{')));
  CHECK(dj["healthy"] == 2);
  CHECK(dj["devices"][1]["device"] == "NVIDIA H100 SXM5 80GB (fake)");

  // A short measured evolution through srun gives what the same run gives without it.
  const std::string evolve = " evolve --gpu h100 --budget 40 --seed 1 --quiet --json "
                             "--backend measured --devices 0,1 ";
  const auto direct = run_shell(bin + evolve + "--cache " + dir.at("direct.csv") +
                                " --worker-cmd \"" + tv::test::fake_worker_cmd() + "\"");
  REQUIRE(direct.status == 0);
  const auto through = run_shell(bin + evolve + "--cache " + dir.at("srun.csv") +
                                 " --worker-cmd \"" + srun_worker() + "\"");
  REQUIRE_MESSAGE(through.status == 0, cluster.logs());
  const auto a = nlohmann::json::parse(direct.out), b = nlohmann::json::parse(through.out);
  CHECK(a["best"]["program"] == b["best"]["program"]);
  CHECK(a["train"] == b["train"]);
  CHECK(a["test"] == b["test"]);
  CHECK(b["measurement"]["measured"].get<long long>() > 100);

  // A worker that crashes under srun: the step ends, the pool starts another, same result.
  const auto faulty = run_shell(
      bin + evolve + "--cache " + dir.at("fault.csv") + " --worker-cmd \"" +
      srun_worker("--crash-after 20 --fault-device 1 --once-file " + dir.at("once")) + "\"");
  REQUIRE(faulty.status == 0);
  const auto c = nlohmann::json::parse(faulty.out);
  CHECK(c["best"]["program"] == a["best"]["program"]);
  CHECK(c["test"] == a["test"]);
  CHECK(c["measurement"]["pool"]["crashes"] == 1);
  CHECK(c["measurement"]["pool"]["restarts"] == 1);
  // Nothing is left running in the cluster (steps end when their workers exit).
  bool empty = false;
  for (int i = 0; i < 50 && !empty; ++i) {
    empty = run_shell("squeue -h 2>/dev/null").out.empty();
    if (!empty) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  CHECK(empty);
}

} // namespace slurm_test
