// `d4r-kernel token add|list|revoke`: parsed from the command line and run against a token file
// in a temp dir, as the tool runs them (run_command), human and --json.

#include "cli/commands.hpp"
#include "cli/token_command.hpp"
#include "util/tokens.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <sstream>

namespace d4r::cli {
namespace {

class TokenCommandTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = ::testing::TempDir() + "d4r-cli-token-XXXXXX";
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
    m_file = (m_dir / "tokens").string();
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  // Runs `d4r-kernel ARGS... --token-file FILE`; the exit status.
  int run(std::vector<std::string> args)
  {
    args.push_back("--token-file");
    args.push_back(m_file);
    m_out.str("");
    m_err.str("");
    Environment env;
    env.xdg_runtime_dir = "/run/user/1000";
    env.uid = 1000;
    Expected<ParsedCommand> parsed = parse_command_line(args, env);
    Io io{m_out, m_err, false, {}};
    if (!parsed) {
      return report_usage_error(parsed.error(), false, io);
    }
    return run_command(*parsed, io);
  }

  std::filesystem::path m_dir;
  std::string m_file;
  std::ostringstream m_out;
  std::ostringstream m_err;
};

TEST_F(TokenCommandTest, AddPrintsATokenOnceThatTheFileRecognisesByHash)
{
  ASSERT_EQ(run({"token", "add", "deck"}), 0) << m_err.str();
  std::string out = m_out.str();
  size_t at = out.find("d4r_");
  ASSERT_NE(at, std::string::npos) << out;
  std::string token = out.substr(at, out.find('\n', at) - at);
  Expected<TokenFile> file = read_token_file(m_file);
  ASSERT_TRUE(file);
  ASSERT_EQ(file->clients.size(), 1U);
  EXPECT_EQ(file->clients[0].name, "deck");
  const TokenClient* found = find_token(*file, token);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->name, "deck");
  struct stat info {};
  ASSERT_EQ(::stat(m_file.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600U);

  EXPECT_EQ(run({"token", "add", "deck"}), 2) << "a live client is not replaced";
  EXPECT_NE(m_err.str().find("revoke it first"), std::string::npos) << m_err.str();
  EXPECT_EQ(run({"token", "add", "bad name"}), 2);
  EXPECT_EQ(run({"token", "add"}), 2);
  EXPECT_EQ(run({"token", "frobnicate", "x"}), 2);
}

TEST_F(TokenCommandTest, ListNeverShowsTokensAndRevokeMarksTheClient)
{
  ASSERT_EQ(run({"token", "add", "deck", "--json"}), 0) << m_err.str();
  std::string added = m_out.str();
  size_t at = added.find("\"token\":\"");
  ASSERT_NE(at, std::string::npos) << added;
  std::string token = added.substr(at + 9, 47);
  ASSERT_EQ(run({"token", "add", "laptop"}), 0);

  ASSERT_EQ(run({"token", "list"}), 0);
  EXPECT_NE(m_out.str().find("deck"), std::string::npos);
  EXPECT_NE(m_out.str().find("laptop"), std::string::npos);
  EXPECT_EQ(m_out.str().find("d4r_"), std::string::npos) << m_out.str();

  ASSERT_EQ(run({"token", "revoke", "deck"}), 0) << m_err.str();
  EXPECT_EQ(run({"token", "revoke", "nobody"}), 2);
  ASSERT_EQ(run({"token", "list", "--json"}), 0);
  std::string listed = m_out.str();
  EXPECT_EQ(listed.find(token), std::string::npos);
  EXPECT_NE(listed.find("{\"name\":\"deck\""), std::string::npos) << listed;
  EXPECT_NE(listed.find("\"revoked\":true"), std::string::npos) << listed;
  EXPECT_NE(listed.find("\"revoked\":false"), std::string::npos) << listed;
  Expected<TokenFile> file = read_token_file(m_file);
  ASSERT_TRUE(file);
  const TokenClient* found = find_token(*file, token);
  ASSERT_NE(found, nullptr);
  EXPECT_NE(found->revoked_unix, 0);

  // A revoked name may be added again: a new token, the old one still refused.
  ASSERT_EQ(run({"token", "add", "deck"}), 0) << m_err.str();
  file = read_token_file(m_file);
  ASSERT_TRUE(file);
  EXPECT_EQ(find_token(*file, token), nullptr);
  EXPECT_EQ(file->clients.size(), 2U);
}

} // namespace
} // namespace d4r::cli
