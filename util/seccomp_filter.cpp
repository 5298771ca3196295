#include "util/seccomp_filter.hpp"

#include <linux/audit.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>

#include <cassert>
#include <cerrno>
#include <cstddef>

namespace d4r {
namespace {

#if defined(__x86_64__)
constexpr uint32_t k_arch = AUDIT_ARCH_X86_64;
// x32 syscalls share the architecture of x86_64 but have this bit set in their numbers.
constexpr uint32_t k_x32_bit = 0x40000000U;
#elif defined(__aarch64__)
constexpr uint32_t k_arch = AUDIT_ARCH_AARCH64;
#else
#error "seccomp_filter.cpp: add this architecture's AUDIT_ARCH"
#endif

constexpr uint32_t k_nr_offset = offsetof(seccomp_data, nr);
constexpr uint32_t k_arch_offset = offsetof(seccomp_data, arch);
// The low 32 bits of args[0] (little-endian on both architectures above).
constexpr uint32_t k_arg0_offset = offsetof(seccomp_data, args);

sock_filter statement(uint16_t code, uint32_t k)
{
  return sock_filter{code, 0, 0, k};
}

sock_filter jump(uint16_t code, uint32_t k, uint8_t if_true, uint8_t if_false)
{
  return sock_filter{code, if_true, if_false, k};
}

uint32_t return_value(SyscallAction action)
{
  switch (action) {
  case SyscallAction::kill_process:
    return SECCOMP_RET_KILL_PROCESS;
  case SyscallAction::deny_eperm:
    return SECCOMP_RET_ERRNO | (static_cast<uint32_t>(EPERM) & SECCOMP_RET_DATA);
  case SyscallAction::deny_enosys:
    return SECCOMP_RET_ERRNO | (static_cast<uint32_t>(ENOSYS) & SECCOMP_RET_DATA);
  }
  assert(false && "every SyscallAction is handled above");
  return SECCOMP_RET_KILL_PROCESS;
}

// One rule; the accumulator holds the syscall number before and after it.
void append_rule(std::vector<sock_filter>& code, const SyscallRule& rule)
{
  auto number = static_cast<uint32_t>(rule.number);
  uint32_t result = return_value(rule.action);
  switch (rule.test) {
  case ArgumentTest::any:
    code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, number, 0, 1));
    code.push_back(statement(BPF_RET | BPF_K, result));
    return;
  case ArgumentTest::any_flag_of:
    // nr? -> load arg0 -> any flag? -> refuse; otherwise reload nr and go on.
    code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, number, 0, 4));
    code.push_back(statement(BPF_LD | BPF_W | BPF_ABS, k_arg0_offset));
    code.push_back(jump(BPF_JMP | BPF_JSET | BPF_K, rule.value, 0, 1));
    code.push_back(statement(BPF_RET | BPF_K, result));
    code.push_back(statement(BPF_LD | BPF_W | BPF_ABS, k_nr_offset));
    return;
  case ArgumentTest::other_than:
    code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, number, 0, 4));
    code.push_back(statement(BPF_LD | BPF_W | BPF_ABS, k_arg0_offset));
    code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, rule.value, 1, 0));
    code.push_back(statement(BPF_RET | BPF_K, result));
    code.push_back(statement(BPF_LD | BPF_W | BPF_ABS, k_nr_offset));
    return;
  }
}

} // namespace

SeccompFilter::SeccompFilter(std::span<const SyscallRule> rules)
{
  m_code.push_back(statement(BPF_LD | BPF_W | BPF_ABS, k_arch_offset));
  m_code.push_back(jump(BPF_JMP | BPF_JEQ | BPF_K, k_arch, 1, 0));
  m_code.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
  m_code.push_back(statement(BPF_LD | BPF_W | BPF_ABS, k_nr_offset));
#if defined(__x86_64__)
  m_code.push_back(jump(BPF_JMP | BPF_JGE | BPF_K, k_x32_bit, 0, 1));
  m_code.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
  for (const SyscallRule& rule : rules) {
    if (rule.number >= 0) {
      append_rule(m_code, rule);
    }
  }
  m_code.push_back(statement(BPF_RET | BPF_K, SECCOMP_RET_ALLOW));
}

int SeccompFilter::install() const noexcept
{
  sock_fprog program{static_cast<unsigned short>(m_code.size()),
                     const_cast<sock_filter*>(m_code.data())};
  if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0) {
    return errno;
  }
  return 0;
}

} // namespace d4r
