#include "compiler/worker/worker_sandbox.hpp"

#include "util/landlock.hpp"
#include "util/seccomp_filter.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

namespace d4r::compiler {
namespace {

void report(const std::string& fault, int rc, int error)
{
  if (rc >= 0) {
    std::fprintf(stderr, "d4r-kernel-worker: error: fault %s: allowed\n", fault.c_str());
  } else {
    std::fprintf(stderr, "d4r-kernel-worker: error: fault %s: refused: %s\n", fault.c_str(),
                 std::strerror(error));
  }
}

int try_socket()
{
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  int error = errno;
  if (fd >= 0) {
    ::close(fd);
  }
  errno = error;
  return fd;
}

int try_write_outside(const WorkerJob& job)
{
  // output = <scratch root>/worker-XXXXXX/output.hsaco: the root is outside this run's folder.
  std::filesystem::path target = job.output.parent_path().parent_path() / "escaped-by-worker";
  int fd = ::open(target.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  int error = errno;
  if (fd >= 0) {
    ::close(fd);
  }
  errno = error;
  return fd;
}

int try_read_outside(const WorkerJob& job)
{
  std::filesystem::path target =
      job.output.parent_path().parent_path() / std::string(k_read_outside_probe);
  int fd = ::open(target.c_str(), O_RDONLY | O_CLOEXEC);
  int error = errno;
  if (fd >= 0) {
    ::close(fd);
  }
  errno = error;
  return fd;
}

int try_exec()
{
  std::array<char*, 2> argv{const_cast<char*>("/bin/true"), nullptr};
  std::array<char*, 1> envp{nullptr};
  return ::execve(argv[0], argv.data(), envp.data());
}

Expected<void> forbid_exec()
{
  const std::array<SyscallRule, 2> rules = {
      SyscallRule{SYS_execve, SyscallAction::kill_process},
      SyscallRule{SYS_execveat, SyscallAction::kill_process},
  };
  int error = SeccompFilter(rules).install();
  // EINVAL: a kernel without seccomp filters (the runner's filter is then missing too).
  if (error != 0 && error != EINVAL) {
    return make_error(ErrorCode::internal,
                      std::string("worker: seccomp exec ban: ") + std::strerror(error));
  }
  return {};
}

// Reads only beneath the job's own folders and of its source. Whatever else a compile tried to
// open would fail with EACCES: an error the runner reports, never a wrong object.
Expected<void> confine_reads(const WorkerJob& job)
{
  int abi = landlock_abi();
  if (abi == 0) {
    return {}; // no Landlock in this kernel: reads stay open, as daemon/worker_sandbox.hpp says
  }
  TRY_ASSIGN(LandlockRuleset ruleset,
             LandlockRuleset::create(abi, LandlockHandled{.fs = landlock_read_rights()}));
  TRY(ruleset.allow_beneath(job.output.parent_path(), landlock_read_rights()));
  if (!job.compile.work_dir.empty()) {
    TRY(ruleset.allow_beneath(job.compile.work_dir, landlock_read_rights()));
  }
  TRY(ruleset.allow_beneath(job.compile.source, landlock_read_rights()));
  if (int error = ruleset.restrict_self(); error != 0) {
    return make_error(ErrorCode::internal,
                      std::string("worker: landlock read confinement: ") + std::strerror(error));
  }
  return {};
}

} // namespace

bool runs_in_process(const WorkerJob& job)
{
  return job.backend == "llvm" && job.compile.language != SourceLanguage::hip;
}

Expected<void> confine_in_process_job(const WorkerJob& job)
{
  if (!runs_in_process(job)) {
    return {};
  }
  // The runner has set it; a worker started by hand needs it for both steps below.
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
    return make_error(ErrorCode::internal,
                      std::string("worker: no_new_privs: ") + std::strerror(errno));
  }
  TRY(forbid_exec());
  return confine_reads(job);
}

std::optional<int> run_sandbox_fault(const WorkerJob& job)
{
  int rc = 0;
  if (job.fault == "socket") {
    rc = try_socket();
  } else if (job.fault == "ptrace") {
    rc = static_cast<int>(::ptrace(PTRACE_TRACEME, 0, nullptr, nullptr));
  } else if (job.fault == "exec") {
    rc = try_exec();
  } else if (job.fault == "write_outside") {
    rc = try_write_outside(job);
  } else if (job.fault == "read_outside") {
    rc = try_read_outside(job);
  } else {
    return std::nullopt;
  }
  report(job.fault, rc, errno);
  return static_cast<int>(WorkerExit::compile_error);
}

} // namespace d4r::compiler
