#include "trust/rebuild_sample.hpp"

#include "trust/openssl_error.hpp"
#include "util/digest.hpp"

#include <openssl/rand.h>

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>

namespace d4r::trust {

Expected<double> parse_sample_rate(std::string_view text)
{
  std::string_view number = text;
  double scale = 1.0;
  if (number.ends_with('%')) {
    number.remove_suffix(1);
    scale = 0.01;
  }
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  value *= scale;
  if (number.empty() || ec != std::errc() || end != number.data() + number.size() ||
      !std::isfinite(value) || value < 0.0 || value > 1.0) {
    return make_error(ErrorCode::invalid_argument,
                      "--verify-remote-sample: '" + std::string(text.substr(0, 32)) +
                          "' is not a fraction from 0 to 1 (e.g. 0.05 or 5%)");
  }
  return value;
}

std::string_view to_string(SampleDecision decision)
{
  switch (decision) {
  case SampleDecision::rebuild:
    return "rebuild";
  case SampleDecision::not_sampled:
    return "not_sampled";
  case SampleDecision::disabled:
    return "disabled";
  case SampleDecision::no_local_toolchain:
    return "no_local_toolchain";
  case SampleDecision::other_toolchain:
    return "other_toolchain";
  }
  D4R_UNREACHABLE("every decision is named");
}

RebuildSampler::RebuildSampler(double rate, const Secret& secret) : m_rate(rate), m_secret(secret)
{
  assert(rate >= 0.0 && rate <= 1.0 && "parse_sample_rate checks the rate");
}

Expected<RebuildSampler> RebuildSampler::with_random_secret(double rate)
{
  Secret secret{};
  if (RAND_bytes(secret.data(), static_cast<int>(secret.size())) != 1) {
    return make_error(ErrorCode::internal,
                      "rebuild sample: no random secret: " + take_openssl_errors());
  }
  return RebuildSampler(rate, secret);
}

SampleDecision RebuildSampler::decide(const RemoteResult& result) const
{
  if (m_rate <= 0.0) {
    return SampleDecision::disabled;
  }
  if (!result.local_toolchain) {
    return SampleDecision::no_local_toolchain;
  }
  if (!result.same_toolchain) {
    return SampleDecision::other_toolchain;
  }
  if (m_rate >= 1.0) {
    return SampleDecision::rebuild;
  }
  Sha256Hasher hasher;
  hasher.update(std::as_bytes(std::span(m_secret)));
  hasher.update(std::as_bytes(std::span(result.key_text.data(), result.key_text.size())));
  Sha256 digest = hasher.finish();
  uint64_t word = 0;
  std::memcpy(&word, digest.data(), sizeof(word));
  // The top 53 bits as a double in [0, 1): exact, and uniform over the keys.
  double fraction = static_cast<double>(word >> 11) * 0x1.0p-53;
  return fraction < m_rate ? SampleDecision::rebuild : SampleDecision::not_sampled;
}

} // namespace d4r::trust
