#pragma once
// Helpers shared by the recipe tests: a fresh temp folder per test and whole-file reads and writes.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace d4r_test {

inline std::filesystem::path make_temp_dir(std::string_view prefix)
{
  std::string pattern =
      (std::filesystem::path(::testing::TempDir()) / (std::string(prefix) + "_XXXXXX")).string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  char* made = ::mkdtemp(buffer.data());
  EXPECT_NE(made, nullptr) << "mkdtemp " << pattern;
  return made != nullptr ? std::filesystem::path(made) : std::filesystem::path();
}

inline void write_file(const std::filesystem::path& path, std::string_view text)
{
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  ASSERT_TRUE(out.good()) << "cannot write " << path;
}

inline std::string read_file(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Removes the folder when the test ends.
class TempDir {
public:
  explicit TempDir(std::string_view prefix) : m_path(make_temp_dir(prefix)) {}
  ~TempDir()
  {
    std::error_code ec;
    std::filesystem::remove_all(m_path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

} // namespace d4r_test
