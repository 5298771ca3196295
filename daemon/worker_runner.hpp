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
//
// A failure is worth remembering (the daemon's negative cache) only when it says something about
// the input. A compile error does at once. A crash, the CPU limit or the memory limit do when a
// second attempt fails the same way: a crash may be the machine's (a bad page, a cgroup's memory
// pressure) rather than the input's. A worker killed from outside (systemd sends SIGTERM to the
// whole cgroup on a restart; the OOM killer sends SIGKILL) or past its wall limit on a busy machine
// says nothing about the input: run() tries once more and, failing again, reports unavailable.

#include "compiler/backend.hpp"
#include "util/error.hpp"

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <mutex>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace d4r::daemon {

struct WorkerLimits {
  std::chrono::seconds cpu{120};
  std::chrono::milliseconds wall{180000};
  int64_t memory_bytes = int64_t{4} << 30; // RLIMIT_AS: address space, not resident memory
  int64_t max_output_bytes = int64_t{256} << 20;
};

// What one failed attempt says about its input.
enum class FailureKind {
  none,          // it succeeded
  deterministic, // the compiler refused the input, or the job is bad: again would fail alike
  suspect,       // a crash, the CPU or memory limit: the input's fault if a second try fails alike
  transient,     // killed from outside, the wall limit, the runner stopping: nothing about the input
};

struct WorkerResult {
  std::vector<std::byte> code_object;
  std::string log; // the worker's stderr (compiler warnings), for people
  std::chrono::milliseconds elapsed{0};
};

struct WorkerAttempt {
  Expected<WorkerResult> result;
  FailureKind failure = FailureKind::none;
};

class WorkerRunner {
public:
  // `clang`: the clang driver the worker's backend uses for HIP (empty: the backend's default).
  WorkerRunner(std::filesystem::path worker_binary, std::filesystem::path scratch_root,
               WorkerLimits limits, std::filesystem::path clang = {});

  // One run of the worker. `job.work_dir` is ignored: the worker gets a folder inside the run's
  // scratch folder. A relative `job.source` is taken from the daemon's working folder. Errors:
  // - rejected: a compile error ("compile of <source> for gfx1101 failed: <compiler message>"),
  //   or a crash ("worker crashed (signal 6, Aborted) building <source> for gfx1100: <summary>");
  // - timeout: the CPU limit;
  // - resource_exhausted: the memory limit, or an output over max_output_bytes;
  // - unavailable: the backend cannot be made on this machine; the worker was killed from outside
  //   (systemd stopping the unit's cgroup, the OOM killer) or past the wall limit (a busy machine);
  //   the runner is stopping;
  // - invalid_argument: the job cannot be written (a line break in a path or flag);
  // - internal: the worker binary is missing or could not be started, or the job file was refused;
  // - io: the scratch folder or the output could not be written or read.
  // `fault` (tests only): a `fault=` (crash, hang, sleep, memory) in the job, which the worker
  // honours only when its environment has D4R_WORKER_TEST_FAULTS=1.
  [[nodiscard]] WorkerAttempt attempt(const compiler::CompileJob& job, std::string_view backend,
                                      std::string_view fault = "") const;

  // The build as the daemon wants it: an attempt whose failure may not be the input's fault (a
  // crash, a limit, a kill from outside) is made once more. The error of a failure that says
  // something about the input keeps its code (rejected, timeout, resource_exhausted: worth
  // remembering); any other failure is unavailable, with both attempts' reasons, so that nobody
  // remembers what a kill from outside or a busy machine did.
  [[nodiscard]] Expected<WorkerResult> run(const compiler::CompileJob& job,
                                           std::string_view backend) const;
  // Tests only: run() with a fault in both attempts.
  [[nodiscard]] Expected<WorkerResult> run_with_fault(const compiler::CompileJob& job,
                                                      std::string_view backend,
                                                      std::string_view fault) const;

  // Kills the workers running now and fails every later attempt at once (unavailable), so that a
  // daemon asked to stop does not wait for builds of minutes. Not undone.
  void stop();

  [[nodiscard]] const WorkerLimits& limits() const { return m_limits; }
  [[nodiscard]] const std::filesystem::path& worker_binary() const { return m_worker_binary; }

private:
  std::filesystem::path m_worker_binary;
  std::filesystem::path m_scratch_root;
  WorkerLimits m_limits;
  std::filesystem::path m_clang;
  // The process groups of the workers running now, for stop().
  mutable std::mutex m_mutex;
  mutable std::set<pid_t> m_running;
  bool m_stopping = false; // under m_mutex
};

// Where d4r-kernel-worker is for a daemon at `daemon_executable` (std::filesystem::canonical of
// /proc/self/exe): next to it, installed (../libexec/), or in the build tree (../compiler/).
// not_found naming the places tried.
[[nodiscard]] Expected<std::filesystem::path>
find_worker_binary(const std::filesystem::path& daemon_executable);

} // namespace d4r::daemon
