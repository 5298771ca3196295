#pragma once
// A seccomp-BPF filter built from a list of syscalls to refuse, installed with prctl(2): the kernel's
// own mechanism, open to any process that set no_new_privs (libseccomp is not among our
// dependencies, and the program below is small enough to read).
//
// The program first checks the architecture (a 32-bit int 0x80 or an x32 syscall would reach other
// numbers than the ones listed: such a call kills the process), then compares the syscall number
// with each rule in turn; anything not listed is allowed. Rules may look at the low 32 bits of the
// first argument (clone's flags, personality's persona), which is all the rules here need.
//
// Filters stack: a process that installs a second one keeps the first, and the strictest answer
// wins, so a worker can tighten what its runner gave it but never loosen it.

#include <linux/filter.h>

#include <cstdint>
#include <span>
#include <vector>

namespace d4r {

enum class SyscallAction {
  kill_process, // SIGSYS for the whole process: nothing legitimate makes this call
  deny_eperm,   // fails with EPERM: a library may try it and cope (a socket, personality)
  deny_enosys,  // fails with ENOSYS: glibc falls back to an older call (clone3 -> clone)
};

enum class ArgumentTest {
  any,             // every call of the syscall
  any_flag_of,     // calls whose first argument has a bit of `value` set (clone's CLONE_NEW*)
  other_than,      // calls whose first argument is not `value` (personality other than a query)
};

struct SyscallRule {
  long number = -1;
  SyscallAction action = SyscallAction::kill_process;
  ArgumentTest test = ArgumentTest::any;
  uint32_t value = 0;
};

class SeccompFilter {
public:
  // The rules with numbers < 0 (a syscall this architecture lacks) are left out.
  explicit SeccompFilter(std::span<const SyscallRule> rules);

  // Installs the filter on the calling thread (and what it forks or execs). Async-signal-safe: it
  // may run between fork and exec. 0, or the errno of prctl (EINVAL: no seccomp in this kernel;
  // EACCES: no_new_privs is not set).
  [[nodiscard]] int install() const noexcept;

  [[nodiscard]] size_t instruction_count() const { return m_code.size(); }

private:
  std::vector<sock_filter> m_code;
};

} // namespace d4r
