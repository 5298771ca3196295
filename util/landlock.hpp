#pragma once
// A Landlock ruleset (Linux 5.13+): an unprivileged process limits what it and its children may do
// to files beneath the folders it names, and, on newer kernels, to TCP ports, abstract Unix sockets
// and signals. Rulesets stack like seccomp filters: a process that restricts itself again keeps the
// earlier limits, so a child can tighten what its parent gave it but never loosen it.
//
// The kernel's ABI is probed (landlock_abi) and only the rights it knows are asked for; the
// headers of bookworm know ABI 2, so the newer rights are spelled out in landlock.cpp.

#include "util/error.hpp"

#include <cstdint>
#include <filesystem>

namespace d4r {

// The kernel's Landlock ABI version; 0 where it has none (too old, or turned off at boot).
[[nodiscard]] int landlock_abi() noexcept;

// Every right that creates, changes, renames or removes a file, as far as `abi` knows them.
[[nodiscard]] uint64_t landlock_write_rights(int abi);
// Opening a file for reading and listing a folder.
[[nodiscard]] uint64_t landlock_read_rights();
// Writing (and, ABI 3+, truncating) an existing file, without creating any: /dev/null's rights.
[[nodiscard]] uint64_t landlock_write_existing_rights(int abi);

// What a ruleset governs: any right not named here stays as it was.
struct LandlockHandled {
  uint64_t fs = 0;
  bool tcp = false;     // ABI 4+: bind and connect on TCP ports (no rule opens a port here)
  bool scoped = false;  // ABI 6+: abstract Unix sockets and signals outside the sandbox
};

class LandlockRuleset {
public:
  // A ruleset for `abi` (> 0) governing `handled`, narrowed to what `abi` knows.
  // Errors: internal with the kernel's reason.
  [[nodiscard]] static Expected<LandlockRuleset> create(int abi, const LandlockHandled& handled);

  LandlockRuleset() = default; // none: restrict_self does nothing
  LandlockRuleset(LandlockRuleset&& other) noexcept;
  LandlockRuleset& operator=(LandlockRuleset&& other) noexcept;
  LandlockRuleset(const LandlockRuleset&) = delete;
  LandlockRuleset& operator=(const LandlockRuleset&) = delete;
  ~LandlockRuleset();

  // Grants `rights` (of those handled) beneath `path`, or on it where it is a file (only the
  // rights a file can have apply there). Errors: io when `path` cannot be opened, internal when
  // the kernel refuses the rule.
  [[nodiscard]] Expected<void> allow_beneath(const std::filesystem::path& path, uint64_t rights);

  // Restricts the calling thread (and what it forks or execs); the caller has set no_new_privs.
  // Async-signal-safe: it may run between fork and exec. 0, or restrict_self's errno.
  [[nodiscard]] int restrict_self() const noexcept;

  [[nodiscard]] bool empty() const { return m_fd < 0; }
  [[nodiscard]] int abi() const { return m_abi; }

private:
  int m_fd = -1;
  int m_abi = 0;
};

} // namespace d4r
