#include "util/digest.hpp"

#include <openssl/evp.h>

#include <cassert>
#include <charconv>

namespace d4r {

namespace {

constexpr uint64_t k_fnv_basis = 0xcbf29ce484222325ULL;
constexpr uint64_t k_fnv_prime = 0x100000001b3ULL;

std::span<const std::byte> as_bytes(std::string_view text)
{
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

std::optional<uint8_t> hex_value(char c)
{
  if (c >= '0' && c <= '9') {
    return static_cast<uint8_t>(c - '0');
  }
  if (c >= 'a' && c <= 'f') {
    return static_cast<uint8_t>(c - 'a' + 10);
  }
  if (c >= 'A' && c <= 'F') {
    return static_cast<uint8_t>(c - 'A' + 10);
  }
  return std::nullopt;
}

} // namespace

uint64_t fnv1a64(std::span<const std::byte> bytes)
{
  uint64_t hash = k_fnv_basis;
  for (std::byte b : bytes) {
    hash ^= static_cast<uint64_t>(b);
    hash *= k_fnv_prime;
  }
  return hash;
}

uint64_t fnv1a64(std::string_view text)
{
  return fnv1a64(as_bytes(text));
}

Sha256Hasher::Sha256Hasher() : m_context(EVP_MD_CTX_new())
{
  [[maybe_unused]] int ok = EVP_DigestInit_ex(static_cast<EVP_MD_CTX*>(m_context), EVP_sha256(), nullptr);
  assert(ok == 1 && "EVP_sha256 is always available in libcrypto");
}

Sha256Hasher::~Sha256Hasher()
{
  EVP_MD_CTX_free(static_cast<EVP_MD_CTX*>(m_context));
}

void Sha256Hasher::update(std::span<const std::byte> bytes)
{
  EVP_DigestUpdate(static_cast<EVP_MD_CTX*>(m_context), bytes.data(), bytes.size());
}

Sha256 Sha256Hasher::finish()
{
  Sha256 digest{};
  unsigned int length = 0;
  EVP_DigestFinal_ex(static_cast<EVP_MD_CTX*>(m_context), digest.data(), &length);
  assert(length == digest.size() && "sha256 digests are 32 bytes");
  return digest;
}

Sha256 sha256(std::span<const std::byte> bytes)
{
  Sha256 digest{};
  unsigned int length = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr);
  return digest;
}

Sha256 sha256(std::string_view text)
{
  return sha256(as_bytes(text));
}

std::string to_hex(std::span<const uint8_t> bytes)
{
  static constexpr char k_digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (uint8_t b : bytes) {
    out.push_back(k_digits[b >> 4]);
    out.push_back(k_digits[b & 15]);
  }
  return out;
}

std::string to_hex(const Sha256& digest)
{
  return to_hex(std::span<const uint8_t>(digest));
}

std::string hash_to_hex(uint64_t hash)
{
  char buffer[17] = {};
  auto [end, ec] = std::to_chars(buffer, buffer + 16, hash, 16);
  std::string digits(buffer, end);
  return std::string(16 - digits.size(), '0') + digits;
}

std::optional<Sha256> parse_sha256_hex(std::string_view hex)
{
  if (hex.size() != 64) {
    return std::nullopt;
  }
  Sha256 digest{};
  for (size_t i = 0; i < digest.size(); ++i) {
    std::optional<uint8_t> high = hex_value(hex[2 * i]);
    std::optional<uint8_t> low = hex_value(hex[2 * i + 1]);
    if (!high || !low) {
      return std::nullopt;
    }
    digest[i] = static_cast<uint8_t>(*high << 4 | *low);
  }
  return digest;
}

std::optional<uint64_t> parse_hash_hex(std::string_view hex)
{
  if (hex.size() != 16) {
    return std::nullopt;
  }
  uint64_t value = 0;
  for (char c : hex) {
    std::optional<uint8_t> digit = hex_value(c);
    if (!digit) {
      return std::nullopt;
    }
    value = value << 4 | *digit;
  }
  return value;
}

} // namespace d4r
