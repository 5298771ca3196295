#pragma once
// A sampled remote result against this daemon's own build of the same key (rebuild_sample.hpp
// chose it): the bytes must be equal, since builds are deterministic for one toolchain. A
// mismatch is the one hard evidence that an upstream serves what it did not build from these
// inputs (or builds differently): that upstream is distrusted for the rest of the process, the
// local bytes replace the remote ones, and the report names both digests and the first differing
// byte so that an operator can compare the two objects. A local build that fails proves nothing
// about the upstream (a tighter memory limit here, a full disk): reported, not held against it.

#include "util/digest.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::trust {

enum class RebuildVerdict {
  match,        // the remote bytes are what we build: the upstream stays trusted
  mismatch,     // they differ: the upstream is distrusted, the local object is served
  local_failed, // no local object to compare with: the remote result stays unverified
};

[[nodiscard]] std::string_view to_string(RebuildVerdict verdict);

struct RebuildReport {
  RebuildVerdict verdict = RebuildVerdict::match;
  std::string upstream; // as the caller names it (a URL with its user-info already redacted)
  std::string key_text;
  Sha256 remote_digest{};
  std::optional<Sha256> local_digest; // unset when the local build failed
  int64_t remote_bytes = 0;
  int64_t local_bytes = 0;
  int64_t first_difference = -1; // byte offset of a mismatch; -1 otherwise
  std::string message;           // one log line, LLVM style, naming the upstream and the key
};

[[nodiscard]] RebuildReport compare_rebuild(std::string_view upstream, std::string_view key_text,
                                            std::span<const std::byte> remote,
                                            const Expected<std::vector<std::byte>>& local);

struct RebuildStats {
  int64_t checked = 0;
  int64_t matched = 0;
  int64_t mismatched = 0;
  int64_t local_failed = 0;
};

// What the checks said about one upstream. Request threads record reports and ask trusted()
// concurrently; one small lock guards it (the reason is a string, so atomics alone would not do).
class UpstreamTrust {
public:
  explicit UpstreamTrust(std::string upstream) : m_upstream(std::move(upstream)) {}

  // true when this report distrusted the upstream (its first mismatch): the caller logs it as an
  // error and counts it once.
  bool record(const RebuildReport& report);

  [[nodiscard]] bool trusted() const;
  [[nodiscard]] std::optional<std::string> distrust_reason() const; // the first mismatch's message
  [[nodiscard]] RebuildStats stats() const;
  [[nodiscard]] const std::string& upstream() const { return m_upstream; }

private:
  const std::string m_upstream;
  mutable std::mutex m_mutex;
  RebuildStats m_stats;
  std::optional<std::string> m_distrust_reason;
};

} // namespace d4r::trust
