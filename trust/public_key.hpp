#pragma once
// An Ed25519 public key (RFC 8032) and its pinnable text, "ed25519:" + base64 of the raw 32
// bytes, as OpenSSH writes key types before key material. Verification goes through OpenSSL's
// EVP interface (EVP_PKEY_ED25519, EVP_DigestVerify with no digest: Ed25519 hashes by itself).

#include "util/error.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace d4r::trust {

inline constexpr size_t k_ed25519_public_key_bytes = 32;
inline constexpr size_t k_ed25519_signature_bytes = 64;
inline constexpr std::string_view k_public_key_prefix = "ed25519:";

using Signature = std::array<uint8_t, k_ed25519_signature_bytes>;

struct PublicKey {
  std::array<uint8_t, k_ed25519_public_key_bytes> raw{};

  friend bool operator==(const PublicKey&, const PublicKey&) = default;
};

// "ed25519:" + 44 base64 characters.
[[nodiscard]] std::string to_text(const PublicKey& key);

// The text a user pinned, exactly as to_text writes it (no whitespace, one spelling).
[[nodiscard]] Expected<PublicKey> parse_public_key(std::string_view text);

// Succeeds only when `signature` is `key`'s Ed25519 signature of exactly `message`; a wrong
// length or a bad signature is ErrorCode::rejected.
[[nodiscard]] Expected<void> verify_signature(const PublicKey& key,
                                              std::span<const std::byte> message,
                                              std::span<const uint8_t> signature);

} // namespace d4r::trust
