#include "trust/signing_key.hpp"

#include "trust/openssl_error.hpp"

#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include <memory>
#include <utility>

namespace d4r::trust {

namespace {

struct BioFree {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};
struct PkeyCtxFree {
  void operator()(EVP_PKEY_CTX* context) const { EVP_PKEY_CTX_free(context); }
};

EVP_PKEY* pkey_of(void* key)
{
  return static_cast<EVP_PKEY*>(key);
}

} // namespace

Expected<SigningKey> SigningKey::adopt(void* key, std::string_view origin)
{
  PublicKey public_key;
  size_t length = public_key.raw.size();
  if (EVP_PKEY_get_raw_public_key(pkey_of(key), public_key.raw.data(), &length) != 1 ||
      length != public_key.raw.size()) {
    EVP_PKEY_free(pkey_of(key));
    return make_error(ErrorCode::internal, std::string(origin) + ": cannot read the public half: " +
                                               take_openssl_errors());
  }
  return SigningKey(key, public_key);
}

Expected<SigningKey> SigningKey::generate()
{
  std::unique_ptr<EVP_PKEY_CTX, PkeyCtxFree> context(
      EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nullptr));
  EVP_PKEY* key = nullptr;
  if (context == nullptr || EVP_PKEY_keygen_init(context.get()) != 1 ||
      EVP_PKEY_keygen(context.get(), &key) != 1) {
    return make_error(ErrorCode::internal,
                      "signing key: cannot generate an Ed25519 key: " + take_openssl_errors());
  }
  return adopt(key, "signing key");
}

Expected<SigningKey> SigningKey::from_pem(std::string_view pem, std::string_view origin)
{
  std::string name(origin);
  if (pem.find("-----BEGIN ") == std::string_view::npos) {
    return make_error(ErrorCode::corrupt, name + ": not a PEM file (no -----BEGIN line)");
  }
  std::unique_ptr<BIO, BioFree> bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  // No password callback: an encrypted key would wait for a terminal the daemon does not have.
  EVP_PKEY* key = bio ? PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, const_cast<char*>(""))
                      : nullptr;
  if (key == nullptr) {
    return make_error(ErrorCode::corrupt,
                      name + ": not a readable PEM private key: " + take_openssl_errors());
  }
  if (EVP_PKEY_get_id(key) != EVP_PKEY_ED25519) {
    std::string type = EVP_PKEY_get0_type_name(key) ? EVP_PKEY_get0_type_name(key) : "unknown";
    EVP_PKEY_free(key);
    return make_error(ErrorCode::corrupt, name + ": a " + type + " key, not Ed25519");
  }
  return adopt(key, origin);
}

SigningKey::~SigningKey()
{
  EVP_PKEY_free(pkey_of(m_key));
}

SigningKey::SigningKey(SigningKey&& other) noexcept
    : m_key(std::exchange(other.m_key, nullptr)), m_public(other.m_public)
{
}

SigningKey& SigningKey::operator=(SigningKey&& other) noexcept
{
  if (this != &other) {
    EVP_PKEY_free(pkey_of(m_key));
    m_key = std::exchange(other.m_key, nullptr);
    m_public = other.m_public;
  }
  return *this;
}

Expected<std::string> SigningKey::to_pem() const
{
  std::unique_ptr<BIO, BioFree> bio(BIO_new(BIO_s_mem()));
  if (bio == nullptr ||
      PEM_write_bio_PrivateKey(bio.get(), pkey_of(m_key), nullptr, nullptr, 0, nullptr, nullptr) !=
          1) {
    return make_error(ErrorCode::internal,
                      "signing key: cannot write PEM: " + take_openssl_errors());
  }
  char* data = nullptr;
  long size = BIO_get_mem_data(bio.get(), &data);
  return std::string(data, static_cast<size_t>(size));
}

Expected<Signature> SigningKey::sign(std::span<const std::byte> message) const
{
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> context(EVP_MD_CTX_new());
  Signature signature{};
  size_t length = signature.size();
  if (context == nullptr ||
      EVP_DigestSignInit(context.get(), nullptr, nullptr, nullptr, pkey_of(m_key)) != 1 ||
      EVP_DigestSign(context.get(), signature.data(), &length,
                     reinterpret_cast<const unsigned char*>(message.data()), message.size()) != 1 ||
      length != signature.size()) {
    return make_error(ErrorCode::internal, "signing key: cannot sign: " + take_openssl_errors());
  }
  return signature;
}

} // namespace d4r::trust
