// Build hosts sharing a real redis-server (--redis), against the same work without it, in one run.
// The work: every example recipe's kernel for 6 targets in both modes (60 builds), all asked at
// once. Each host runs one build at a time (--build-jobs 1), so that two hosts are two builders:
//   one host                         every kernel asked of it: the one-builder baseline
//   one host, 2 build jobs           one machine using both cores
//   two hosts without Redis          every kernel asked of both: each builds all 60
//   two hosts on Redis               every kernel asked of both: one build per kernel (the claim),
//                                    the other host waits for it and serves its object
//   two hosts on Redis, halves       each host asked half (as a farm splits its clients), then
//                                    the other half: what the second asks is built already
//   two hosts on Redis, one asked    every kernel asked of one host only: the idle other takes
//                                    the builds it offers on the job stream (shared_builds.hpp)
// For each: the wall time until every host has every kernel it was asked, the distinct kernels
// (60) per second of it, its ratio to the first row, and the builds compiled on each host. On a machine of 2 cores two hosts compete for the
// same cores, so what two machines would give is the model printed at the end, not a measurement.
// usage: d4r-bench-redis-hosts

#include "bench/build_rpc.hpp"
#include "daemon_process.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <fcntl.h>
#include <grpcpp/create_channel.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace pb = ::d4r::kernel::v1;
using Clock = std::chrono::steady_clock;
using d4r::bench::k_examples;
using d4r::bench::k_targets;
using d4r::testing::DaemonOptions;
using d4r::testing::DaemonProcess;
using d4r::testing::TempDir;

struct Kernel {
  const char* name;
  const char* target;
  pb::Mode mode;
};

std::vector<Kernel> all_kernels()
{
  std::vector<Kernel> kernels;
  for (const char* name : k_examples) {
    for (const char* target : k_targets) {
      for (pb::Mode mode : {pb::MODE_FAST, pb::MODE_ACCURACY}) {
        kernels.push_back({name, target, mode});
      }
    }
  }
  return kernels;
}

// A redis-server of this run's own, on a Unix socket, no persistence; killed at the end.
class Redis {
public:
  explicit Redis(const std::filesystem::path& dir) : m_socket(dir / "redis.sock")
  {
    m_pid = fork();
    if (m_pid == 0) {
      int quiet = open("/dev/null", O_WRONLY);
      dup2(quiet, STDOUT_FILENO);
      dup2(quiet, STDERR_FILENO);
      execlp("redis-server", "redis-server", "--port", "0", "--unixsocket", m_socket.c_str(),
             "--unixsocketperm", "700", "--save", "", "--appendonly", "no", "--loglevel", "warning",
             static_cast<char*>(nullptr));
      _exit(127);
    }
    for (int i = 0; i < 200 && !std::filesystem::exists(m_socket); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(25));
    }
  }
  ~Redis()
  {
    if (m_pid > 0) {
      kill(m_pid, SIGKILL);
      waitpid(m_pid, nullptr, 0);
    }
  }
  Redis(const Redis&) = delete;
  Redis& operator=(const Redis&) = delete;

  [[nodiscard]] bool ready() const { return std::filesystem::exists(m_socket); }
  [[nodiscard]] std::string endpoint() const { return "unix:" + m_socket.string(); }

private:
  std::filesystem::path m_socket;
  pid_t m_pid = -1;
};

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  return pb::KernelService::NewStub(grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                                        grpc::InsecureChannelCredentials()));
}

pb::BuildStats builds_of(const DaemonProcess& daemon)
{
  pb::StatusReply reply;
  grpc::ClientContext context;
  static_cast<void>(stub_of(daemon)->Status(&context, pb::StatusRequest(), &reply));
  return reply.builds();
}

DaemonOptions host(const std::filesystem::path& root, const std::string& jobs, const std::string& redis)
{
  std::filesystem::create_directories(root);
  DaemonOptions options(root);
  options.native_dir = std::filesystem::path();
  options.recipes_dir = d4r::testing::shipped_recipes();
  // As many request threads as kernels asked at once, as a build server would run: with the
  // default (8 here) the 60 requests enter a few at a time, and a host has no more waiting
  // builds to offer than it has request threads.
  options.extra_args = {"--build-jobs", jobs, "--wait-ms", "600000", "--workers", "64"};
  if (!redis.empty()) {
    options.extra_args.insert(options.extra_args.end(), {"--redis", redis, "--redis-budget-ms", "200"});
  }
  options.log_file = root / "daemon.log";
  return options;
}

// Asks every host in `asks` for its kernels, all at once; the seconds until all are READY.
// Failures are counted in `failed`.
double ask_all(const std::vector<std::pair<const DaemonProcess*, std::vector<Kernel>>>& asks, int& failed)
{
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  Clock::time_point start = Clock::now();
  for (const auto& [daemon, kernels] : asks) {
    for (const Kernel& kernel : kernels) {
      threads.emplace_back([daemon, kernel, &failures] {
        auto stub = stub_of(*daemon);
        if (d4r::bench::timed_build("d4r-bench-redis-hosts", *stub, kernel.name, kernel.target,
                                    kernel.mode) < 0) {
          ++failures;
        }
      });
    }
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  failed = failures.load();
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Row {
  explicit Row(const char* name) : what(name) {}
  const char* what;
  double seconds = 0;
  std::vector<int64_t> compiled; // per host
  int failed = 0;
};

void print(const Row& row, int kernels, double baseline)
{
  std::string hosts;
  int64_t total = 0;
  for (int64_t compiled : row.compiled) {
    hosts += (hosts.empty() ? "" : " + ") + std::to_string(compiled);
    total += compiled;
  }
  std::printf("%-34s %7.1f s  %5.2f kernels/s  %4.2fx   compiled %s = %lld%s\n", row.what,
              row.seconds, kernels / row.seconds, baseline / row.seconds, hosts.c_str(),
              static_cast<long long>(total),
              row.failed > 0 ? ("   FAILED " + std::to_string(row.failed)).c_str() : "");
}

int64_t compiled_here(const DaemonProcess& daemon)
{
  pb::BuildStats builds = builds_of(daemon);
  return builds.done() - builds.elsewhere();
}

} // namespace

int main()
{
  const std::vector<Kernel> kernels = all_kernels();
  const int count = static_cast<int>(kernels.size());
  std::vector<Kernel> first_half(kernels.begin(), kernels.begin() + count / 2);
  std::vector<Kernel> second_half(kernels.begin() + count / 2, kernels.end());
  std::vector<Row> rows;
  {
    TempDir dir;
    DaemonProcess one(host(dir.path() / "one", "1", ""));
    if (!one.start()) {
      return 1;
    }
    Row row("one host, 1 build job");
    row.seconds = ask_all({{&one, kernels}}, row.failed);
    row.compiled = {compiled_here(one)};
    rows.push_back(row);
  }
  {
    TempDir dir;
    DaemonProcess one(host(dir.path() / "one", "2", ""));
    if (!one.start()) {
      return 1;
    }
    Row row("one host, 2 build jobs");
    row.seconds = ask_all({{&one, kernels}}, row.failed);
    row.compiled = {compiled_here(one)};
    rows.push_back(row);
  }
  {
    TempDir dir;
    DaemonProcess a(host(dir.path() / "a", "1", ""));
    DaemonProcess b(host(dir.path() / "b", "1", ""));
    if (!a.start() || !b.start()) {
      return 1;
    }
    Row row("two hosts, no Redis, both asked all");
    row.seconds = ask_all({{&a, kernels}, {&b, kernels}}, row.failed);
    row.compiled = {compiled_here(a), compiled_here(b)};
    rows.push_back(row);
  }
  // Two hosts on a fresh redis-server each time, one build job each.
  auto on_redis = [&](const char* what, const auto& ask) {
    TempDir dir;
    Redis redis(dir.path());
    if (!redis.ready()) {
      std::fprintf(stderr, "d4r-bench-redis-hosts: redis-server did not start (is it installed?)\n");
      return false;
    }
    DaemonProcess a(host(dir.path() / "a", "1", redis.endpoint()));
    DaemonProcess b(host(dir.path() / "b", "1", redis.endpoint()));
    if (!a.start() || !b.start()) {
      return false;
    }
    Row row(what);
    row.seconds = ask(a, b, row.failed);
    row.compiled = {compiled_here(a), compiled_here(b)};
    rows.push_back(row);
    return true;
  };
  using Host = const DaemonProcess;
  if (!on_redis("two hosts on Redis, both asked all", [&](Host& a, Host& b, int& failed) {
        return ask_all({{&a, kernels}, {&b, kernels}}, failed);
      }) ||
      !on_redis("two hosts on Redis, halves", [&](Host& a, Host& b, int& failed) {
        int failed_first = 0;
        int failed_second = 0;
        double seconds = ask_all({{&a, first_half}, {&b, second_half}}, failed_first);
        seconds += ask_all({{&a, second_half}, {&b, first_half}}, failed_second);
        failed = failed_first + failed_second;
        return seconds;
      }) ||
      !on_redis("two hosts on Redis, one asked all", [&](Host& a, Host& /*b*/, int& failed) {
        return ask_all({{&a, kernels}}, failed);
      })) {
    return 1;
  }
  unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  std::printf("%d kernels (%zu examples x %zu targets x 2 modes), all asked at once; %u cores here\n",
              count, std::size(k_examples), std::size(k_targets), cores);
  for (const Row& row : rows) {
    print(row, count, rows.front().seconds);
  }
  const double per_build = rows.front().seconds / count;
  std::printf("model for N machines of one builder each, on Redis: each kernel is compiled once "
              "(%.2f s each here), so N machines asked for all K kernels finish in about "
              "K x %.2f s / N plus, per kernel built elsewhere, the announcement of its end (or "
              "the offering host's look for it, every 100 ms); a machine asked alone hands its "
              "waiting builds to idle ones; without Redis every machine compiles all K.\n",
              per_build, per_build);
  return 0;
}
