// The token file: what it stores (hashes, never tokens), how it is written (0600, replaced whole,
// two writers both land) and how a token is found.

#include "util/tokens.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace d4r {
namespace {

class TokenFileTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = ::testing::TempDir() + "d4r-tokens-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
    m_path = m_dir / "state" / "d4r-kerneld" / "tokens";
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::string contents() const
  {
    std::ifstream in(m_path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
  }

  std::filesystem::path m_dir;
  std::filesystem::path m_path;
};

TEST(Tokens, GeneratedTokensAreLongRandomAndUrlSafe)
{
  Expected<std::string> first = generate_token();
  Expected<std::string> second = generate_token();
  ASSERT_TRUE(first && second);
  EXPECT_NE(*first, *second);
  ASSERT_TRUE(first->starts_with("d4r_"));
  EXPECT_EQ(first->size(), 4U + 43U) << "32 bytes in unpadded base64url";
  for (char c : first->substr(4)) {
    EXPECT_TRUE(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_') << c;
  }
}

TEST(Tokens, ClientNamesAreSafeForLogsAndLabels)
{
  EXPECT_TRUE(validate_client_name("steam-deck.1_a"));
  EXPECT_FALSE(validate_client_name(""));
  EXPECT_FALSE(validate_client_name("-x"));
  EXPECT_FALSE(validate_client_name(".hidden"));
  EXPECT_FALSE(validate_client_name("a b"));
  EXPECT_FALSE(validate_client_name("a\"b"));
  EXPECT_FALSE(validate_client_name(std::string(65, 'a')));
  EXPECT_TRUE(validate_client_name(std::string(64, 'a')));
}

TEST(Tokens, DefaultFileFollowsXdgStateHome)
{
  EXPECT_EQ(default_token_file({{"XDG_STATE_HOME", "/s"}, {"HOME", "/h"}}).value(),
            "/s/d4r-kerneld/tokens");
  EXPECT_EQ(default_token_file({{"XDG_STATE_HOME", "relative"}, {"HOME", "/h"}}).value(),
            "/h/.local/state/d4r-kerneld/tokens");
  EXPECT_FALSE(default_token_file({}));
}

TEST_F(TokenFileTest, StoresOnlyHashesAt0600AndReadsBack)
{
  std::string token = generate_token().value();
  TokenFile file;
  file.clients.push_back({"deck", token_hash(token), 1764680000, 0});
  file.clients.push_back({"old", token_hash("d4r_other"), 1764000000, 1764600000});
  ASSERT_TRUE(write_token_file(m_path, file));
  struct stat info {};
  ASSERT_EQ(::stat(m_path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600U);
  ASSERT_EQ(::stat(m_path.parent_path().c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0700U);
  std::string text = contents();
  EXPECT_EQ(text.find(token), std::string::npos) << "the token itself is never written";
  EXPECT_EQ(text.find(token.substr(4)), std::string::npos);
  EXPECT_NE(text.find(to_hex(token_hash(token))), std::string::npos);
  Expected<TokenFile> read = read_token_file(m_path);
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->clients.size(), 2U);
  EXPECT_EQ(read->clients[1].name, "old");
  EXPECT_EQ(read->clients[1].revoked_unix, 1764600000);
  const TokenClient* found = find_token(*read, token);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->name, "deck");
  EXPECT_EQ(find_token(*read, token + "x"), nullptr);
  EXPECT_EQ(find_token(*read, ""), nullptr);
  std::vector<std::filesystem::path> left;
  for (const auto& entry : std::filesystem::directory_iterator(m_path.parent_path())) {
    left.push_back(entry.path().filename());
  }
  EXPECT_EQ(left, std::vector<std::filesystem::path>{"tokens"}) << "no temporary file is left";
}

TEST_F(TokenFileTest, AMissingFileIsEmptyAndABadLineIsAnError)
{
  Expected<TokenFile> none = read_token_file(m_path);
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->clients.empty());
  std::filesystem::create_directories(m_path.parent_path());
  std::ofstream(m_path) << "# comment\n\ndeck 1234 5\n";
  Expected<TokenFile> bad = read_token_file(m_path);
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message.find("line 3"), std::string::npos) << bad.error().message;
  EXPECT_FALSE(parse_token_file("bad/name " + std::string(64, 'a') + " 1\n"));
  EXPECT_TRUE(parse_token_file("ok " + std::string(64, 'a') + " 1\n"));
}

TEST_F(TokenFileTest, ConcurrentUpdatesAllLand)
{
  constexpr int k_writers = 8;
  std::vector<pid_t> children;
  for (int i = 0; i < k_writers; ++i) {
    pid_t child = fork();
    if (child == 0) {
      Expected<void> done = update_token_file(m_path, [i](TokenFile& file) -> Expected<void> {
        file.clients.push_back({"c" + std::to_string(i), token_hash(std::to_string(i)), i, 0});
        return {};
      });
      _exit(done ? 0 : 1);
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  Expected<TokenFile> read = read_token_file(m_path);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->clients.size(), static_cast<size_t>(k_writers));
}

} // namespace
} // namespace d4r
