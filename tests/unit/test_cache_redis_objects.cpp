// Objects by digest and the index against a real redis-server: what is stored is named by its
// SHA-256 and read back only if it still hashes to that name; index entries carry the digest and
// the launch metadata as the bytes given.

#include "cache/remote/redis/index.hpp"
#include "cache/remote/redis/objects.hpp"
#include "tests/unit/test_cache_redis_support.hpp"

#include <gtest/gtest.h>

#include <span>

namespace d4r::cache::redis {
namespace {

using namespace std::chrono_literals;
using testing::RedisTest;

std::span<const std::byte> as_bytes(std::string_view text)
{
  return std::as_bytes(std::span<const char>(text.data(), text.size()));
}

class RedisObjectsTest : public RedisTest {
protected:
  RedisConnection m_connection{m_server.unix_options()};
  RedisKeyspace m_keys{.prefix = "t:"};
  RedisObjects m_objects{m_connection, m_keys};
  RedisIndex m_index{m_connection, m_keys};
};

TEST_F(RedisObjectsTest, StoresByDigestOnceAndReadsBack)
{
  std::string bytes(1 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>(i * 7 + i / 251);
  }
  Expected<RedisPut> first = m_objects.put(as_bytes(bytes), in(2s));
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(first->digest, sha256(as_bytes(bytes)));
  EXPECT_TRUE(first->stored);
  Expected<RedisPut> second = m_objects.put(as_bytes(bytes), in(2s));
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_FALSE(second->stored) << "SET NX: the bytes were there already";

  Expected<bool> contains = m_objects.contains(first->digest, in(1s));
  ASSERT_TRUE(contains);
  EXPECT_TRUE(*contains);
  Expected<std::string> read = m_objects.get(first->digest, in(2s));
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, bytes);

  Expected<RedisReply> raw =
      m_connection.call({"STRLEN", "t:obj:" + to_hex(first->digest)}, in(1s));
  ASSERT_TRUE(raw);
  EXPECT_EQ(raw->integer, static_cast<int64_t>(bytes.size()));
}

// Past the 4 MiB of read buffer a connection keeps: hiredis grows it for the reply and frees it.
TEST_F(RedisObjectsTest, AnObjectLargerThanTheKeptReadBufferRoundTrips)
{
  std::string bytes(6 << 20, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>((i * 2654435761U) >> 13);
  }
  Expected<RedisPut> put = m_objects.put(as_bytes(bytes), in(5s));
  ASSERT_TRUE(put) << put.error().message;
  for (int i = 0; i < 2; ++i) {
    Expected<std::string> read = m_objects.get(put->digest, in(5s));
    ASSERT_TRUE(read) << read.error().message;
    EXPECT_TRUE(*read == bytes);
  }
  Expected<RedisReply> after = m_connection.call({"PING"}, in(1s));
  ASSERT_TRUE(after);
  EXPECT_EQ(after->text, "PONG");
}

TEST_F(RedisObjectsTest, AnAbsentObjectIsNotFound)
{
  Sha256 digest = sha256(std::string_view("never stored"));
  Expected<std::string> read = m_objects.get(digest, in(1s));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::not_found);
  Expected<bool> contains = m_objects.contains(digest, in(1s));
  ASSERT_TRUE(contains);
  EXPECT_FALSE(*contains);
}

TEST_F(RedisObjectsTest, ACorruptedValueIsRefusedAndDeleted)
{
  std::string bytes = "code object bytes";
  Expected<RedisPut> put = m_objects.put(as_bytes(bytes), in(1s));
  ASSERT_TRUE(put);
  std::string key = "t:obj:" + to_hex(put->digest);
  ASSERT_TRUE(m_connection.call({"SETRANGE", key, "0", "C"}, in(1s))); // one byte flipped

  Expected<std::string> read = m_objects.get(put->digest, in(1s));
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().code, ErrorCode::corrupt);
  EXPECT_NE(read.error().message.find("sha256 mismatch"), std::string::npos)
      << read.error().message;
  Expected<bool> contains = m_objects.contains(put->digest, in(1s));
  ASSERT_TRUE(contains);
  EXPECT_FALSE(*contains) << "a damaged copy would block the right bytes forever (SET NX)";

  Expected<RedisPut> again = m_objects.put(as_bytes(bytes), in(1s));
  ASSERT_TRUE(again);
  EXPECT_TRUE(again->stored);
  Expected<std::string> fixed = m_objects.get(put->digest, in(1s));
  ASSERT_TRUE(fixed) << fixed.error().message;
  EXPECT_EQ(*fixed, bytes);
}

TEST_F(RedisObjectsTest, ATtlExpiresObjects)
{
  RedisObjects expiring(m_connection, m_keys, 100ms);
  Expected<RedisPut> put = expiring.put(as_bytes("short-lived"), in(1s));
  ASSERT_TRUE(put);
  Expected<RedisReply> ttl = m_connection.call({"PTTL", "t:obj:" + to_hex(put->digest)}, in(1s));
  ASSERT_TRUE(ttl);
  EXPECT_GT(ttl->integer, 0);
  EXPECT_LE(ttl->integer, 100);
}

TEST_F(RedisObjectsTest, IndexKeepsDigestAndMetadata)
{
  Sha256 digest = sha256(std::string_view("object"));
  std::string meta("\x01\x00meta\xff", 7);
  ASSERT_TRUE(m_index.put("kernel-key-1", RedisIndexEntry{.digest = digest, .meta = meta}, in(1s)));
  Expected<RedisIndexEntry> entry = m_index.get("kernel-key-1", in(1s));
  ASSERT_TRUE(entry) << entry.error().message;
  EXPECT_EQ(entry->digest, digest);
  EXPECT_EQ(entry->meta, meta);

  Sha256 other = sha256(std::string_view("rebuilt"));
  ASSERT_TRUE(m_index.put("kernel-key-1", RedisIndexEntry{.digest = other, .meta = "m2"}, in(1s)));
  Expected<RedisIndexEntry> replaced = m_index.get("kernel-key-1", in(1s));
  ASSERT_TRUE(replaced);
  EXPECT_EQ(replaced->digest, other);
  EXPECT_EQ(replaced->meta, "m2");

  ASSERT_TRUE(m_index.remove("kernel-key-1", in(1s)));
  Expected<RedisIndexEntry> gone = m_index.get("kernel-key-1", in(1s));
  ASSERT_FALSE(gone);
  EXPECT_EQ(gone.error().code, ErrorCode::not_found);
}

TEST_F(RedisObjectsTest, AForeignIndexEntryIsCorrupt)
{
  ASSERT_TRUE(m_connection.call({"HSET", "t:idx:bad", "digest", "not-hex", "meta", ""}, in(1s)));
  Expected<RedisIndexEntry> entry = m_index.get("bad", in(1s));
  ASSERT_FALSE(entry);
  EXPECT_EQ(entry.error().code, ErrorCode::corrupt);

  ASSERT_TRUE(m_connection.call({"SET", "t:idx:string", "x"}, in(1s)));
  Expected<RedisIndexEntry> wrong_type = m_index.get("string", in(1s));
  ASSERT_FALSE(wrong_type);
  EXPECT_EQ(wrong_type.error().code, ErrorCode::rejected) << "WRONGTYPE from the server";
}

} // namespace
} // namespace d4r::cache::redis
