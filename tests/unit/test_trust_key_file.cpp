// The signing key's file: created on first use with mode 0600 in a 0700 folder, never replaced,
// read back with ownership and mode checked; its default place in the XDG state folder.

#include "trust/key_file.hpp"
#include "trust/key_location.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace d4r::trust {
namespace {

class KeyFileTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern =
        (std::filesystem::temp_directory_path() / "d4r-test-trust-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::filesystem::path m_dir;
};

mode_t mode_of(const std::filesystem::path& path)
{
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

std::string read_text(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST_F(KeyFileTest, FirstUseCreatesA0600KeyThatLaterUsesRead)
{
  std::filesystem::path path = m_dir / "state" / "d4r-kerneld" / "signing.key";
  Expected<LoadedKey> first = load_or_create_key_file(path);
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(first->created);
  EXPECT_TRUE(first->warnings.empty());
  EXPECT_EQ(mode_of(path), 0600u);
  EXPECT_EQ(mode_of(path.parent_path()), 0700u);
  EXPECT_TRUE(read_text(path).starts_with("-----BEGIN PRIVATE KEY-----"));
  // No temporary file is left beside it.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(path.parent_path()),
                          std::filesystem::directory_iterator()),
            1);
  Expected<LoadedKey> second = load_or_create_key_file(path);
  ASSERT_TRUE(second) << second.error().message;
  EXPECT_FALSE(second->created);
  EXPECT_EQ(second->key.public_key(), first->key.public_key());
}

TEST_F(KeyFileTest, AnExistingKeyIsNeverReplaced)
{
  std::filesystem::path path = m_dir / "signing.key";
  Expected<LoadedKey> first = load_or_create_key_file(path);
  ASSERT_TRUE(first);
  std::string before = read_text(path);
  Expected<SigningKey> other = SigningKey::generate();
  ASSERT_TRUE(other);
  Expected<void> created = create_key_file(path, *other);
  ASSERT_FALSE(created);
  EXPECT_NE(created.error().message.find("File exists"), std::string::npos)
      << created.error().message;
  EXPECT_EQ(read_text(path), before);
}

// Processes racing to make the key agree on one: the daemon and `d4r-kernel key show` at once.
TEST_F(KeyFileTest, RacingCreatorsEndWithOneKey)
{
  std::filesystem::path path = m_dir / "race" / "signing.key";
  std::vector<pid_t> children;
  std::vector<std::filesystem::path> outputs;
  for (int i = 0; i < 6; ++i) {
    outputs.push_back(m_dir / ("public-" + std::to_string(i)));
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Expected<LoadedKey> loaded = load_or_create_key_file(path);
      if (loaded) {
        std::ofstream(outputs.back()) << to_text(loaded->key.public_key());
      }
      ::_exit(loaded ? 0 : 1);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  Expected<LoadedKey> final_key = load_key_file(path);
  ASSERT_TRUE(final_key) << final_key.error().message;
  for (const std::filesystem::path& output : outputs) {
    EXPECT_EQ(read_text(output), to_text(final_key->key.public_key())) << output;
  }
}

TEST_F(KeyFileTest, AModeOthersCouldUseIsFixedWithAWarning)
{
  std::filesystem::path path = m_dir / "signing.key";
  ASSERT_TRUE(load_or_create_key_file(path));
  ASSERT_EQ(::chmod(path.c_str(), 0644), 0);
  Expected<LoadedKey> loaded = load_key_file(path);
  ASSERT_TRUE(loaded) << loaded.error().message;
  ASSERT_EQ(loaded->warnings.size(), 1u);
  EXPECT_NE(loaded->warnings[0].find("was mode 0644"), std::string::npos) << loaded->warnings[0];
  EXPECT_NE(loaded->warnings[0].find("now 0600"), std::string::npos) << loaded->warnings[0];
  EXPECT_EQ(mode_of(path), 0600u);
  ASSERT_EQ(::chmod(path.c_str(), 0620), 0); // writable by the group: replaceable by others
  loaded = load_key_file(path);
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->warnings.size(), 1u);
  EXPECT_EQ(mode_of(path), 0600u);
  loaded = load_key_file(path);
  ASSERT_TRUE(loaded);
  EXPECT_TRUE(loaded->warnings.empty());
}

TEST_F(KeyFileTest, ALinkOrAFolderIsRefused)
{
  std::filesystem::path path = m_dir / "signing.key";
  ASSERT_TRUE(load_or_create_key_file(path));
  std::filesystem::path link = m_dir / "link.key";
  std::filesystem::create_symlink(path, link);
  Expected<LoadedKey> linked = load_key_file(link);
  ASSERT_FALSE(linked);
  EXPECT_EQ(linked.error().code, ErrorCode::permission_denied);
  EXPECT_NE(linked.error().message.find("symbolic link"), std::string::npos);
  std::filesystem::create_directory(m_dir / "folder.key");
  Expected<LoadedKey> folder = load_key_file(m_dir / "folder.key");
  ASSERT_FALSE(folder);
  EXPECT_NE(folder.error().message.find("not a regular file"), std::string::npos)
      << folder.error().message;
  ASSERT_EQ(::mkfifo((m_dir / "fifo.key").c_str(), 0600), 0);
  EXPECT_FALSE(load_key_file(m_dir / "fifo.key")); // refused at once, not waiting for a writer
}

TEST_F(KeyFileTest, MalformedKeyFileIsAClearErrorAndNotReplaced)
{
  std::filesystem::path path = m_dir / "signing.key";
  std::ofstream(path) << "-----BEGIN PRIVATE KEY-----\nnot base64 at all\n-----END PRIVATE KEY-----\n";
  ASSERT_EQ(::chmod(path.c_str(), 0600), 0);
  Expected<LoadedKey> loaded = load_or_create_key_file(path);
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code, ErrorCode::corrupt);
  EXPECT_NE(loaded.error().message.find("signing key " + path.string() +
                                        ": not a readable PEM private key"),
            std::string::npos)
      << loaded.error().message;
  // A damaged key is the operator's to look at: a new one would silently break every pin.
  EXPECT_TRUE(read_text(path).find("not base64") != std::string::npos);
  std::ofstream(path, std::ios::trunc) << std::string(100000, 'x');
  Expected<LoadedKey> big = load_key_file(path);
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message.find("over 64 KiB"), std::string::npos) << big.error().message;
}

TEST_F(KeyFileTest, AMissingKeyIsNotFound)
{
  Expected<LoadedKey> loaded = load_key_file(m_dir / "none.key");
  ASSERT_FALSE(loaded);
  EXPECT_EQ(loaded.error().code, ErrorCode::not_found);
}

TEST(TrustKeyLocation, TheXdgStateFolderElseHome)
{
  EnvironmentMap env{{"XDG_STATE_HOME", "/state"}, {"HOME", "/home/u"}};
  EXPECT_EQ(default_signing_key_path(env), "/state/d4r-kerneld/signing.key");
  env["XDG_STATE_HOME"] = "relative/state"; // the spec: ignored
  EXPECT_EQ(default_signing_key_path(env), "/home/u/.local/state/d4r-kerneld/signing.key");
  env.erase("XDG_STATE_HOME");
  EXPECT_EQ(default_signing_key_path(env), "/home/u/.local/state/d4r-kerneld/signing.key");
  EXPECT_EQ(default_signing_key_path(EnvironmentMap{}), std::nullopt);
}

} // namespace
} // namespace d4r::trust
