// Warm Resolve through the C client over the Unix socket, against the real daemon serving the
// release fixture: latency p50/p99 with 1 and 16 client threads, throughput, the in-process memo
// as the baseline, and the daemon's RSS after 10 000 resolves.
// usage: d4r-bench-resolve [RESOLVES_PER_THREAD=5000]

#include "client/d4r_kernel_client.h"
#include "daemon_process.hpp"

#include <grpcpp/create_channel.h>
#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/rpc_method.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using d4r::testing::DaemonOptions;
using d4r::testing::DaemonProcess;
using d4r::testing::TempDir;

constexpr uint64_t k_module_hash = d4r::testing::k_sr_module_hash;

d4rk_client* make_client(const std::string& socket, uint32_t flags)
{
  d4rk_options options;
  d4rk_options_init(&options);
  options.socket_path = socket.c_str();
  options.target = "gfx1101";
  options.budget_ms = 2000;
  options.flags = flags;
  d4rk_client* client = nullptr;
  if (d4rk_client_create(&options, &client) != D4RK_OK) {
    std::fprintf(stderr, "d4r-bench-resolve: cannot create a client\n");
    std::exit(1);
  }
  return client;
}

struct Run {
  std::vector<double> latencies_us;
  double seconds = 0;
  int64_t failures = 0;
};

// `threads` threads, each with its own client, each resolving `count` times.
Run run(const std::string& socket, int threads, int count, uint32_t flags)
{
  std::vector<std::vector<double>> per_thread(static_cast<size_t>(threads));
  std::vector<int64_t> failures(static_cast<size_t>(threads), 0);
  std::vector<std::thread> workers;
  Clock::time_point start = Clock::now();
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      d4rk_client* client = make_client(socket, flags);
      std::vector<double>& latencies = per_thread[static_cast<size_t>(t)];
      latencies.reserve(static_cast<size_t>(count));
      for (int i = 0; i < count; ++i) {
        d4rk_kernel* kernel = nullptr;
        Clock::time_point begin = Clock::now();
        int outcome = d4rk_resolve(client, k_module_hash, "d4r_test_layer", &kernel);
        latencies.push_back(std::chrono::duration<double, std::micro>(Clock::now() - begin).count());
        failures[static_cast<size_t>(t)] += outcome == D4RK_READY ? 0 : 1;
        d4rk_kernel_free(kernel);
      }
      d4rk_client_destroy(client);
    });
  }
  for (std::thread& worker : workers) {
    worker.join();
  }
  Run result;
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  for (size_t t = 0; t < per_thread.size(); ++t) {
    result.latencies_us.insert(result.latencies_us.end(), per_thread[t].begin(), per_thread[t].end());
    result.failures += failures[t];
  }
  std::sort(result.latencies_us.begin(), result.latencies_us.end());
  return result;
}

// The floor under any Resolve: a gRPC health check on the same socket, which does no work at all.
// It goes through grpc++ without our generated code (this process must not hold a second copy of
// the protocol next to libd4r_kernel_client.so).
Run run_health_checks(const std::string& socket, int count)
{
  auto channel = grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials());
  grpc::internal::RpcMethod method("/grpc.health.v1.Health/Check",
                                   grpc::internal::RpcMethod::NORMAL_RPC);
  Run result;
  Clock::time_point start = Clock::now();
  for (int i = 0; i < count; ++i) {
    grpc::Slice empty("");
    grpc::ByteBuffer request(&empty, 1);
    grpc::ByteBuffer response;
    grpc::ClientContext context;
    Clock::time_point begin = Clock::now();
    grpc::Status status = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
        channel.get(), method, &context, request, &response);
    result.latencies_us.push_back(std::chrono::duration<double, std::micro>(Clock::now() - begin).count());
    result.failures += status.ok() ? 0 : 1;
  }
  result.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::sort(result.latencies_us.begin(), result.latencies_us.end());
  return result;
}

double percentile(const std::vector<double>& sorted, double p)
{
  if (sorted.empty()) {
    return 0;
  }
  size_t index = static_cast<size_t>(p * static_cast<double>(sorted.size() - 1));
  return sorted[index];
}

void report(const char* name, const Run& result)
{
  double count = static_cast<double>(result.latencies_us.size());
  std::printf("%-34s p50 %8.1f us   p99 %8.1f us   %9.0f resolves/s   failures %lld\n", name,
              percentile(result.latencies_us, 0.50), percentile(result.latencies_us, 0.99),
              count / result.seconds, static_cast<long long>(result.failures));
}

int64_t rss_kib(pid_t pid)
{
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.starts_with("VmRSS:")) {
      return std::stoll(line.substr(6));
    }
  }
  return -1;
}

} // namespace

int main(int argc, char** argv)
{
  int count = argc > 1 ? std::max(100, std::atoi(argv[1])) : 5000;
  TempDir dir;
  DaemonProcess daemon(DaemonOptions(dir.path()));
  if (!daemon.start()) {
    std::fprintf(stderr, "d4r-bench-resolve: the daemon did not start\n");
    return 1;
  }
  std::string socket = daemon.socket_path().string();
  std::printf("d4r-bench-resolve: %d resolves per thread, kernel d4r_test_layer (gfx1101), "
              "daemon pid %d\n", count, daemon.pid());
  run(socket, 1, 50, D4RK_FLAG_NO_MEMO); // warm: imported into the cache, connections made
  int64_t rss_before = rss_kib(daemon.pid());

  Run health = run_health_checks(socket, count);
  Run memo = run(socket, 1, count, 0);
  Run one = run(socket, 1, count, D4RK_FLAG_NO_MEMO);
  Run sixteen = run(socket, 16, count / 4, D4RK_FLAG_NO_MEMO);
  Run rss_load = run(socket, 4, 2500, D4RK_FLAG_NO_MEMO); // 10 000 resolves
  int64_t rss_after = rss_kib(daemon.pid());

  report("grpc health check (floor)", health);
  report("memo hit (in process, baseline)", memo);
  report("daemon round trip, 1 thread", one);
  report("daemon round trip, 16 threads", sixteen);
  std::printf("ratio resolve round trip / bare grpc round trip (p50): %.2fx\n",
              percentile(one.latencies_us, 0.5) / std::max(0.001, percentile(health.latencies_us, 0.5)));
  std::printf("ratio round trip / memo (p50): %.1fx\n",
              percentile(one.latencies_us, 0.5) / std::max(0.001, percentile(memo.latencies_us, 0.5)));
  std::printf("throughput 16 threads / 1 thread: %.2fx\n",
              (static_cast<double>(sixteen.latencies_us.size()) / sixteen.seconds) /
                  (static_cast<double>(one.latencies_us.size()) / one.seconds));
  std::printf("daemon RSS: %lld KiB after warm-up, %lld KiB after %lld more resolves\n",
              static_cast<long long>(rss_before), static_cast<long long>(rss_after),
              static_cast<long long>(one.latencies_us.size() + sixteen.latencies_us.size() +
                                     rss_load.latencies_us.size()));
  bool failed = health.failures + memo.failures + one.failures + sixteen.failures + rss_load.failures > 0;
  return failed ? 1 : 0;
}
