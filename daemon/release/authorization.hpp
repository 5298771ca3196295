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

[[nodiscard]] const char* to_string(Verdict verdict);

} // namespace d4r::release
