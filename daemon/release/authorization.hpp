#pragma once
// Whether a kernel of a selected release directory may be served for a module hash: the manifest
// must list the (name, hash) pair, the RR split must hold when recorded, and NativeSwinEncoders=0
// drops the two Swin encoders.

#include "daemon/release/directory_selection.hpp"
#include "daemon/release/manifest.hpp"

#include <cstdint>
#include <string>
#include <string_view>

namespace d4r::release {

struct AuthorizationInputs {
  std::string_view kernel;
  uint64_t module_hash = 0;
  bool native_swin_encoders = true; // D4R_NATIVE_SWIN_ENCODERS
};

enum class Verdict {
  allowed,
  not_listed,      // the manifest has no line for the name: not found
  hash_mismatch,   // listed, but not for this module hash: not found, logged got/expected
  wrong_origin,    // the hash came from the other library (RR split): rejected
  switched_off,    // NativeSwinEncoders=0 dropped it (or a developer set entirely): not found
};

struct Authorization {
  Verdict verdict = Verdict::not_listed;
  std::string reason; // empty when allowed
};

// `manifest` is null for a developer set.
[[nodiscard]] Authorization authorize(DirectoryKind kind, const Manifest* manifest,
                                      const AuthorizationInputs& inputs);

// Whether this manifest line may authorise its own name at all: always without a recorded split;
// with one, only a line from the library the kernel belongs to (cuda_dldn_engine_* from rr,
// everything else from sr).
[[nodiscard]] bool entry_can_authorise(const Manifest& manifest, const ManifestEntry& entry);

// "hash H comes from the ray reconstruction library and cannot authorise NAME".
[[nodiscard]] std::string wrong_origin_reason(const ManifestEntry& entry);

[[nodiscard]] const char* to_string(Verdict verdict);

} // namespace d4r::release
