#include "trust/object_signature.hpp"

#include "trust/base64.hpp"

#include <algorithm>

namespace d4r::trust {

namespace {

constexpr std::string_view k_version_v1 = "v1";

std::span<const std::byte> as_bytes(std::string_view text)
{
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

std::string shown_key(std::string_view key_text)
{
  return key_text.size() > 120 ? std::string(key_text.substr(0, 120)) + "..."
                               : std::string(key_text);
}

} // namespace

std::string signed_message_v1(const SignedFields& fields)
{
  std::string message;
  message.reserve(fields.key_text.size() + 256);
  message += k_signed_object_v1;
  message += "\nkey-bytes " + std::to_string(fields.key_text.size()) + "\n";
  message += fields.key_text;
  message += "\nobject-sha256 " + to_hex(sha256(fields.object)) + "\n";
  message += "object-bytes " + std::to_string(fields.object.size()) + "\n";
  message += "metadata-sha256 " + to_hex(fields.metadata_digest) + "\n";
  return message;
}

Expected<ObjectSignature> sign_object(const SigningKey& key, const SignedFields& fields)
{
  TRY_ASSIGN(Signature signature, key.sign(as_bytes(signed_message_v1(fields))));
  return ObjectSignature{key.public_key(), signature};
}

std::string to_text(const ObjectSignature& signature)
{
  return std::string(k_version_v1) + " " + to_text(signature.signer) + " " +
         base64_encode(signature.signature);
}

Expected<ObjectSignature> parse_object_signature(std::string_view text)
{
  size_t first = text.find(' ');
  size_t second = first == std::string_view::npos ? first : text.find(' ', first + 1);
  if (second == std::string_view::npos) {
    return make_error(ErrorCode::rejected,
                      "signature: expected 'v1 ed25519:KEY SIGNATURE', got '" +
                          std::string(text.substr(0, 64)) + "'");
  }
  std::string_view version = text.substr(0, first);
  if (version != k_version_v1) {
    return make_error(ErrorCode::rejected, "signature: version '" +
                                               std::string(version.substr(0, 16)) +
                                               "' is not known here (this build knows v1)");
  }
  Expected<PublicKey> signer = parse_public_key(text.substr(first + 1, second - first - 1));
  if (!signer) {
    return make_error(ErrorCode::rejected, "signature: signer " + signer.error().message);
  }
  std::optional<std::vector<uint8_t>> bytes = base64_decode(text.substr(second + 1));
  if (!bytes || bytes->size() != k_ed25519_signature_bytes) {
    return make_error(ErrorCode::rejected, "signature: not the base64 of 64 bytes");
  }
  ObjectSignature signature{*signer, {}};
  std::copy(bytes->begin(), bytes->end(), signature.signature.begin());
  return signature;
}

Expected<void> verify_object(const PublicKey& pinned, const SignedFields& fields,
                             std::string_view signature_text)
{
  std::string what = "result for " + shown_key(fields.key_text);
  if (signature_text.empty()) {
    return make_error(ErrorCode::rejected, what + ": unsigned, refused (pinned " +
                                               to_text(pinned) + ")");
  }
  Expected<ObjectSignature> signature = parse_object_signature(signature_text);
  if (!signature) {
    return make_error(ErrorCode::rejected, what + ": " + signature.error().message + ", refused");
  }
  if (signature->signer != pinned) {
    return make_error(ErrorCode::rejected, what + ": signed by " + to_text(signature->signer) +
                                               ", not by the pinned " + to_text(pinned) +
                                               ", refused");
  }
  Expected<void> verified = verify_signature(pinned, as_bytes(signed_message_v1(fields)),
                                             signature->signature);
  if (!verified) {
    return make_error(ErrorCode::rejected,
                      what + ": the signature does not match the object, key and metadata " +
                          "(altered on the way or signed for another key), refused");
  }
  return {};
}

} // namespace d4r::trust
