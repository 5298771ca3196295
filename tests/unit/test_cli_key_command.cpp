// `d4r-kernel key show`: parsed from the command line, the key made on first use and shown again
// the same, as text and JSON; a file that is no key is exit status 6 with its reason.

#include "cli/commands.hpp"
#include "cli/key_command.hpp"
#include "cli/options.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <sstream>

namespace d4r::cli {
namespace {

Expected<ParsedCommand> parse(std::vector<std::string> args)
{
  return parse_command_line(args, Environment{"", "/run/user/1000", 1000});
}

TEST(CliKeyCommand, ParsesShowAndTheKeyFile)
{
  Expected<ParsedCommand> parsed = parse({"key", "show", "--key-file", "/k/signing.key"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  const KeyCommand* key = std::get_if<KeyCommand>(&parsed->command);
  ASSERT_NE(key, nullptr);
  EXPECT_EQ(key->key_file, "/k/signing.key");
  parsed = parse({"key", "show", "--json"});
  ASSERT_TRUE(parsed);
  EXPECT_TRUE(parsed->global.json);
  EXPECT_TRUE(std::get<KeyCommand>(parsed->command).key_file.empty());
  EXPECT_FALSE(parse({"key"}));
  EXPECT_FALSE(parse({"key", "rotate"}));
  EXPECT_FALSE(parse({"key", "show", "extra"}));
  EXPECT_FALSE(parse({"key", "show", "--token-file", "x"}));
  EXPECT_FALSE(parse({"key", "show", "--key-file="}));
}

class KeyRunTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (std::filesystem::temp_directory_path() / "d4r-test-key-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::filesystem::path m_dir;
};

TEST_F(KeyRunTest, MakesTheKeyOnceAndShowsTheSameKeyAfter)
{
  std::filesystem::path path = m_dir / "state" / "signing.key";
  std::ostringstream out;
  std::ostringstream err;
  ASSERT_EQ(run_key(path, false, out, err), 0) << err.str();
  std::string first = out.str();
  EXPECT_TRUE(first.starts_with("ed25519:")) << first;
  EXPECT_EQ(first.size(), 8u + 44u + 1u);
  EXPECT_EQ(err.str(), "created " + path.string() + "\n");
  std::ostringstream again;
  std::ostringstream again_err;
  ASSERT_EQ(run_key(path, false, again, again_err), 0);
  EXPECT_EQ(again.str(), first);
  EXPECT_EQ(again_err.str(), "from " + path.string() + "\n");
  std::ostringstream json;
  ASSERT_EQ(run_key(path, true, json, again_err), 0);
  std::string key = first.substr(0, first.size() - 1);
  EXPECT_EQ(json.str(), "{\"public_key\":\"" + key + "\",\"key_file\":\"" + path.string() +
                            "\",\"created\":false,\"warnings\":[]}\n");
}

TEST_F(KeyRunTest, AFileThatIsNoKeyIsALocalError)
{
  std::filesystem::path path = m_dir / "signing.key";
  std::ofstream(path) << "not a key";
  ::chmod(path.c_str(), 0600);
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_key(path, false, out, err), 6);
  EXPECT_EQ(out.str(), "");
  EXPECT_NE(err.str().find("d4r-kernel: key: signing key " + path.string() + ": not a PEM file"),
            std::string::npos)
      << err.str();
}

} // namespace
} // namespace d4r::cli
