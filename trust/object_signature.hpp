#pragma once
// A build server's signature over one result: the code object's bytes together with the cache
// key they answer and the digest of their launch metadata, so that a signature cannot be replayed
// for another key (a fast-mode object offered as the accuracy one, gfx1100 code as gfx1201) or
// with other metadata (a wrong kernarg size, a missing _prep kernel).
//
// The signed message, version 1, is this text with every field on its own line:
//
//   d4r-kerneld signed object v1
//   key-bytes N                     the length of the key text, then the key text on one line
//   KEY TEXT                        (length-prefixed, so no key text can end early)
//   object-sha256 HEX               64 lowercase hex digits of SHA-256(object bytes)
//   object-bytes N                  the object's size
//   metadata-sha256 HEX             SHA-256 of the launch metadata's encoding
//
// each line ending in "\n". The first line is the domain separation: the key signs nothing else
// with this prefix, and a later layout gets a new version line, never a changed v1. Ed25519 signs
// the message itself (it hashes internally with SHA-512); the object enters through its SHA-256,
// which the receiving store computes anyway.
//
// A signature travels as text: "v1 ed25519:PUBLIC SIGNATURE" (the signer's public key, then 88
// base64 characters of the 64 signature bytes). Naming the signer lets a refusal say which key
// signed; trust comes only from the pinned key, never from the key the text names.

#include "trust/public_key.hpp"
#include "trust/signing_key.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace d4r::trust {

inline constexpr std::string_view k_signed_object_v1 = "d4r-kerneld signed object v1";

struct SignedFields {
  std::string_view key_text;         // the cache key's one text form
  std::span<const std::byte> object; // the code object as served
  Sha256 metadata_digest{};          // SHA-256 of the launch metadata's encoding
};

struct ObjectSignature {
  PublicKey signer;
  Signature signature{};
};

[[nodiscard]] std::string signed_message_v1(const SignedFields& fields);

[[nodiscard]] Expected<ObjectSignature> sign_object(const SigningKey& key,
                                                    const SignedFields& fields);

[[nodiscard]] std::string to_text(const ObjectSignature& signature);
[[nodiscard]] Expected<ObjectSignature> parse_object_signature(std::string_view text);

// What comes back from a build server, checked against the key the user pinned: an empty
// `signature_text` (unsigned), an unknown version, another signer or a signature that does not
// verify over these fields is ErrorCode::rejected, the message naming the key text and why.
[[nodiscard]] Expected<void> verify_object(const PublicKey& pinned, const SignedFields& fields,
                                           std::string_view signature_text);

} // namespace d4r::trust
