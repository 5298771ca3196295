#include "daemon/negative_cache.hpp"

#include <gtest/gtest.h>

#include <filesystem>

namespace d4r::daemon {
namespace {

class NegativeCacheTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (std::filesystem::temp_directory_path() / "d4r-neg-XXXXXX").string();
    m_dir = mkdtemp(pattern.data());
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }
  std::filesystem::path m_dir;
};

TEST_F(NegativeCacheTest, RemembersPerModeAndKeyAcrossInstances)
{
  {
    NegativeCache cache(m_dir);
    EXPECT_FALSE(cache.find(Mode::fast, "k"));
    cache.remember(Mode::fast, "k", "worker crashed (signal 6)");
    EXPECT_EQ(cache.find(Mode::fast, "k"), "worker crashed (signal 6)");
    EXPECT_FALSE(cache.find(Mode::accuracy, "k")) << "modes are kept apart";
    EXPECT_FALSE(cache.find(Mode::fast, "k2")) << "another input is another key";
  }
  NegativeCache reopened(m_dir);
  EXPECT_EQ(reopened.find(Mode::fast, "k"), "worker crashed (signal 6)");
  reopened.clear();
  EXPECT_FALSE(reopened.find(Mode::fast, "k"));
  EXPECT_FALSE(NegativeCache(m_dir).find(Mode::fast, "k")) << "clear removes the files too";
}

} // namespace
} // namespace d4r::daemon
