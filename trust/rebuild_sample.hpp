#pragma once
// Which remote results this daemon rebuilds itself to compare bytes (--verify-remote-sample RATE).
// Builds are deterministic, so a local build of the same key with the same toolchain must give the
// very bytes the build server sent; a sample keeps that honest at a fraction of the cost.
//
// The choice is SHA-256(secret || key text) read as a fraction below RATE. The secret is drawn at
// start-up and never leaves this process, so an upstream cannot tell which of its answers will be
// checked (a fixed choice by key could be learnt and avoided); the same key asked twice in one run
// gets the same answer, so asking again cannot dodge a check.

#include "util/error.hpp"

#include <array>
#include <cstdint>
#include <string_view>

namespace d4r::trust {

inline constexpr double k_default_rebuild_sample = 0.05;

// "0.05", "5%", "0" (never), "1" (every result); anything outside [0, 1] is refused.
[[nodiscard]] Expected<double> parse_sample_rate(std::string_view text);

enum class SampleDecision {
  rebuild,               // build it here and compare (rebuild_check.hpp)
  not_sampled,           // trusted on its signature alone
  disabled,              // the rate is 0
  no_local_toolchain,    // this daemon cannot build the target: nothing to compare with
  other_toolchain,       // the key names a toolchain other than ours: other bytes are expected
};

[[nodiscard]] std::string_view to_string(SampleDecision decision);

struct RemoteResult {
  std::string_view key_text;
  bool local_toolchain = false;  // this daemon builds the key's target
  bool same_toolchain = false;   // and with the toolchain fingerprint the key names
};

class RebuildSampler {
public:
  using Secret = std::array<uint8_t, 32>;

  RebuildSampler(double rate, const Secret& secret);
  // A secret from OpenSSL's random generator (RAND_bytes).
  [[nodiscard]] static Expected<RebuildSampler> with_random_secret(double rate);

  [[nodiscard]] SampleDecision decide(const RemoteResult& result) const;
  [[nodiscard]] double rate() const { return m_rate; }

private:
  double m_rate;
  Secret m_secret;
};

} // namespace d4r::trust
