// ChangeWatch: a look sees every change made before it on a watched path (in the directory, in
// each directory above it, a symlink on the path swapped), and nothing moves the generation while
// nothing changes.

#include "daemon/change_watch.hpp"

#include "test_cache_support.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace d4r::daemon {
namespace {

namespace fs = std::filesystem;

class ChangeWatchTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    fs::create_directories(m_root / "a" / "b");
    std::ofstream(m_root / "a" / "b" / "file") << "one";
    m_watch = ChangeWatch::open();
    ASSERT_NE(m_watch, nullptr) << "no inotify instance";
  }

  // The generation after one look, and whether it moved since `before`.
  bool moved(uint64_t& before)
  {
    const uint64_t now = m_watch->generation();
    const bool changed = now != before;
    before = now;
    return changed;
  }

  cache::testing::TempDir m_dir;
  const fs::path m_root = m_dir.path();
  std::unique_ptr<ChangeWatch> m_watch;
};

TEST_F(ChangeWatchTest, NothingChangedNothingMoves)
{
  ASSERT_TRUE(m_watch->watch_path_to(m_root / "a" / "b"));
  uint64_t generation = m_watch->generation();
  EXPECT_NE(generation, 0U);
  EXPECT_FALSE(moved(generation));
  // Reading and stat'ing are not changes.
  struct stat info {};
  ASSERT_EQ(::stat((m_root / "a" / "b" / "file").c_str(), &info), 0);
  std::ifstream in(m_root / "a" / "b" / "file");
  std::string text;
  in >> text;
  EXPECT_EQ(text, "one");
  EXPECT_FALSE(moved(generation));
}

TEST_F(ChangeWatchTest, EveryKindOfChangeInTheDirectoryIsSeenByTheNextLook)
{
  ASSERT_TRUE(m_watch->watch_path_to(m_root / "a" / "b"));
  const fs::path file = m_root / "a" / "b" / "file";
  uint64_t generation = m_watch->generation();
  std::ofstream(file, std::ios::app) << "two";
  EXPECT_TRUE(moved(generation)) << "a write";
  ASSERT_EQ(::chmod(file.c_str(), 0600), 0);
  EXPECT_TRUE(moved(generation)) << "a chmod";
  std::ofstream(m_root / "a" / "b" / "new") << "x";
  EXPECT_TRUE(moved(generation)) << "a new file";
  fs::rename(m_root / "a" / "b" / "new", file);
  EXPECT_TRUE(moved(generation)) << "a rename over it";
  fs::remove(file);
  EXPECT_TRUE(moved(generation)) << "a removal";
  EXPECT_FALSE(moved(generation));
}

TEST_F(ChangeWatchTest, AChangeAboveTheDirectoryIsSeen)
{
  ASSERT_TRUE(m_watch->watch_path_to(m_root / "a" / "b"));
  uint64_t generation = m_watch->generation();
  std::ofstream(m_root / "beside") << "x"; // in the root, two levels up
  EXPECT_TRUE(moved(generation));
  fs::rename(m_root / "a", m_root / "renamed");
  EXPECT_TRUE(moved(generation));
}

TEST_F(ChangeWatchTest, ASymlinkSwappedOnThePathIsSeenAndItsNewTargetWatchedOnceAddedAgain)
{
  fs::create_directories(m_root / "v2" / "b");
  fs::create_symlink("a", m_root / "current");
  const fs::path through = m_root / "current" / "b";
  ASSERT_TRUE(m_watch->watch_path_to(through));
  uint64_t generation = m_watch->generation();
  // An atomic deployment: a new link renamed over the old one.
  fs::create_symlink("v2", m_root / "next");
  fs::rename(m_root / "next", m_root / "current");
  EXPECT_TRUE(moved(generation));
  ASSERT_TRUE(m_watch->watch_path_to(through)); // what a check does before it stats again
  (void)moved(generation);
  std::ofstream(m_root / "v2" / "b" / "file") << "new";
  EXPECT_TRUE(moved(generation)) << "the new target's directory is watched";
}

TEST_F(ChangeWatchTest, APathThatCannotBeWatchedIsRefused)
{
  EXPECT_FALSE(m_watch->watch_path_to(m_root / "missing"));
  EXPECT_FALSE(m_watch->watch_path_to(m_root / "a" / "b" / "file")); // not a directory
  EXPECT_FALSE(m_watch->watch_path_to("relative/path"));
}

} // namespace
} // namespace d4r::daemon
