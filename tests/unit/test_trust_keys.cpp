// Ed25519 through OpenSSL's EVP: keys made, written as PEM and read back, signatures checked,
// the public key's pinnable text and base64 with one spelling only.

#include "trust/base64.hpp"
#include "trust/public_key.hpp"
#include "trust/signing_key.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

namespace d4r::trust {
namespace {

std::span<const std::byte> bytes_of(std::string_view text)
{
  return {reinterpret_cast<const std::byte*>(text.data()), text.size()};
}

SigningKey make_key()
{
  Expected<SigningKey> key = SigningKey::generate();
  EXPECT_TRUE(key) << key.error().message;
  return std::move(*key);
}

TEST(TrustBase64, RoundTripsAndRefusesOtherSpellings)
{
  std::vector<uint8_t> bytes = {0x00, 0xff, 0x10, 0x80};
  std::string text = base64_encode(bytes);
  EXPECT_EQ(text, "AP8QgA==");
  EXPECT_EQ(base64_decode(text), bytes);
  EXPECT_EQ(base64_encode(std::vector<uint8_t>{'f', 'o', 'o'}), "Zm9v");
  EXPECT_FALSE(base64_decode(""));
  EXPECT_FALSE(base64_decode("AP8QgA="));   // not a multiple of 4
  EXPECT_FALSE(base64_decode(" AP8QgA==")); // OpenSSL would skip the space
  EXPECT_FALSE(base64_decode("AP8QgB=="));  // trailing bits set: another spelling of the bytes
  EXPECT_FALSE(base64_decode("AP8Q*A=="));
}

// RFC 8032 section 7.1, test 1: the empty message, so our EVP use is Ed25519 and not a variant.
TEST(TrustKeys, VerifiesTheRfc8032Vector)
{
  Expected<PublicKey> key =
      parse_public_key("ed25519:11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=");
  ASSERT_TRUE(key) << key.error().message;
  std::optional<std::vector<uint8_t>> signature = base64_decode(
      "5VZDAMNgrHKQhuLMgG6CioSHfx645dl02HPgZSJJAVVfuIIVkKM7rMYeOXAc+bRr0lv18FlbviRlUUFDjnoQCw==");
  ASSERT_TRUE(signature);
  EXPECT_TRUE(verify_signature(*key, {}, *signature));
  EXPECT_FALSE(verify_signature(*key, bytes_of("x"), *signature));
}

TEST(TrustKeys, SignVerifyRoundTrip)
{
  SigningKey key = make_key();
  Expected<Signature> signature = key.sign(bytes_of("message"));
  ASSERT_TRUE(signature) << signature.error().message;
  EXPECT_TRUE(verify_signature(key.public_key(), bytes_of("message"), *signature));
  Expected<void> other = verify_signature(key.public_key(), bytes_of("messagE"), *signature);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, ErrorCode::rejected);
  // Ed25519 is deterministic: the same key and message give the same signature.
  EXPECT_EQ(*key.sign(bytes_of("message")), *signature);
}

TEST(TrustKeys, AnotherKeyIsRefused)
{
  SigningKey key = make_key();
  SigningKey other = make_key();
  EXPECT_NE(key.public_key(), other.public_key());
  Signature signature = *key.sign(bytes_of("message"));
  EXPECT_FALSE(verify_signature(other.public_key(), bytes_of("message"), signature));
}

TEST(TrustKeys, AFlippedSignatureBitOrAWrongLengthIsRefused)
{
  SigningKey key = make_key();
  Signature signature = *key.sign(bytes_of("message"));
  for (size_t bit : {size_t{0}, size_t{257}, size_t{511}}) {
    Signature flipped = signature;
    flipped[bit / 8] ^= static_cast<uint8_t>(1U << (bit % 8));
    EXPECT_FALSE(verify_signature(key.public_key(), bytes_of("message"), flipped)) << bit;
  }
  Expected<void> short_one = verify_signature(key.public_key(), bytes_of("message"),
                                              std::span(signature).first(63));
  ASSERT_FALSE(short_one);
  EXPECT_NE(short_one.error().message.find("63 bytes"), std::string::npos);
}

TEST(TrustKeys, PemRoundTripKeepsTheKey)
{
  SigningKey key = make_key();
  Expected<std::string> pem = key.to_pem();
  ASSERT_TRUE(pem) << pem.error().message;
  EXPECT_TRUE(pem->starts_with("-----BEGIN PRIVATE KEY-----\n")) << *pem;
  Expected<SigningKey> back = SigningKey::from_pem(*pem, "test.key");
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->public_key(), key.public_key());
  Signature signature = *back->sign(bytes_of("m"));
  EXPECT_TRUE(verify_signature(key.public_key(), bytes_of("m"), signature));
}

// The key as OpenSSL's own tool writes it (`openssl genpkey -algorithm ed25519`): RFC 8410's
// example private key, whose public half is known.
TEST(TrustKeys, ReadsAKeyOpensslWrote)
{
  const char* pem = "-----BEGIN PRIVATE KEY-----\n"
                    "MC4CAQAwBQYDK2VwBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC\n"
                    "-----END PRIVATE KEY-----\n";
  Expected<SigningKey> key = SigningKey::from_pem(pem, "rfc8410.key");
  ASSERT_TRUE(key) << key.error().message;
  EXPECT_EQ(to_text(key->public_key()), "ed25519:Gb9ECWmEzf6FQbrBZ9w7lshQhqowtrbLDFw4rXAxZuE=");
}

TEST(TrustKeys, MalformedPemIsAClearError)
{
  Expected<SigningKey> none = SigningKey::from_pem("hello", "/state/signing.key");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().code, ErrorCode::corrupt);
  EXPECT_EQ(none.error().message, "/state/signing.key: not a PEM file (no -----BEGIN line)");
  std::string pem = *make_key().to_pem();
  std::string cut = pem.substr(0, pem.size() / 2);
  Expected<SigningKey> half = SigningKey::from_pem(cut, "/state/signing.key");
  ASSERT_FALSE(half);
  EXPECT_EQ(half.error().code, ErrorCode::corrupt);
  EXPECT_NE(half.error().message.find("/state/signing.key: not a readable PEM private key: "),
            std::string::npos)
      << half.error().message;
  std::string damaged = pem;
  damaged[40] = damaged[40] == 'A' ? 'B' : 'A'; // inside the base64 body
  EXPECT_FALSE(SigningKey::from_pem(damaged, "k"));
}

// RFC 8410's example bytes under the X25519 identifier (1.3.101.110): a key OpenSSL reads,
// but one for key agreement, not the kind that signs results.
TEST(TrustKeys, AnotherKeyTypeIsRefused)
{
  const char* x25519 = "-----BEGIN PRIVATE KEY-----\n"
                       "MC4CAQAwBQYDK2VuBCIEINTuctv5E1hK1bbY8fdp+K06/nwoy/HU++CXqI9EdVhC\n"
                       "-----END PRIVATE KEY-----\n";
  Expected<SigningKey> key = SigningKey::from_pem(x25519, "x.key");
  ASSERT_FALSE(key);
  EXPECT_NE(key.error().message.find("not Ed25519"), std::string::npos) << key.error().message;
}

TEST(TrustKeys, PublicKeyTextRoundTripsAndIsStrict)
{
  SigningKey key = make_key();
  std::string text = to_text(key.public_key());
  EXPECT_TRUE(text.starts_with("ed25519:"));
  EXPECT_EQ(text.size(), 8u + 44u);
  Expected<PublicKey> back = parse_public_key(text);
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(*back, key.public_key());
  EXPECT_FALSE(parse_public_key(text.substr(8)));          // no type
  EXPECT_FALSE(parse_public_key("ssh-ed25519:" + text.substr(8)));
  EXPECT_FALSE(parse_public_key(text + "\n"));
  EXPECT_FALSE(parse_public_key("ed25519:AAAA"));          // 3 bytes
  std::string flipped = text;
  flipped[12] = flipped[12] == 'A' ? 'B' : 'A';
  Expected<PublicKey> other = parse_public_key(flipped);
  ASSERT_TRUE(other);
  EXPECT_NE(*other, key.public_key());
}

} // namespace
} // namespace d4r::trust
