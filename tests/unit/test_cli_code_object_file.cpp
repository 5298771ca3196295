#include "cli/code_object_file.hpp"

#include "util/digest.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <sys/stat.h>

namespace d4r::cli {
namespace {

namespace fs = std::filesystem;

std::string raw_sha256(std::string_view text)
{
  Sha256 digest = sha256(text);
  return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

std::string slurp(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class CliCodeObjectFile : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (fs::path(::testing::TempDir()) / "cli_object_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // Entries of the directory, so that a test sees leftover temporary files.
  size_t entry_count() const
  {
    return static_cast<size_t>(std::distance(fs::directory_iterator(m_dir), {}));
  }

  fs::path m_dir;
};

TEST_F(CliCodeObjectFile, VerifyAcceptsMatchingBytes)
{
  std::string bytes("\x7f"
                    "ELF\0\1",
                    6);
  EXPECT_TRUE(verify_code_object(bytes, raw_sha256(bytes), 6));
}

TEST_F(CliCodeObjectFile, VerifyRefusesWrongDigestSizeOrDigestLength)
{
  std::string bytes = "object";
  Expected<void> mismatch = verify_code_object(bytes, raw_sha256("other"), 6);
  ASSERT_FALSE(mismatch);
  EXPECT_EQ(mismatch.error().code, ErrorCode::corrupt);
  EXPECT_NE(mismatch.error().message.find("sha256 mismatch"), std::string::npos);
  Expected<void> short_size = verify_code_object(bytes, raw_sha256(bytes), 7);
  ASSERT_FALSE(short_size);
  EXPECT_NE(short_size.error().message.find("received 6 bytes, the reply says 7"),
            std::string::npos);
  EXPECT_FALSE(verify_code_object(bytes, "tooshort", 6));
  EXPECT_FALSE(verify_code_object(bytes, "", 6));
}

TEST_F(CliCodeObjectFile, WriteReplacesTheFileWholeAndLeavesNoTemporary)
{
  fs::path target = m_dir / "kernel.hsaco";
  {
    std::ofstream old(target);
    old << "old contents that are longer than the new ones";
  }
  std::string bytes("new\0bytes", 9);
  ASSERT_TRUE(write_file_atomically(target.string(), bytes));
  EXPECT_EQ(slurp(target), bytes);
  EXPECT_EQ(entry_count(), 1U);
  struct stat info {};
  ASSERT_EQ(::stat(target.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0644U);
}

TEST_F(CliCodeObjectFile, WriteIntoAMissingDirectoryFailsCleanly)
{
  fs::path target = m_dir / "missing" / "kernel.hsaco";
  Expected<void> written = write_file_atomically(target.string(), "bytes");
  ASSERT_FALSE(written);
  EXPECT_EQ(written.error().code, ErrorCode::io);
  EXPECT_FALSE(fs::exists(target));
  EXPECT_EQ(entry_count(), 0U);
}

TEST_F(CliCodeObjectFile, WriteOverADirectoryFailsAndRemovesTheTemporary)
{
  fs::path target = m_dir / "taken";
  fs::create_directory(target);
  fs::create_directory(target / "child"); // rename(2) cannot replace a non-empty directory
  Expected<void> written = write_file_atomically(target.string(), "bytes");
  ASSERT_FALSE(written);
  EXPECT_NE(written.error().message.find("cannot rename"), std::string::npos);
  EXPECT_EQ(entry_count(), 1U);
}

TEST_F(CliCodeObjectFile, ReadWholeFile)
{
  fs::path path = m_dir / "f";
  {
    std::ofstream out(path, std::ios::binary);
    out << std::string("a\0b", 3);
  }
  Expected<std::string> read = read_whole_file(path.string());
  ASSERT_TRUE(read);
  EXPECT_EQ(*read, std::string("a\0b", 3));
  EXPECT_FALSE(read_whole_file((m_dir / "absent").string()));
}

} // namespace
} // namespace d4r::cli
