// A result signed with its cache key text and launch metadata digest: any bit of the object, the
// key text, the metadata digest or the signature changed is refused, as is another signer, an
// unsigned result and an unknown version.

#include "trust/object_signature.hpp"

#include <gtest/gtest.h>

namespace d4r::trust {
namespace {

struct Fixture {
  SigningKey key = std::move(*SigningKey::generate());
  std::vector<std::byte> object = std::vector<std::byte>(4096, std::byte{0x5a});
  std::string key_text = "d4r_example_layer|gfx1201|fast|8baeb925f177af87|llvm 19.1.7";
  Sha256 metadata = sha256(std::string_view("launch metadata v1"));

  SignedFields fields() const { return {key_text, object, metadata}; }
  std::string signature() const { return to_text(*sign_object(key, fields())); }
};

TEST(TrustObjectSignature, TheSignedMessageIsExactlyVersionOne)
{
  std::vector<std::byte> object = {std::byte{'a'}, std::byte{'b'}, std::byte{'c'}};
  Sha256 metadata{};
  std::string message = signed_message_v1({"k|x", object, metadata});
  EXPECT_EQ(message, "d4r-kerneld signed object v1\n"
                     "key-bytes 3\n"
                     "k|x\n"
                     "object-sha256 ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad\n"
                     "object-bytes 3\n"
                     "metadata-sha256 "
                     "0000000000000000000000000000000000000000000000000000000000000000\n");
}

TEST(TrustObjectSignature, RoundTrip)
{
  Fixture f;
  std::string text = f.signature();
  EXPECT_TRUE(text.starts_with("v1 " + to_text(f.key.public_key()) + " ")) << text;
  Expected<void> verified = verify_object(f.key.public_key(), f.fields(), text);
  EXPECT_TRUE(verified) << verified.error().message;
}

TEST(TrustObjectSignature, AFlippedObjectBitIsRefused)
{
  Fixture f;
  std::string text = f.signature();
  for (size_t at : {size_t{0}, size_t{2048}, size_t{4095}}) {
    Fixture g;
    g.object[at] ^= std::byte{0x01};
    Expected<void> verified = verify_object(f.key.public_key(), g.fields(), text);
    ASSERT_FALSE(verified) << at;
    EXPECT_EQ(verified.error().code, ErrorCode::rejected);
    EXPECT_NE(verified.error().message.find("does not match the object, key and metadata"),
              std::string::npos)
        << verified.error().message;
  }
  Fixture longer;
  longer.object.push_back(std::byte{0});
  EXPECT_FALSE(verify_object(f.key.public_key(), longer.fields(), text));
}

// The replay the key text prevents: an object signed for one key offered for another.
TEST(TrustObjectSignature, AnotherKeyTextOrMetadataIsRefused)
{
  Fixture f;
  std::string text = f.signature();
  SignedFields fields = f.fields();
  std::string accuracy = "d4r_example_layer|gfx1201|accuracy|8baeb925f177af87|llvm 19.1.7";
  fields.key_text = accuracy;
  EXPECT_FALSE(verify_object(f.key.public_key(), fields, text));
  std::string flipped = f.key_text;
  flipped[5] ^= 0x20;
  fields.key_text = flipped;
  EXPECT_FALSE(verify_object(f.key.public_key(), fields, text));
  fields.key_text = f.key_text + " "; // a key text one byte longer
  EXPECT_FALSE(verify_object(f.key.public_key(), fields, text));
  fields = f.fields();
  fields.metadata_digest[31] ^= 0x80;
  EXPECT_FALSE(verify_object(f.key.public_key(), fields, text));
}

TEST(TrustObjectSignature, AFlippedSignatureIsRefused)
{
  Fixture f;
  std::string text = f.signature();
  ObjectSignature parsed = *parse_object_signature(text);
  for (size_t byte : {size_t{0}, size_t{31}, size_t{63}}) {
    ObjectSignature flipped = parsed;
    flipped.signature[byte] ^= 0x04;
    EXPECT_FALSE(verify_object(f.key.public_key(), f.fields(), to_text(flipped))) << byte;
  }
}

TEST(TrustObjectSignature, AnotherSignerIsRefusedAndNamed)
{
  Fixture f;
  SigningKey pinned = std::move(*SigningKey::generate());
  Expected<void> verified = verify_object(pinned.public_key(), f.fields(), f.signature());
  ASSERT_FALSE(verified);
  EXPECT_NE(verified.error().message.find("signed by " + to_text(f.key.public_key()) +
                                          ", not by the pinned " + to_text(pinned.public_key())),
            std::string::npos)
      << verified.error().message;
  // Naming the pinned key in the text changes nothing: only the real signature counts.
  ObjectSignature forged = *parse_object_signature(f.signature());
  forged.signer = pinned.public_key();
  EXPECT_FALSE(verify_object(pinned.public_key(), f.fields(), to_text(forged)));
}

TEST(TrustObjectSignature, UnsignedMalformedOrUnknownVersionIsRefused)
{
  Fixture f;
  Expected<void> unsigned_result = verify_object(f.key.public_key(), f.fields(), "");
  ASSERT_FALSE(unsigned_result);
  EXPECT_EQ(unsigned_result.error().code, ErrorCode::rejected);
  EXPECT_NE(unsigned_result.error().message.find(": unsigned, refused"), std::string::npos)
      << unsigned_result.error().message;
  EXPECT_NE(unsigned_result.error().message.find(f.key_text), std::string::npos);
  std::string text = f.signature();
  std::string v2 = "v2" + text.substr(2);
  Expected<void> later = verify_object(f.key.public_key(), f.fields(), v2);
  ASSERT_FALSE(later);
  EXPECT_NE(later.error().message.find("version 'v2' is not known here"), std::string::npos)
      << later.error().message;
  EXPECT_FALSE(verify_object(f.key.public_key(), f.fields(), "v1"));
  EXPECT_FALSE(verify_object(f.key.public_key(), f.fields(), text.substr(0, text.size() - 4)));
  EXPECT_FALSE(verify_object(f.key.public_key(), f.fields(), text + "AAAA"));
}

} // namespace
} // namespace d4r::trust
