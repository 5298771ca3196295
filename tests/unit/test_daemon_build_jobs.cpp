// The default number of concurrent builds against the cgroup's memory cap, on fake /proc and
// /sys/fs/cgroup trees laid out as a systemd user manager's.

#include "daemon/build_jobs.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include <stdlib.h>

namespace d4r::daemon {
namespace {

class BuildJobsTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (std::filesystem::path(::testing::TempDir()) / "d4r-jobs-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
    m_cgroup_file = m_dir / "cgroup";
    m_root = m_dir / "sys-fs-cgroup";
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  void place_in(const std::string& path) const { std::ofstream(m_cgroup_file) << "0::" << path << "\n"; }
  void limit(const std::string& group, const std::string& value) const
  {
    std::filesystem::create_directories(m_root / group);
    std::ofstream(m_root / group / "memory.max") << value << "\n";
  }

  std::filesystem::path m_dir;
  std::filesystem::path m_cgroup_file;
  std::filesystem::path m_root;
};

constexpr const char* k_unit = "/user.slice/user-1000.slice/user@1000.service/app.slice/d4r-kerneld.service";

TEST_F(BuildJobsTest, TheUnitsMemoryMaxIsFound)
{
  place_in(k_unit);
  limit(std::string(k_unit).substr(1), "4294967296");
  limit("user.slice", "max");
  EXPECT_EQ(cgroup_memory_max(m_cgroup_file, m_root), int64_t{4} << 30);
}

TEST_F(BuildJobsTest, TheSmallestCapOnThePathWins)
{
  place_in(k_unit);
  limit(std::string(k_unit).substr(1), "max");
  limit("user.slice/user-1000.slice", "2147483648");
  EXPECT_EQ(cgroup_memory_max(m_cgroup_file, m_root), int64_t{2} << 30);
}

TEST_F(BuildJobsTest, NoCapOrNoCgroupV2IsNoLimit)
{
  place_in(k_unit);
  limit(std::string(k_unit).substr(1), "max");
  EXPECT_EQ(cgroup_memory_max(m_cgroup_file, m_root), std::nullopt);
  // cgroup v1 lines only ("N:controller:path"), and a missing file.
  std::ofstream(m_cgroup_file) << "4:memory:/user.slice\n1:name=systemd:/user.slice\n";
  EXPECT_EQ(cgroup_memory_max(m_cgroup_file, m_root), std::nullopt);
  EXPECT_EQ(cgroup_memory_max(m_dir / "missing", m_root), std::nullopt);
  limit("user.slice", "garbage");
  place_in("/user.slice");
  EXPECT_EQ(cgroup_memory_max(m_cgroup_file, m_root), std::nullopt);
}

TEST(BuildJobs, JobsFitTheCapAtEachWorkersLimit)
{
  const int64_t gib = int64_t{1} << 30;
  EXPECT_EQ(default_build_jobs(16, std::nullopt, 4 * gib), 16);
  EXPECT_EQ(default_build_jobs(16, 4 * gib, 4 * gib), 1);   // the shipped unit's MemoryMax=4G
  EXPECT_EQ(default_build_jobs(16, 10 * gib, 4 * gib), 2);
  EXPECT_EQ(default_build_jobs(2, 64 * gib, 4 * gib), 2);   // never more than the cores
  EXPECT_EQ(default_build_jobs(8, gib, 4 * gib), 1);        // always at least one
  EXPECT_EQ(default_build_jobs(0, std::nullopt, 4 * gib), 1);
}

} // namespace
} // namespace d4r::daemon
