#pragma once
// The sandbox a compile worker runs in, on top of what daemon/worker_runner.cpp already sets
// (CPU/memory/file-size/descriptor rlimits, PR_SET_PDEATHSIG, no_new_privs, a network namespace
// of its own where the kernel lets an unprivileged process have one). Everything here is what
// Linux gives an unprivileged process; nothing needs root.
//
// - seccomp (util/seccomp_filter.hpp), a deny-list. The worker runs LLVM, lld and comgr in
//   process and, for HIP, the clang driver, which execs clang and lld: threads, mmap, file I/O,
//   posix_spawn and execve are all needed, and the exact set of syscalls differs with the glibc,
//   the ROCm release and the clang the user has. An allow-list tight enough to matter would break
//   some user's compile; so the list below refuses what no compile needs and what an exploit wants:
//   - killed (SIGSYS, reported as a crash): ptrace, process_vm_readv/writev, kcmp, pidfd_getfd
//     (reading or steering other processes), mount and the new mount API, pivot_root, chroot,
//     unshare, setns (namespaces: their capabilities open kernel surface), bpf, perf_event_open,
//     userfaultfd, io_uring_* (large kernel surface, past seccomp's view), keyctl, add_key,
//     request_key (the user's keyrings), kexec_*, *_module, reboot, swapon/off, iopl/ioperm,
//     acct, quotactl, syslog, clock/time setting, open_by_handle_at, name_to_handle_at,
//     fanotify_init, sethostname/setdomainname, vhangup, uselib; any 32-bit or x32 syscall;
//   - EPERM (a library may try and cope): socket, socketpair, connect, bind, listen, accept,
//     accept4 (with no network namespace's help too: glibc's nscd lookup falls back without one);
//     personality other than a query (an exploit would turn ASLR off for what it execs); clone
//     with a CLONE_NEW* flag;
//   - ENOSYS: clone3, whose flags live in memory a filter cannot read; glibc then uses clone.
//   The worker itself adds a second filter that kills on execve/execveat once it knows its job
//   runs entirely in process (compiler/worker/worker_sandbox.hpp): the PTX and LLVM IR builds,
//   whose input is the game's own PTX.
// - Landlock (where the kernel has it: 5.13+, ABI probed): the worker may create, write, rename
//   and remove files only beneath its scratch folder (the daemon points TMPDIR there for the clang
//   driver's temporaries and comgr's) and write /dev/null; on ABI 4+ it may not bind or connect
//   TCP sockets, on ABI 6+ it may not signal processes outside its sandbox or reach abstract
//   Unix sockets (tests may add one folder: D4R_WORKER_TEST_WRITABLE, honoured only with
//   D4R_WORKER_TEST_FAULTS=1). Reading and executing stay open here: the toolchains, their
//   libraries and the sources live in places we cannot list for every distribution and ROCm
//   install. A worker whose job runs in process (the game's PTX) closes reads itself, once its
//   libraries are loaded, to its source and scratch folder (compiler/worker/worker_sandbox.hpp).
//
// What is left: a HIP, clang or comgr worker can read any file the user can (the cache, ~/.ssh);
// with no socket, no network namespace, no ptrace and no writable file outside its scratch folder,
// what it read can leave only inside its output, which the daemon checks as an ELF code object
// and caches; its inputs are our own kernels and the release's sources, not a game's. A kernel
// without Landlock leaves writes and reads open (the rlimits still bound their size). No private mount
// namespace: in a user namespace it would need uid maps written from outside and a mount tree
// rebuilt of the toolchain paths; Landlock gives the write boundary without either. No process
// count per worker: RLIMIT_NPROC counts every process of the user, so any bound a worker could
// live with would depend on what else the user runs; the units' TasksMax=512 (the cgroup's pids
// controller) bounds the daemon and its workers together, and a daemon started by hand has none.

#include "util/error.hpp"
#include "util/landlock.hpp"
#include "util/seccomp_filter.hpp"

#include <filesystem>
#include <span>
#include <string>

namespace d4r::daemon {

// Prepared before fork (it allocates and opens files), entered in the child before exec.
struct WorkerSandbox {
  SeccompFilter seccomp;
  LandlockRuleset landlock; // empty: no Landlock in this kernel
  std::string tmpdir;       // TMPDIR=... for the worker's environment

  explicit WorkerSandbox(SeccompFilter filter) : seccomp(std::move(filter)) {}
};

// The syscalls a worker is refused (the list above).
[[nodiscard]] std::span<const SyscallRule> worker_denied_syscalls();

// The sandbox for a worker whose only writable folder is `scratch` (created here: scratch/tmp is
// its TMPDIR). Errors: io when the folder cannot be made or opened.
[[nodiscard]] Expected<WorkerSandbox> prepare_worker_sandbox(const std::filesystem::path& scratch);

// In the child, after the rlimits, no_new_privs and the namespaces, right before exec:
// async-signal-safe. 0, or the errno of the step that failed (the child then fails to start; a
// kernel without seccomp or Landlock is not a failure: EINVAL from seccomp is skipped).
[[nodiscard]] int enter_worker_sandbox(const WorkerSandbox& sandbox) noexcept;

} // namespace d4r::daemon
