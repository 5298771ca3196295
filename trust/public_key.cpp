#include "trust/public_key.hpp"

#include "trust/base64.hpp"
#include "trust/openssl_error.hpp"

#include <openssl/evp.h>

#include <algorithm>
#include <memory>

namespace d4r::trust {

namespace {

struct PkeyFree {
  void operator()(EVP_PKEY* key) const { EVP_PKEY_free(key); }
};
struct MdCtxFree {
  void operator()(EVP_MD_CTX* context) const { EVP_MD_CTX_free(context); }
};

} // namespace

std::string to_text(const PublicKey& key)
{
  return std::string(k_public_key_prefix) + base64_encode(key.raw);
}

Expected<PublicKey> parse_public_key(std::string_view text)
{
  std::string shown(text.substr(0, 80));
  if (!text.starts_with(k_public_key_prefix)) {
    return make_error(ErrorCode::invalid_argument,
                      "public key '" + shown + "': expected ed25519:BASE64 (d4r-kernel key show)");
  }
  std::optional<std::vector<uint8_t>> raw = base64_decode(text.substr(k_public_key_prefix.size()));
  if (!raw || raw->size() != k_ed25519_public_key_bytes) {
    return make_error(ErrorCode::invalid_argument,
                      "public key '" + shown + "': not the base64 of 32 bytes");
  }
  PublicKey key;
  std::copy(raw->begin(), raw->end(), key.raw.begin());
  return key;
}

Expected<void> verify_signature(const PublicKey& key, std::span<const std::byte> message,
                                std::span<const uint8_t> signature)
{
  if (signature.size() != k_ed25519_signature_bytes) {
    return make_error(ErrorCode::rejected, "signature: " + std::to_string(signature.size()) +
                                               " bytes, an Ed25519 signature has 64");
  }
  std::unique_ptr<EVP_PKEY, PkeyFree> pkey(EVP_PKEY_new_raw_public_key(
      EVP_PKEY_ED25519, nullptr, key.raw.data(), key.raw.size()));
  std::unique_ptr<EVP_MD_CTX, MdCtxFree> context(EVP_MD_CTX_new());
  if (pkey == nullptr || context == nullptr ||
      EVP_DigestVerifyInit(context.get(), nullptr, nullptr, nullptr, pkey.get()) != 1) {
    return make_error(ErrorCode::internal,
                      "signature: cannot set up Ed25519 verification: " + take_openssl_errors());
  }
  int verified = EVP_DigestVerify(context.get(), signature.data(), signature.size(),
                                  reinterpret_cast<const unsigned char*>(message.data()),
                                  message.size());
  if (verified != 1) {
    static_cast<void>(take_openssl_errors()); // a bad signature is no library failure
    return make_error(ErrorCode::rejected, "signature: does not verify with " + to_text(key));
  }
  return {};
}

} // namespace d4r::trust
