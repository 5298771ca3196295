#pragma once
// The job file that the daemon (daemon/worker_runner.cpp) writes and d4r-kernel-worker reads: one
// compile, as `key=value` lines (split at the first '='; values run to the end of the line):
//
//   backend=llvm                 llvm | clang | comgr (compiler/backends/backend_factory.hpp)
//   source=/path/to/kernel.hip
//   language=hip                 hip | llvm_ir | llvm_bitcode | ptx
//   target=gfx1101
//   wave64=0                     0 | 1
//   flag=-O3                     repeated, in order (HIP front-end flags)
//   entry=NAME                   ptx: the .entry to build (optional: every entry)
//   pass=sust                    ptx: a rewrite pass, repeated, in order
//   pass_param=sust.kinds=b32    ptx: one parameter of a pass (NAME.KEY=VALUE)
//   work_dir=/scratch/work       a private folder for intermediate files
//   output=/scratch/out.hsaco    the code object, written to a temporary file and renamed
//   clang=/usr/bin/clang++       optional: the clang driver for HIP (default: the backend's own)
//   fault=crash                  tests only, honoured only when D4R_WORKER_TEST_FAULTS=1
//
// Empty lines and lines starting with '#' are ignored. An unknown key, a repeated single key or a
// missing required key makes the file bad (exit code WorkerExit::bad_job).

#include "compiler/backend.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace d4r::compiler {

// d4r-kernel-worker's exit codes; the runner maps them to error codes.
enum class WorkerExit : int {
  ok = 0,                  // the code object is at `output`
  compile_error = 1,       // the compiler said no: message on stderr
  bad_job = 2,             // the job file is unreadable or malformed
  out_of_memory = 3,       // an allocation failed (the memory limit): k_worker_oom_marker on stderr
  backend_unavailable = 4, // the backend cannot be made here (no comgr library, unknown name)
  io_error = 5,            // the output could not be written
};

// Printed on stderr by a worker whose allocation failed, so that the runner can tell an exhausted
// memory limit from a crash even when the worker had to abort.
inline constexpr std::string_view k_worker_oom_marker = "d4r-kernel-worker: out of memory";

// The environment variable that enables `fault=`. Only the tests set it; production never does, and
// a job with a fault is a bad job without it.
inline constexpr std::string_view k_worker_faults_env = "D4R_WORKER_TEST_FAULTS";

struct WorkerJob {
  std::string backend;
  CompileJob compile;
  std::filesystem::path output;
  std::string fault; // "", crash, hang, sleep, memory, socket, ptrace, exec, write_outside,
                     // read_outside (tests)
  std::filesystem::path clang; // empty: BackendOptions' default
};

// Errors: invalid_argument when a value cannot be written on one line (a newline in a path or
// flag) or a required value is empty.
[[nodiscard]] Expected<std::string> format_worker_job(const WorkerJob& job);
// Errors: invalid_argument naming the line.
[[nodiscard]] Expected<WorkerJob> parse_worker_job(std::string_view text);
// Errors: io when the file cannot be read, else as parse_worker_job, prefixed with the path.
[[nodiscard]] Expected<WorkerJob> read_worker_job(const std::filesystem::path& path);

} // namespace d4r::compiler
