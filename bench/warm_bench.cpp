// d4r-bench-warm [JOBS]: `d4r-kernel warm` of the synthetic DLL (tests/integration/warm_support.hpp:
// our PE writer around nvcc fatbins of our own CUDA; 7 kernels a ptx recipe translates) and a
// game's Resolve meanwhile. Prints
// - the warm of one target with 1 build job and with JOBS (default: the cores);
// - a game's Resolve that needs a build of its own (d4r_example_layer, one target each time) and a
//   game's warm hit (p50/p99 of 200), idle and during a warm of all targets and both modes.
// Figures only; it asserts nothing.

#include "tests/integration/daemon_process.hpp"
#include "tests/integration/warm_support.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

namespace {

using namespace d4r::testing;
namespace pb = ::d4r::kernel::v1;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start)
{
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

double resolve_ms(pb::KernelService::Stub& stub, const std::string& target, uint32_t budget,
                  bool* ready)
{
  pb::ResolveRequest request;
  request.set_module_hash(k_sr_module_hash);
  request.set_kernel("d4r_example_layer");
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(pb::MODE_FAST);
  request.set_wait_budget_ms(budget);
  request.set_accept_path(true);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(budget) +
                       std::chrono::seconds(30));
  Clock::time_point start = Clock::now();
  grpc::Status status = stub.Resolve(&context, request, &reply);
  *ready = status.ok() && reply.outcome() == pb::ResolveReply::READY;
  return ms_since(start);
}

struct Hits {
  double p50 = 0;
  double p99 = 0;
};

Hits hits(pb::KernelService::Stub& stub, const std::string& target)
{
  std::vector<double> samples;
  for (int i = 0; i < 200; ++i) {
    bool ready = false;
    samples.push_back(resolve_ms(stub, target, 50, &ready));
  }
  std::sort(samples.begin(), samples.end());
  return Hits{samples[100], samples[197]};
}

// Runs warm to its end; its wall time in ms.
double warm_ms(const DaemonProcess& daemon, const std::filesystem::path& dir,
               const std::filesystem::path& dll, std::vector<std::string> rest)
{
  std::vector<std::string> args = {cli_binary().string(), "warm", "--json", "--socket",
                                   daemon.socket_path().string()};
  args.insert(args.end(), rest.begin(), rest.end());
  args.push_back(dll.string());
  Clock::time_point start = Clock::now();
  Child child = spawn_on_pipe(args, dir / "warm.stderr");
  std::string ignored = read_all(child.output);
  ::close(child.output);
  (void)wait_child(child.pid);
  return ms_since(start);
}

std::unique_ptr<DaemonProcess> start_daemon(const std::filesystem::path& dir, int jobs)
{
  DaemonOptions options(dir);
  options.native_dir = std::filesystem::path();
  options.recipes_dir = warm_recipes(dir, false);
  options.extra_args = {"--build-jobs", std::to_string(jobs)};
  options.log_file = dir / "daemon.log";
  auto daemon = std::make_unique<DaemonProcess>(options);
  if (!daemon->start()) {
    std::fprintf(stderr, "the daemon did not start\n");
    std::exit(1);
  }
  return daemon;
}

} // namespace

int main(int argc, char** argv)
{
  int jobs = argc > 1 ? std::atoi(argv[1]) : static_cast<int>(std::thread::hardware_concurrency());
  TempDir dir;
  std::filesystem::path dll = make_synthetic_dll(dir.path(), "nvngx_dlss.dll");
  for (int each : {1, std::max(1, jobs)}) {
    TempDir run;
    std::unique_ptr<DaemonProcess> daemon = start_daemon(run.path(), each);
    double ms = warm_ms(*daemon, run.path(), dll, {"--targets", "gfx1201"});
    std::printf("warm of %lld kernels for gfx1201, %d build jobs: %.0f ms\n",
                static_cast<long long>(k_dll_entries), each, ms);
  }

  TempDir run;
  std::unique_ptr<DaemonProcess> daemon = start_daemon(run.path(), std::max(1, jobs));
  auto stub = pb::KernelService::NewStub(grpc::CreateChannel(
      "unix:" + daemon->socket_path().string(), grpc::InsecureChannelCredentials()));
  bool ready = false;
  std::printf("game Resolve, idle:\n");
  for (const char* target : {"gfx1100", "gfx1101", "gfx1102"}) {
    double ms = resolve_ms(*stub, target, 60000, &ready);
    std::printf("  cold build %s: %.0f ms (%s)\n", target, ms, ready ? "READY" : "not ready");
  }
  Hits idle = hits(*stub, "gfx1100");
  std::printf("  warm hit: p50 %.2f ms, p99 %.2f ms\n", idle.p50, idle.p99);

  // 7 kernels x 6 targets x 2 modes in the background.
  std::thread warm([&] {
    double ms = warm_ms(*daemon, run.path(), dll, {"--targets", "all", "--mode", "both"});
    std::printf("  (the warm of %lld kernels took %.0f ms)\n",
                static_cast<long long>(k_dll_entries * 12), ms);
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::printf("game Resolve, during a warm of all targets and both modes (%d build jobs):\n", jobs);
  for (const char* target : {"gfx1103", "gfx1200", "gfx1201"}) {
    double ms = resolve_ms(*stub, target, 60000, &ready);
    std::printf("  cold build %s: %.0f ms (%s)\n", target, ms, ready ? "READY" : "not ready");
  }
  Hits during = hits(*stub, "gfx1100");
  std::printf("  warm hit: p50 %.2f ms, p99 %.2f ms\n", during.p50, during.p99);
  warm.join();
  return 0;
}
