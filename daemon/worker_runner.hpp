#pragma once
// Runs one compile in d4r-kernel-worker (compiler/worker/), a process of its own with CPU-time,
// wall-time and memory limits, so that LLVM aborting on some input ("Cannot select"), a hang or a
// runaway allocation costs a worker and never the daemon.
//
// Each run gets a private scratch folder (mkdtemp under scratch_root) holding the job file, the
// backend's work_dir and the output; it is removed afterwards, whatever happened. The worker runs
// in its own process group with stdin on /dev/null and stdout + stderr captured (the last 64 KiB);
// past the wall limit, and in every case once the worker has exited, the whole group is killed, so
// no helper process (the clang driver) outlives a run. The CPU limit (RLIMIT_CPU) holds per
// process; the wall limit covers the whole group.
//
// Thread-safe: run() may be called from several threads at once, each call independent.

#include "compiler/backend.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::daemon {

struct WorkerLimits {
  std::chrono::seconds cpu{120};
  std::chrono::milliseconds wall{180000};
  int64_t memory_bytes = int64_t{4} << 30; // RLIMIT_AS: address space, not resident memory
  int64_t max_output_bytes = int64_t{256} << 20;
};

struct WorkerResult {
  std::vector<std::byte> code_object;
  std::string log; // the worker's stderr (compiler warnings), for people
  std::chrono::milliseconds elapsed{0};
};

class WorkerRunner {
public:
  // `clang`: the clang driver the worker's backend uses for HIP (empty: the backend's default).
  WorkerRunner(std::filesystem::path worker_binary, std::filesystem::path scratch_root,
               WorkerLimits limits, std::filesystem::path clang = {});

  // `job.work_dir` is ignored: the worker gets a folder inside the run's scratch folder. A relative
  // `job.source` is taken from the daemon's working folder. Errors:
  // - rejected: a compile error ("compile of <source> for gfx1101 failed: <compiler message>"),
  //   or a crash ("worker crashed (signal 6, Aborted) building <source> for gfx1100: <summary>");
  // - timeout: the CPU or the wall limit;
  // - resource_exhausted: the memory limit, or an output over max_output_bytes;
  // - unavailable: the backend cannot be made on this machine;
  // - invalid_argument: the job cannot be written (a line break in a path or flag);
  // - internal: the worker binary is missing or could not be started, or the job file was refused;
  // - io: the scratch folder or the output could not be written or read.
  [[nodiscard]] Expected<WorkerResult> run(const compiler::CompileJob& job,
                                           std::string_view backend) const;

  // Tests only: the same with a `fault=` (crash, hang, sleep, memory) in the job, which the worker
  // honours only when its environment has D4R_WORKER_TEST_FAULTS=1.
  [[nodiscard]] Expected<WorkerResult> run_with_fault(const compiler::CompileJob& job,
                                                      std::string_view backend,
                                                      std::string_view fault) const;

  [[nodiscard]] const WorkerLimits& limits() const { return m_limits; }
  [[nodiscard]] const std::filesystem::path& worker_binary() const { return m_worker_binary; }

private:
  std::filesystem::path m_worker_binary;
  std::filesystem::path m_scratch_root;
  WorkerLimits m_limits;
  std::filesystem::path m_clang;
};

// Where d4r-kernel-worker is for a daemon at `daemon_executable` (std::filesystem::canonical of
// /proc/self/exe): next to it, installed (../libexec/), or in the build tree (../compiler/).
// not_found naming the places tried.
[[nodiscard]] Expected<std::filesystem::path>
find_worker_binary(const std::filesystem::path& daemon_executable);

} // namespace d4r::daemon
