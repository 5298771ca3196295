#pragma once
// A build server's Ed25519 private key: made, written as PEM (PKCS #8, as `openssl genpkey
// -algorithm ed25519` writes it, so OpenSSL's own tools can read it), read back and used to sign.
// Where it lives and with which mode is key_file.hpp's business.

#include "trust/public_key.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace d4r::trust {

class SigningKey {
public:
  // A fresh key from OpenSSL's random generator.
  [[nodiscard]] static Expected<SigningKey> generate();
  // `origin` names the key in errors (its path). Anything but one Ed25519 private key is refused.
  [[nodiscard]] static Expected<SigningKey> from_pem(std::string_view pem, std::string_view origin);

  ~SigningKey();
  SigningKey(SigningKey&& other) noexcept;
  SigningKey& operator=(SigningKey&& other) noexcept;
  SigningKey(const SigningKey&) = delete;
  SigningKey& operator=(const SigningKey&) = delete;

  [[nodiscard]] Expected<std::string> to_pem() const;
  [[nodiscard]] const PublicKey& public_key() const { return m_public; }
  [[nodiscard]] Expected<Signature> sign(std::span<const std::byte> message) const;

private:
  SigningKey(void* key, const PublicKey& public_key) : m_key(key), m_public(public_key) {}
  [[nodiscard]] static Expected<SigningKey> adopt(void* key, std::string_view origin);

  void* m_key; // EVP_PKEY*, opaque so that callers need no OpenSSL header (as util/digest.hpp)
  PublicKey m_public;
};

} // namespace d4r::trust
