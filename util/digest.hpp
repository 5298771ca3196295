#pragma once
// Digests used to name things: FNV-1a 64 (what d4r manifests list) and SHA-256 (content addresses).

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace d4r {

using Sha256 = std::array<uint8_t, 32>;

// FNV-1a 64 over the bytes as given: basis 0xcbf29ce484222325, prime 0x100000001b3, xor then multiply.
[[nodiscard]] uint64_t fnv1a64(std::span<const std::byte> bytes);
[[nodiscard]] uint64_t fnv1a64(std::string_view text);

// SHA-256 through OpenSSL's EVP interface (uses the CPU's SHA extensions where present).
[[nodiscard]] Sha256 sha256(std::span<const std::byte> bytes);
[[nodiscard]] Sha256 sha256(std::string_view text);

// Incremental SHA-256 for data that arrives in pieces (files read in chunks).
class Sha256Hasher {
public:
  Sha256Hasher();
  ~Sha256Hasher();
  Sha256Hasher(const Sha256Hasher&) = delete;
  Sha256Hasher& operator=(const Sha256Hasher&) = delete;
  void update(std::span<const std::byte> bytes);
  [[nodiscard]] Sha256 finish();

private:
  void* m_context; // EVP_MD_CTX*, kept opaque so that callers need no OpenSSL header
};

[[nodiscard]] std::string to_hex(std::span<const uint8_t> bytes);
[[nodiscard]] std::string to_hex(const Sha256& digest);
// Exactly 16 lowercase hex digits, as manifests write module hashes.
[[nodiscard]] std::string hash_to_hex(uint64_t hash);
// Parses exactly 64 hex digits; nullopt otherwise.
[[nodiscard]] std::optional<Sha256> parse_sha256_hex(std::string_view hex);
// Parses exactly 16 hex digits (either case); nullopt otherwise.
[[nodiscard]] std::optional<uint64_t> parse_hash_hex(std::string_view hex);

} // namespace d4r
