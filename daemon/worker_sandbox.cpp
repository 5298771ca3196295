#include "daemon/worker_sandbox.hpp"

#include <sched.h>
#include <sys/syscall.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace d4r::daemon {
namespace {

// A syscall this architecture lacks is left out of the filter (SeccompFilter skips numbers < 0).
#ifndef SYS_iopl
#define SYS_iopl (-1)
#endif
#ifndef SYS_ioperm
#define SYS_ioperm (-1)
#endif
#ifndef SYS_uselib
#define SYS_uselib (-1)
#endif
#ifndef SYS_kexec_file_load
#define SYS_kexec_file_load (-1)
#endif

constexpr uint32_t k_namespace_flags = CLONE_NEWNS | CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID |
                                       CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
// personality(0xffffffff) only reads the persona.
constexpr uint32_t k_personality_query = 0xffffffffU;

using enum SyscallAction;

const std::array k_denied = {
    // Other processes.
    SyscallRule{SYS_ptrace, kill_process}, SyscallRule{SYS_process_vm_readv, kill_process},
    SyscallRule{SYS_process_vm_writev, kill_process}, SyscallRule{SYS_kcmp, kill_process},
    SyscallRule{SYS_pidfd_getfd, kill_process},
    // Mounts and namespaces.
    SyscallRule{SYS_mount, kill_process}, SyscallRule{SYS_umount2, kill_process},
    SyscallRule{SYS_pivot_root, kill_process}, SyscallRule{SYS_chroot, kill_process},
    SyscallRule{SYS_unshare, kill_process}, SyscallRule{SYS_setns, kill_process},
    SyscallRule{SYS_open_tree, kill_process}, SyscallRule{SYS_move_mount, kill_process},
    SyscallRule{SYS_fsopen, kill_process}, SyscallRule{SYS_fsconfig, kill_process},
    SyscallRule{SYS_fsmount, kill_process}, SyscallRule{SYS_fspick, kill_process},
    SyscallRule{SYS_clone, deny_eperm, ArgumentTest::any_flag_of, k_namespace_flags},
    SyscallRule{SYS_clone3, deny_enosys},
    // Kernel surface no compile touches.
    SyscallRule{SYS_bpf, kill_process}, SyscallRule{SYS_perf_event_open, kill_process},
    SyscallRule{SYS_userfaultfd, kill_process}, SyscallRule{SYS_io_uring_setup, kill_process},
    SyscallRule{SYS_io_uring_enter, kill_process}, SyscallRule{SYS_io_uring_register, kill_process},
    SyscallRule{SYS_keyctl, kill_process}, SyscallRule{SYS_add_key, kill_process},
    SyscallRule{SYS_request_key, kill_process}, SyscallRule{SYS_kexec_load, kill_process},
    SyscallRule{SYS_kexec_file_load, kill_process}, SyscallRule{SYS_init_module, kill_process},
    SyscallRule{SYS_finit_module, kill_process}, SyscallRule{SYS_delete_module, kill_process},
    SyscallRule{SYS_reboot, kill_process}, SyscallRule{SYS_swapon, kill_process},
    SyscallRule{SYS_swapoff, kill_process}, SyscallRule{SYS_iopl, kill_process},
    SyscallRule{SYS_ioperm, kill_process}, SyscallRule{SYS_acct, kill_process},
    SyscallRule{SYS_quotactl, kill_process}, SyscallRule{SYS_syslog, kill_process},
    SyscallRule{SYS_settimeofday, kill_process}, SyscallRule{SYS_clock_settime, kill_process},
    SyscallRule{SYS_clock_adjtime, kill_process}, SyscallRule{SYS_adjtimex, kill_process},
    SyscallRule{SYS_open_by_handle_at, kill_process},
    SyscallRule{SYS_name_to_handle_at, kill_process},
    SyscallRule{SYS_fanotify_init, kill_process}, SyscallRule{SYS_sethostname, kill_process},
    SyscallRule{SYS_setdomainname, kill_process}, SyscallRule{SYS_vhangup, kill_process},
    SyscallRule{SYS_uselib, kill_process},
    // The network, and what would change what an exec'd program looks like.
    SyscallRule{SYS_socket, deny_eperm}, SyscallRule{SYS_socketpair, deny_eperm},
    SyscallRule{SYS_connect, deny_eperm}, SyscallRule{SYS_bind, deny_eperm},
    SyscallRule{SYS_listen, deny_eperm}, SyscallRule{SYS_accept, deny_eperm},
    SyscallRule{SYS_accept4, deny_eperm},
    SyscallRule{SYS_personality, deny_eperm, ArgumentTest::other_than, k_personality_query},
};

// A ruleset that lets writes happen only beneath `scratch` (and to /dev/null).
Expected<LandlockRuleset> make_ruleset(int abi, const std::filesystem::path& scratch)
{
  LandlockHandled handled{.fs = landlock_write_rights(abi), .tcp = true, .scoped = true};
  TRY_ASSIGN(LandlockRuleset ruleset, LandlockRuleset::create(abi, handled));
  TRY(ruleset.allow_beneath(scratch, landlock_write_rights(abi)));
  // Tests only (with D4R_WORKER_TEST_FAULTS=1, as the faults): a folder a fake clang driver
  // leaves its marks in across attempts.
  const char* faults = std::getenv("D4R_WORKER_TEST_FAULTS");
  const char* writable = std::getenv("D4R_WORKER_TEST_WRITABLE");
  if (faults != nullptr && std::strcmp(faults, "1") == 0 && writable != nullptr && *writable != '\0') {
    TRY(ruleset.allow_beneath(writable, landlock_write_rights(abi)));
  }
  TRY(ruleset.allow_beneath("/dev/null", landlock_write_existing_rights(abi)));
  return ruleset;
}

} // namespace

std::span<const SyscallRule> worker_denied_syscalls()
{
  return k_denied;
}

Expected<WorkerSandbox> prepare_worker_sandbox(const std::filesystem::path& scratch)
{
  WorkerSandbox sandbox{SeccompFilter(k_denied)};
  std::filesystem::path tmp = scratch / "tmp";
  std::error_code error;
  std::filesystem::create_directories(tmp, error);
  if (error) {
    return make_error(ErrorCode::io, "worker sandbox: " + tmp.string() + ": " + error.message());
  }
  sandbox.tmpdir = "TMPDIR=" + tmp.string();
  if (int abi = landlock_abi(); abi > 0) {
    TRY_ASSIGN(sandbox.landlock, make_ruleset(abi, scratch));
  }
  return sandbox;
}

int enter_worker_sandbox(const WorkerSandbox& sandbox) noexcept
{
  if (int error = sandbox.landlock.restrict_self(); error != 0) {
    return error;
  }
  int error = sandbox.seccomp.install();
  // A kernel built without seccomp filters: the rest of the sandbox still holds.
  return error == EINVAL ? 0 : error;
}

} // namespace d4r::daemon
