#pragma once
// What d4r-kernel-worker adds to the sandbox its runner gave it (daemon/worker_sandbox.hpp), once
// it has read its job and before it parses any input. A job that runs entirely in this process
// (the llvm backend on PTX, LLVM IR or bitcode: the game's PTX goes this way) has every library
// it needs mapped already and reads nothing but its source and its scratch folder, so
// - execve and execveat kill the process (seccomp), and
// - where the kernel has Landlock, it may open for reading and list only its source file and what
//   lies beneath its scratch folder (the job's output folder and work folder): a parser exploit
//   cannot read the user's files (~/.ssh, the cache) to leave them inside the code object.
// HIP needs the clang driver, which execs clang and lld and reads headers, the ROCm device
// libraries and the toolchain's configuration from places that differ with every install, and
// the clang and comgr backends may too, so they keep exec and reads.
//
// Test-only faults (honoured like the others only with D4R_WORKER_TEST_FAULTS=1) try what the
// sandbox refuses and say what happened, so that a test sees the sandbox hold:
//   socket         an AF_INET socket           "fault socket: refused: ..." or "...: allowed"
//   ptrace         PTRACE_TRACEME              killed by SIGSYS, or "fault ptrace: allowed"
//   exec           execve /bin/true            killed by SIGSYS on an in-process job
//   write_outside  a file in the folder above the run's scratch folder
//                                              "fault write_outside: refused: ..." or "allowed"
//   read_outside   k_read_outside_probe in the folder above the run's scratch folder
//                                              "fault read_outside: refused: ..." or "allowed"

#include "compiler/worker/job_file.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace d4r::compiler {

// Whether the job's backend and language run without a child process.
[[nodiscard]] bool runs_in_process(const WorkerJob& job);

// The file the read_outside fault tries to open, beside the run's scratch folder.
inline constexpr std::string_view k_read_outside_probe = "readable-by-the-user";

// Installs the exec ban and the read confinement for an in-process job (nothing for the others).
// Errors: internal with the kernel's reason; io when the source or scratch folder is missing.
[[nodiscard]] Expected<void> confine_in_process_job(const WorkerJob& job);

// Runs a sandbox fault and returns the worker's exit code (compile_error, with the outcome on
// stderr); nullopt when `fault` is not one of them.
[[nodiscard]] std::optional<int> run_sandbox_fault(const WorkerJob& job);

} // namespace d4r::compiler
