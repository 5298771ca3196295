// KernelCore's side of the upstream protocol: a build server hands another daemon's upstream
// tier (upstream_tier.hpp) what its local store holds for a key, signed, kept out of
// kernel_core.cpp.

#include "daemon/kernel_core.hpp"

#include "trust/object_signature.hpp"

namespace d4r::daemon {

namespace {

// A local store answers at disk speed or fails; the budget only bounds what the tier may take.
constexpr std::chrono::milliseconds k_local_fetch_budget{5000};

} // namespace

Expected<std::optional<SignedObject>> KernelCore::fetch_signed(std::string_view key_text)
{
  TRY_ASSIGN(cache::ParsedKey parsed, cache::parse_key_text(key_text));
  cache::TierResult<std::optional<cache::TierObject>> found =
      m_local_tier->lookup(parsed.mode, parsed.key, k_local_fetch_budget);
  if (!found) {
    return std::unexpected(found.error().error);
  }
  if (!found->has_value()) {
    return std::optional<SignedObject>();
  }
  cache::TierObject& object = **found;
  // Signed over the key as this daemon writes it: the asker checks against its own text.
  const std::string canonical = parsed.key.to_text(parsed.mode);
  TRY_ASSIGN(trust::ObjectSignature signature,
             m_signer.sign(trust::SignedFields{canonical, object.bytes, sha256(object.metadata)}));
  m_counters.add(Counter::upstream_served);
  return std::optional<SignedObject>(SignedObject{std::move(object), trust::to_text(signature)});
}

} // namespace d4r::daemon
