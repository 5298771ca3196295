#include "daemon/worker_sandbox.hpp"

#include <fcntl.h>
#include <linux/landlock.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cstdlib>
#include <cstring>
#include <cerrno>
#include <cstdint>
#include <system_error>
#include <utility>

namespace d4r::daemon {
namespace {

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#define SYS_landlock_add_rule 445
#define SYS_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif

// Landlock rights newer than the headers of bookworm (linux-libc-dev 6.1 knows ABI 2).
constexpr uint64_t k_fs_truncate = uint64_t{1} << 14;     // ABI 3
constexpr uint64_t k_net_bind_tcp = uint64_t{1} << 0;     // ABI 4
constexpr uint64_t k_net_connect_tcp = uint64_t{1} << 1;  // ABI 4
constexpr uint64_t k_scope_abstract_unix = uint64_t{1} << 0; // ABI 6
constexpr uint64_t k_scope_signal = uint64_t{1} << 1;     // ABI 6

// landlock_ruleset_attr as of ABI 6; the kernel is told how much of it it may read.
struct RulesetAttr {
  uint64_t handled_access_fs = 0;
  uint64_t handled_access_net = 0;
  uint64_t scoped = 0;
};

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

std::string errno_text(int error)
{
  return std::error_code(error, std::generic_category()).message();
}

int landlock_abi()
{
  long abi = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, LANDLOCK_CREATE_RULESET_VERSION);
  return abi > 0 ? static_cast<int>(abi) : 0;
}

uint64_t write_rights(int abi)
{
  uint64_t rights = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                    LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                    LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                    LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                    LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
  if (abi >= 2) {
    rights |= LANDLOCK_ACCESS_FS_REFER;
  }
  if (abi >= 3) {
    rights |= k_fs_truncate;
  }
  return rights;
}

Expected<void> allow_beneath(int ruleset, const std::filesystem::path& path, uint64_t rights)
{
  int fd = ::open(path.c_str(), O_PATH | O_CLOEXEC);
  if (fd < 0) {
    return make_error(ErrorCode::io, "worker sandbox: " + path.string() + ": " + errno_text(errno));
  }
  landlock_path_beneath_attr rule{};
  rule.allowed_access = rights;
  rule.parent_fd = fd;
  long rc = ::syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &rule, 0);
  int error = errno;
  ::close(fd);
  if (rc != 0) {
    return make_error(ErrorCode::internal,
                      "worker sandbox: landlock rule for " + path.string() + ": " + errno_text(error));
  }
  return {};
}

// A ruleset that lets writes happen only beneath `scratch` (and to /dev/null).
Expected<void> make_ruleset(WorkerSandbox& sandbox, const std::filesystem::path& scratch)
{
  int abi = sandbox.landlock_abi;
  RulesetAttr attr;
  attr.handled_access_fs = write_rights(abi);
  size_t size = sizeof(uint64_t);
  if (abi >= 4) {
    attr.handled_access_net = k_net_bind_tcp | k_net_connect_tcp;
    size = 2 * sizeof(uint64_t);
  }
  if (abi >= 6) {
    attr.scoped = k_scope_abstract_unix | k_scope_signal;
    size = sizeof(RulesetAttr);
  }
  long fd = ::syscall(SYS_landlock_create_ruleset, &attr, size, 0);
  if (fd < 0) {
    return make_error(ErrorCode::internal, "worker sandbox: landlock: " + errno_text(errno));
  }
  sandbox.landlock_ruleset = static_cast<int>(fd);
  TRY(allow_beneath(sandbox.landlock_ruleset, scratch, write_rights(abi)));
  // Tests only (with D4R_WORKER_TEST_FAULTS=1, as the faults): a folder a fake clang driver
  // leaves its marks in across attempts.
  const char* faults = std::getenv("D4R_WORKER_TEST_FAULTS");
  const char* writable = std::getenv("D4R_WORKER_TEST_WRITABLE");
  if (faults != nullptr && std::strcmp(faults, "1") == 0 && writable != nullptr && *writable != '\0') {
    TRY(allow_beneath(sandbox.landlock_ruleset, writable, write_rights(abi)));
  }
  uint64_t null_rights = LANDLOCK_ACCESS_FS_WRITE_FILE | (abi >= 3 ? k_fs_truncate : 0);
  return allow_beneath(sandbox.landlock_ruleset, "/dev/null", null_rights);
}

} // namespace

WorkerSandbox::WorkerSandbox(WorkerSandbox&& other) noexcept
    : seccomp(std::move(other.seccomp)),
      landlock_ruleset(std::exchange(other.landlock_ruleset, -1)),
      landlock_abi(other.landlock_abi), tmpdir(std::move(other.tmpdir))
{
}

WorkerSandbox::~WorkerSandbox()
{
  if (landlock_ruleset >= 0) {
    ::close(landlock_ruleset);
  }
}

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
  sandbox.landlock_abi = landlock_abi();
  if (sandbox.landlock_abi > 0) {
    TRY(make_ruleset(sandbox, scratch));
  }
  return sandbox;
}

int enter_worker_sandbox(const WorkerSandbox& sandbox) noexcept
{
  if (sandbox.landlock_ruleset >= 0 &&
      ::syscall(SYS_landlock_restrict_self, sandbox.landlock_ruleset, 0) != 0) {
    return errno;
  }
  int error = sandbox.seccomp.install();
  // A kernel built without seccomp filters: the rest of the sandbox still holds.
  return error == EINVAL ? 0 : error;
}

} // namespace d4r::daemon
