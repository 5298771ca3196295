// The daemon's own share of a warm Resolve: KernelCore::resolve called in process (no gRPC, no
// socket) on the release fixture, with the path answer a local client gets and the bytes answer
// a remote one gets, and the check that lets the daemon send a kept reply again (still_ready: the
// release files' stats, PRAGMA data_version, the object's stat). Compare with d4r-bench-resolve's
// round trip to see what the transport costs.
// usage: d4r-bench-core [ITERATIONS=20000]

#include "daemon/kernel_core.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;
using namespace d4r;
using namespace d4r::daemon;

struct Figures {
  double p50_us = 0;
  double p99_us = 0;
  double per_second = 0;
};

Figures measure(KernelCore& core, const ResolveQuery& query, int iterations)
{
  std::vector<double> latencies;
  latencies.reserve(static_cast<size_t>(iterations));
  Clock::time_point start = Clock::now();
  for (int i = 0; i < iterations; ++i) {
    Clock::time_point begin = Clock::now();
    ResolveAnswer answer = core.resolve(query);
    latencies.push_back(std::chrono::duration<double, std::micro>(Clock::now() - begin).count());
    if (answer.outcome != Outcome::ready) {
      std::fprintf(stderr, "d4r-bench-core: %s\n", answer.reason.c_str());
      std::exit(1);
    }
  }
  double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::sort(latencies.begin(), latencies.end());
  return {latencies[latencies.size() / 2], latencies[latencies.size() * 99 / 100],
          iterations / seconds};
}

} // namespace

int main(int argc, char** argv)
{
  int iterations = argc > 1 ? std::max(100, std::atoi(argv[1])) : 20000;
  std::string pattern = (std::filesystem::temp_directory_path() / "d4r-bench-XXXXXX").string();
  std::filesystem::path dir = mkdtemp(pattern.data());
  DaemonConfig config;
  config.cache_dir = dir / "cache";
  config.native_dir = std::filesystem::path(D4R_BINARY_DIR) / "fixtures" / "release";
  Expected<std::unique_ptr<KernelCore>> core = KernelCore::create(config, "gfx1101");
  if (!core) {
    std::fprintf(stderr, "d4r-bench-core: %s\n", core.error().message.c_str());
    return 1;
  }
  ResolveQuery query;
  query.module_hash = 0x8baeb925f177af87ULL;
  query.kernel = "d4r_test_layer";
  query.accept_path = true;
  measure(**core, query, 10); // imports the object into the cache
  Figures path = measure(**core, query, iterations);
  std::shared_ptr<const ReadyCheck> check = (*core)->resolve(query).check;
  if (!check) {
    std::fprintf(stderr, "d4r-bench-core: a warm path answer came without a ReadyCheck\n");
    return 1;
  }
  std::vector<double> checks;
  checks.reserve(static_cast<size_t>(iterations));
  for (int i = 0; i < iterations; ++i) {
    Clock::time_point begin = Clock::now();
    const bool ready = (*core)->still_ready(*check);
    checks.push_back(std::chrono::duration<double, std::micro>(Clock::now() - begin).count());
    if (!ready) {
      std::fprintf(stderr, "d4r-bench-core: the kept answer stopped holding\n");
      return 1;
    }
  }
  std::sort(checks.begin(), checks.end());
  query.accept_path = false;
  Figures bytes = measure(**core, query, iterations);
  std::printf("d4r-bench-core: %d warm resolves of d4r_test_layer (gfx1101, 10 KiB object)\n",
              iterations);
  std::printf("core resolve, path answer   p50 %6.1f us   p99 %6.1f us   %8.0f /s\n", path.p50_us,
              path.p99_us, path.per_second);
  std::printf("core resolve, bytes answer  p50 %6.1f us   p99 %6.1f us   %8.0f /s\n", bytes.p50_us,
              bytes.p99_us, bytes.per_second);
  std::printf("kept answer check           p50 %6.1f us   p99 %6.1f us\n", checks[checks.size() / 2],
              checks[checks.size() * 99 / 100]);
  std::printf("ratio bytes / path (p50): %.2fx\n", bytes.p50_us / std::max(0.001, path.p50_us));
  core->reset();
  std::filesystem::remove_all(dir);
  return 0;
}
