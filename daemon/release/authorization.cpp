#include "daemon/release/authorization.hpp"

#include "util/digest.hpp"
#include "util/kernel_identity.hpp"

#include <array>
#include <cassert>

namespace d4r::release {

namespace {

// NativeSwinEncoders=0 bypasses exactly these two (the seed's motion mitigation), by exact name.
constexpr std::array<std::string_view, 2> k_swin_encoders = {"rrlite_enc1_4x4", "rrlite_enc2_4x4"};

bool is_swin_encoder(std::string_view name)
{
  return name == k_swin_encoders[0] || name == k_swin_encoders[1];
}

const char* library_of(HashOrigin origin)
{
  switch (origin) {
  case HashOrigin::super_resolution:
    return "the super resolution library";
  case HashOrigin::ray_reconstruction:
    return "the ray reconstruction library";
  case HashOrigin::unrecorded:
    return "no recorded library";
  }
  return "an unknown library";
}

Authorization verdict(Verdict v, std::string reason)
{
  return Authorization{v, std::move(reason)};
}

// The name is listed: the hash must be listed for it, and, when the manifest records origins, by
// a line of the library the kernel belongs to (so SR's dl4rt_input_kernel hash cannot authorise
// RR's, and the other way round).
Authorization check_listed(const Manifest& manifest, std::string_view kernel, uint64_t hash)
{
  std::string expected;
  const ManifestEntry* wrong = nullptr;
  for (const ManifestEntry& entry : manifest.entries) {
    if (entry.name != kernel) {
      continue;
    }
    if (entry.module_hash != hash) {
      expected += (expected.empty() ? "" : ", ") + hash_to_hex(entry.module_hash);
      continue;
    }
    if (entry_can_authorise(manifest, entry)) {
      return verdict(Verdict::allowed, "");
    }
    wrong = &entry;
  }
  if (wrong != nullptr) {
    return verdict(Verdict::wrong_origin, wrong_origin_reason(*wrong));
  }
  return verdict(Verdict::hash_mismatch, "kernel " + std::string(kernel) + ": module hash got " +
                                             hash_to_hex(hash) + ", expected " + expected);
}

} // namespace

bool entry_can_authorise(const Manifest& manifest, const ManifestEntry& entry)
{
  if (!manifest.records_origin) {
    return true;
  }
  const HashOrigin wanted = is_ray_reconstruction_kernel(entry.name)
                                ? HashOrigin::ray_reconstruction
                                : HashOrigin::super_resolution;
  return entry.origin == wanted;
}

std::string wrong_origin_reason(const ManifestEntry& entry)
{
  return "hash " + hash_to_hex(entry.module_hash) + " comes from " + library_of(entry.origin) +
         " and cannot authorise " + entry.name;
}

Authorization authorize(DirectoryKind kind, const Manifest* manifest,
                        const AuthorizationInputs& inputs)
{
  switch (kind) {
  case DirectoryKind::developer_set:
    // The bridge drops an unhashed set entirely when the switch is off: it cannot tell which of
    // its files are the two encoders' replacements with any certainty.
    if (!inputs.native_swin_encoders) {
      return verdict(Verdict::switched_off,
                     "developer set without a manifest is off while NativeSwinEncoders is off");
    }
    return verdict(Verdict::allowed, "");
  case DirectoryKind::hash_checked:
    break;
  }
  assert(manifest != nullptr && "a hash-checked directory comes with its manifest");
  if (!inputs.native_swin_encoders && is_swin_encoder(inputs.kernel)) {
    return verdict(Verdict::switched_off,
                   "kernel " + std::string(inputs.kernel) + " is off while NativeSwinEncoders is off");
  }
  bool listed = false;
  for (const ManifestEntry& entry : manifest->entries) {
    listed = listed || entry.name == inputs.kernel;
  }
  if (!listed) {
    return verdict(Verdict::not_listed,
                   "kernel " + std::string(inputs.kernel) + " is not listed in the manifest");
  }
  return check_listed(*manifest, inputs.kernel, inputs.module_hash);
}

const char* to_string(Verdict verdict)
{
  switch (verdict) {
  case Verdict::allowed:
    return "allowed";
  case Verdict::not_listed:
    return "not listed";
  case Verdict::hash_mismatch:
    return "hash mismatch";
  case Verdict::wrong_origin:
    return "wrong origin";
  case Verdict::switched_off:
    return "switched off";
  }
  return "unknown";
}

} // namespace d4r::release
