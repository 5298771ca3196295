#include "util/digest.hpp"

#include "tests/support/read_file.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace d4r {
namespace {

using d4r::testing::read_file;

TEST(Fnv1a64, KnownVectors)
{
  // Reference values of the FNV-1a 64 specification (Fowler/Noll/Vo test suite).
  EXPECT_EQ(fnv1a64(std::string_view("")), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64(std::string_view("a")), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64(std::string_view("foobar")), 0x85944171f73967e8ULL);
}

TEST(Fnv1a64, FixtureModuleMatchesIndependentComputation)
{
  // Computed independently with a Python loop over the bytes (tests/ptx/README.md).
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/sr_module.ptx");
  ASSERT_FALSE(ptx.empty());
  EXPECT_EQ(hash_to_hex(fnv1a64(std::string_view(ptx))), "8baeb925f177af87");
}

TEST(Sha256, KnownVectors)
{
  EXPECT_EQ(to_hex(sha256(std::string_view("abc"))),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(to_hex(sha256(std::string_view(""))),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(Sha256, IncrementalEqualsOneShot)
{
  std::string text(100000, 'x');
  for (size_t i = 0; i < text.size(); ++i) {
    text[i] = static_cast<char>('a' + i % 26);
  }
  Sha256Hasher hasher;
  std::string_view view(text);
  hasher.update({reinterpret_cast<const std::byte*>(view.data()), 777});
  hasher.update({reinterpret_cast<const std::byte*>(view.data()) + 777, view.size() - 777});
  EXPECT_EQ(hasher.finish(), sha256(view));
}

TEST(HexParsing, RoundTripsAndRefusesBadInput)
{
  EXPECT_EQ(hash_to_hex(0x1ULL), "0000000000000001");
  EXPECT_EQ(parse_hash_hex("8baeb925f177af87"), 0x8baeb925f177af87ULL);
  EXPECT_EQ(parse_hash_hex("8BAEB925F177AF87"), 0x8baeb925f177af87ULL);
  EXPECT_FALSE(parse_hash_hex("8baeb925f177af8"));   // short
  EXPECT_FALSE(parse_hash_hex("8baeb925f177af870")); // long
  EXPECT_FALSE(parse_hash_hex("8baeb925f177afzz"));  // not hex
  Sha256 digest = sha256(std::string_view("abc"));
  EXPECT_EQ(parse_sha256_hex(to_hex(digest)), digest);
  EXPECT_FALSE(parse_sha256_hex(to_hex(digest).substr(1)));
}

} // namespace
} // namespace d4r
