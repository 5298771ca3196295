// client/object_file: VerifiedObjects hands out again only bytes it verified, for the same digest
// and path while the file's stamp holds; a replaced, rewritten or not yet settled file is read and
// hashed again, so that damage is still found (and reported by the client) at the next resolve.

#include "client/object_file.hpp"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

namespace {

namespace fs = std::filesystem;
using d4r::ErrorCode;
using d4r::client::ObjectBytes;
using d4r::client::VerifiedObjects;
using namespace std::chrono_literals;

std::chrono::steady_clock::time_point soon()
{
  return std::chrono::steady_clock::now() + 5s;
}

void write_file(const fs::path& path, const std::string& bytes)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// One byte flipped where it lies: same inode, same size.
void flip_in_place(const fs::path& path, std::streamoff at)
{
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(at);
  char byte = 0;
  file.read(&byte, 1);
  file.seekp(at);
  byte = static_cast<char>(byte ^ 0x01);
  file.write(&byte, 1);
}

class ClientObjectFile : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (fs::path(::testing::TempDir()) / "client_object_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
    m_bytes = std::string(10000, 'a');
    for (size_t i = 0; i < m_bytes.size(); ++i) {
      m_bytes[i] = static_cast<char>('a' + i % 23);
    }
    m_digest = d4r::sha256(m_bytes);
    m_path = m_dir / "object";
    write_file(m_path, m_bytes);
  }
  void TearDown() override { fs::remove_all(m_dir); }

  d4r::Expected<ObjectBytes> read(VerifiedObjects& objects, const fs::path& path)
  {
    return objects.read(path.string(), static_cast<int64_t>(m_bytes.size()), m_digest, soon());
  }

  fs::path m_dir;
  fs::path m_path;
  std::string m_bytes;
  d4r::Sha256 m_digest{};
};

// Settled after 50 ms in these tests (2 s in the client), checked again after a minute.
constexpr VerifiedObjects::Rules k_quick{50ms, 60000ms};

TEST_F(ClientObjectFile, AnUnchangedSettledFileIsServedFromTheBytesVerifiedBefore)
{
  VerifiedObjects objects(k_quick);
  std::this_thread::sleep_for(100ms);
  d4r::Expected<ObjectBytes> first = read(objects, m_path);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_EQ(**first, m_bytes);
  d4r::Expected<ObjectBytes> second = read(objects, m_path);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_EQ(first->get(), second->get()); // not read again
  EXPECT_EQ(objects.size(), 1U);
}

TEST_F(ClientObjectFile, AFileOfTheSameSizeRenamedOverItIsHashedAgain)
{
  VerifiedObjects objects(k_quick);
  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(read(objects, m_path));
  std::string other = m_bytes;
  other[5000] = 'Z';
  write_file(m_dir / "replacement", other);
  fs::rename(m_dir / "replacement", m_path);
  d4r::Expected<ObjectBytes> again = read(objects, m_path);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::corrupt) << again.error().message;
  EXPECT_EQ(objects.size(), 0U); // forgotten: the file it was read from is gone
}

TEST_F(ClientObjectFile, AFileDamagedInPlaceIsHashedAgain)
{
  VerifiedObjects objects(k_quick);
  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(read(objects, m_path));
  flip_in_place(m_path, 100); // same inode and size; the write moves its ctime
  d4r::Expected<ObjectBytes> again = read(objects, m_path);
  ASSERT_FALSE(again);
  EXPECT_EQ(again.error().code, ErrorCode::corrupt) << again.error().message;
}

// A change in the same clock tick as the file's last one can leave its stamp as it was: a file
// read before it settled is not kept, so damage made at once after the read is still found.
TEST_F(ClientObjectFile, AFileReadBeforeItSettledIsReadAgainEachTime)
{
  VerifiedObjects objects(VerifiedObjects::Rules{10000ms, 60000ms});
  d4r::Expected<ObjectBytes> first = read(objects, m_path);
  ASSERT_TRUE(first) << first.error().message;
  d4r::Expected<ObjectBytes> second = read(objects, m_path);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_NE(first->get(), second->get());
  EXPECT_EQ(objects.size(), 0U);
  flip_in_place(m_path, 100);
  d4r::Expected<ObjectBytes> damaged = read(objects, m_path);
  ASSERT_FALSE(damaged);
  EXPECT_EQ(damaged.error().code, ErrorCode::corrupt) << damaged.error().message;
}

TEST_F(ClientObjectFile, KeptBytesAreHashedAgainAfterRecheckAfter)
{
  VerifiedObjects objects(VerifiedObjects::Rules{50ms, 200ms});
  std::this_thread::sleep_for(100ms);
  d4r::Expected<ObjectBytes> first = read(objects, m_path);
  ASSERT_TRUE(first);
  std::this_thread::sleep_for(300ms);
  d4r::Expected<ObjectBytes> later = read(objects, m_path);
  ASSERT_TRUE(later) << later.error().message;
  EXPECT_NE(first->get(), later->get()); // read and verified anew
  EXPECT_EQ(**later, m_bytes);
}

TEST_F(ClientObjectFile, AnotherPathWithTheSameDigestIsReadItself)
{
  VerifiedObjects objects(k_quick);
  fs::path copy = m_dir / "copy";
  fs::copy_file(m_path, copy);
  std::this_thread::sleep_for(100ms);
  d4r::Expected<ObjectBytes> first = read(objects, m_path);
  ASSERT_TRUE(first);
  flip_in_place(copy, 7);
  d4r::Expected<ObjectBytes> other = read(objects, copy);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, ErrorCode::corrupt) << other.error().message;
}

TEST_F(ClientObjectFile, AMissingOrResizedFileIsAnErrorNotTheKeptBytes)
{
  VerifiedObjects objects(k_quick);
  std::this_thread::sleep_for(100ms);
  ASSERT_TRUE(read(objects, m_path));
  write_file(m_path, m_bytes + "x");
  d4r::Expected<ObjectBytes> longer = read(objects, m_path);
  ASSERT_FALSE(longer);
  EXPECT_EQ(longer.error().code, ErrorCode::corrupt) << longer.error().message;
  fs::remove(m_path);
  d4r::Expected<ObjectBytes> missing = read(objects, m_path);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::io) << missing.error().message;
}

} // namespace
