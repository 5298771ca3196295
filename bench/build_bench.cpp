// On-demand builds through the real daemon: the cold build time of each example recipe for each
// target (median of several, the cache purged in between), the warm-hit latency once built, and
// the throughput of building every example for 6 targets x 2 modes with the build pool against a
// single worker, measured in the same run.
// usage: d4r-bench-build [REPEATS=3]

#include "bench/build_rpc.hpp"
#include "daemon_process.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace pb = ::d4r::kernel::v1;
using Clock = std::chrono::steady_clock;
using d4r::testing::DaemonOptions;
using d4r::testing::DaemonProcess;
using d4r::testing::TempDir;
using d4r::bench::purge;

double timed_build(pb::KernelService::Stub& stub, const std::string& kernel,
                   const std::string& target, pb::Mode mode)
{
  return d4r::bench::timed_build("d4r-bench-build", stub, kernel, target, mode);
}

using d4r::bench::k_examples;
using d4r::bench::k_targets;

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  return pb::KernelService::NewStub(grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                                        grpc::InsecureChannelCredentials()));
}

double median(std::vector<double> values)
{
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[values.size() / 2];
}

DaemonOptions options_for(const std::filesystem::path& dir, const std::string& jobs)
{
  DaemonOptions options(dir);
  options.native_dir = std::filesystem::path();
  options.recipes_dir = d4r::testing::shipped_recipes();
  options.extra_args = {"--build-jobs", jobs};
  return options;
}

void cold_builds(int repeats)
{
  TempDir dir;
  DaemonProcess daemon(options_for(dir.path(), "1"));
  if (!daemon.start()) {
    std::exit(1);
  }
  auto stub = stub_of(daemon);
  std::printf("cold build, median of %d (ms), fast mode, llvm backend:\n%-26s", repeats, "");
  for (const char* target : k_targets) {
    std::printf("%9s", target);
  }
  std::printf("\n");
  for (const char* kernel : k_examples) {
    std::printf("%-26s", kernel);
    for (const char* target : k_targets) {
      std::vector<double> times;
      for (int i = 0; i < repeats; ++i) {
        purge(*stub);
        times.push_back(timed_build(*stub, kernel, target, pb::MODE_FAST));
      }
      std::printf("%9.0f", median(times));
    }
    std::printf("\n");
  }
  // Warm: the object is in the cache now.
  std::vector<double> warm;
  for (int i = 0; i < 500; ++i) {
    warm.push_back(timed_build(*stub, "d4r_example_layer", "gfx1201", pb::MODE_FAST));
  }
  std::sort(warm.begin(), warm.end());
  std::printf("warm hit after a build (Build RPC, path answer): p50 %.3f ms, p99 %.3f ms\n",
              warm[warm.size() / 2], warm[warm.size() * 99 / 100]);
}

// Every example x 6 targets x 2 modes requested at once; the seconds until all are READY.
double build_everything(const std::string& jobs)
{
  TempDir dir;
  DaemonProcess daemon(options_for(dir.path(), jobs));
  if (!daemon.start()) {
    std::exit(1);
  }
  std::vector<std::thread> threads;
  Clock::time_point start = Clock::now();
  for (const char* kernel : k_examples) {
    for (const char* target : k_targets) {
      for (pb::Mode mode : {pb::MODE_FAST, pb::MODE_ACCURACY}) {
        threads.emplace_back([&daemon, kernel, target, mode] {
          auto stub = stub_of(daemon);
          static_cast<void>(timed_build(*stub, kernel, target, mode));
        });
      }
    }
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

} // namespace

int main(int argc, char** argv)
{
  int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  unsigned cores = std::max(1U, std::thread::hardware_concurrency());
  cold_builds(repeats);
  double one = build_everything("1");
  double pool = build_everything(std::to_string(cores));
  int count = static_cast<int>(std::size(k_examples) * std::size(k_targets) * 2);
  std::printf("all %d builds (5 examples x 6 targets x 2 modes): one worker %.1f s (%.1f builds/s), "
              "pool of %u %.1f s (%.1f builds/s), speed-up %.2fx\n",
              count, one, count / one, cores, pool, count / pool, one / pool);
  return 0;
}
