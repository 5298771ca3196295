#include "util/config_file.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>

namespace d4r {
namespace {

std::filesystem::path make_temp_dir()
{
  std::string pattern = ::testing::TempDir() + "d4r-config-XXXXXX";
  const char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return made ? std::filesystem::path(made) : std::filesystem::path();
}

TEST(ConfigFilePath, XdgConfigHomeElseHome)
{
  EXPECT_EQ(config_file_path(environment_from_entries(std::vector<std::string>{
                "XDG_CONFIG_HOME=/x/cfg", "HOME=/home/u"})),
            std::filesystem::path("/x/cfg/d4r-kerneld/config"));
  EXPECT_EQ(config_file_path(environment_from_entries(std::vector<std::string>{"HOME=/home/u"})),
            std::filesystem::path("/home/u/.config/d4r-kerneld/config"));
  // A relative XDG_CONFIG_HOME is ignored (XDG base directory spec).
  EXPECT_EQ(config_file_path(environment_from_entries(std::vector<std::string>{
                "XDG_CONFIG_HOME=cfg", "HOME=/home/u"})),
            std::filesystem::path("/home/u/.config/d4r-kerneld/config"));
  EXPECT_EQ(config_file_path({}), std::nullopt);
}

TEST(ConfigFileText, D4rIniSyntax)
{
  ConfigFile file = parse_config_text("; d4r.ini, copied\n"
                                      "# another comment\n"
                                      "\n"
                                      "top = level\n"
                                      "[Kernels]\r\n"
                                      "  PreferAccuracy   =   true  \n"
                                      "NativeFp8=0 ; the f16 path\n"
                                      "NativeSwinEncoders = off#x\n"
                                      "[ Other ]\n"
                                      "Key =\n",
                                      "/c");
  EXPECT_TRUE(file.present);
  EXPECT_TRUE(file.problems.empty()) << file.problems.front();
  ASSERT_EQ(file.entries.size(), 5u);
  EXPECT_EQ(file.entries[0].section, "");
  EXPECT_EQ(file.entries[0].key, "top");
  EXPECT_EQ(file.entries[1].section, "Kernels");
  EXPECT_EQ(file.entries[1].key, "PreferAccuracy");
  EXPECT_EQ(file.entries[1].value, "true");
  EXPECT_EQ(file.entries[1].line, 6);
  EXPECT_EQ(file.entries[2].value, "0") << "a comment after a blank is dropped";
  EXPECT_EQ(file.entries[3].value, "off#x") << "a # without a blank before it is the value's";
  EXPECT_EQ(file.entries[4].section, "Other");
  EXPECT_EQ(file.entries[4].value, "");
}

TEST(ConfigFileText, MalformedLinesAreProblemsWithTheirLine)
{
  ConfigFile file = parse_config_text("[Kernels\nPreferAccuracy\n= true\nNativeFp8 = 1\n", "/c");
  ASSERT_EQ(file.problems.size(), 3u);
  EXPECT_EQ(file.problems[0], "/c:1: a section line must end with ']'");
  EXPECT_NE(file.problems[1].find("/c:2: 'PreferAccuracy' is neither"), std::string::npos)
      << file.problems[1];
  EXPECT_NE(file.problems[2].find("/c:3:"), std::string::npos) << file.problems[2];
  ASSERT_EQ(file.entries.size(), 1u);
  EXPECT_EQ(file.entries[0].key, "NativeFp8");
}

TEST(ConfigFileRead, MissingUnreadableOversizedAndDirectory)
{
  std::filesystem::path dir = make_temp_dir();
  ConfigFile missing = read_config_file(dir / "none");
  EXPECT_FALSE(missing.present);
  EXPECT_TRUE(missing.problems.empty());

  std::filesystem::path good = dir / "good";
  std::ofstream(good) << "[Kernels]\nPreferAccuracy = yes\n";
  ConfigFile read = read_config_file(good);
  EXPECT_TRUE(read.present);
  ASSERT_EQ(read.entries.size(), 1u);
  EXPECT_EQ(read.entries[0].value, "yes");

  std::filesystem::path big = dir / "big";
  std::ofstream(big) << std::string(k_config_file_max_bytes + 1, ';');
  ConfigFile oversized = read_config_file(big);
  EXPECT_TRUE(oversized.present);
  ASSERT_EQ(oversized.problems.size(), 1u);
  EXPECT_NE(oversized.problems[0].find("larger than 64 KiB"), std::string::npos);

  ConfigFile directory = read_config_file(dir);
  ASSERT_EQ(directory.problems.size(), 1u);
  EXPECT_NE(directory.problems[0].find("a directory"), std::string::npos);

  if (geteuid() != 0) { // root reads a 0000 file anyway
    std::filesystem::path locked = dir / "locked";
    std::ofstream(locked) << "[Kernels]\n";
    ::chmod(locked.c_str(), 0);
    ConfigFile unreadable = read_config_file(locked);
    EXPECT_TRUE(unreadable.present);
    ASSERT_EQ(unreadable.problems.size(), 1u);
    EXPECT_NE(unreadable.problems[0].find("cannot be read"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

} // namespace
} // namespace d4r
