#pragma once
// What d4r-kernel-worker adds to the sandbox its runner gave it (daemon/worker_sandbox.hpp), once
// it has read its job and before it parses any input: a job that runs entirely in this process
// (the llvm backend on PTX, LLVM IR or bitcode: the game's PTX goes this way) never executes a
// program, so execve and execveat kill the process. HIP needs the clang driver, which execs
// clang and lld, and the clang and comgr backends may too, so they keep exec.
//
// Test-only faults (honoured like the others only with D4R_WORKER_TEST_FAULTS=1) try what the
// sandbox refuses and say what happened, so that a test sees the sandbox hold:
//   socket         an AF_INET socket           "fault socket: refused: ..." or "...: allowed"
//   ptrace         PTRACE_TRACEME              killed by SIGSYS, or "fault ptrace: allowed"
//   exec           execve /bin/true            killed by SIGSYS on an in-process job
//   write_outside  a file in the folder above the run's scratch folder
//                                              "fault write_outside: refused: ..." or "allowed"

#include "compiler/worker/job_file.hpp"

#include <optional>
#include <string>

namespace d4r::compiler {

// Whether the job's backend and language run without a child process.
[[nodiscard]] bool runs_in_process(const WorkerJob& job);

// Installs the exec ban for an in-process job. Errors: internal with prctl's reason.
[[nodiscard]] Expected<void> forbid_exec(const WorkerJob& job);

// Runs a sandbox fault and returns the worker's exit code (compile_error, with the outcome on
// stderr); nullopt when `fault` is not one of them.
[[nodiscard]] std::optional<int> run_sandbox_fault(const WorkerJob& job);

} // namespace d4r::compiler
