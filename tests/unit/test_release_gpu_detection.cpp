#include "daemon/release/gpu_detection.hpp"

#include "test_release_tree.hpp"

#include <gtest/gtest.h>

namespace d4r::release {
namespace {

using testing::TempTree;

std::filesystem::path fixture(std::string_view name)
{
  return std::filesystem::path(D4R_TEST_SOURCE_DIR) / "fixtures" / "kfd" / name;
}

std::string detect(const std::filesystem::path& root)
{
  Expected<std::string> arch = detect_gpu_arch(root);
  return arch ? *arch : "error: " + arch.error().message;
}

TEST(ReleaseGpuDetection, NameRule)
{
  EXPECT_EQ(arch_from_gfx_target_version(110001), "gfx1101");
  EXPECT_EQ(arch_from_gfx_target_version(110000), "gfx1100");
  EXPECT_EQ(arch_from_gfx_target_version(120001), "gfx1201");
  EXPECT_EQ(arch_from_gfx_target_version(100306), "gfx1036");
  EXPECT_EQ(arch_from_gfx_target_version(90010), "gfx90a");
  EXPECT_EQ(arch_from_gfx_target_version(90012), "gfx90c");
}

TEST(ReleaseGpuDetection, OneGpu)
{
  EXPECT_EQ(detect(fixture("one_gpu")), "gfx1101");
}

TEST(ReleaseGpuDetection, DiscreteGpuBeatsTheApuListedFirst)
{
  EXPECT_EQ(detect(fixture("apu_plus_dgpu")), "gfx1201");
}

TEST(ReleaseGpuDetection, TieGoesToTheFirstNode)
{
  EXPECT_EQ(detect(fixture("tie")), "gfx1102");
}

TEST(ReleaseGpuDetection, CpuOnlyIsNotFoundNamingTheRoot)
{
  Expected<std::string> arch = detect_gpu_arch(fixture("none"));
  ASSERT_FALSE(arch);
  EXPECT_EQ(arch.error().code, ErrorCode::not_found);
  EXPECT_NE(arch.error().message.find(fixture("none").string()), std::string::npos)
      << arch.error().message;
}

TEST(ReleaseGpuDetection, MissingRootIsNotFound)
{
  TempTree tree;
  Expected<std::string> arch = detect_gpu_arch(tree.root() / "absent");
  ASSERT_FALSE(arch);
  EXPECT_EQ(arch.error().code, ErrorCode::not_found);
}

TEST(ReleaseGpuDetection, SkipsUnreadableAndHalfZeroNodesAndReadsPastGaps)
{
  TempTree tree;
  tree.write("0/properties", "cpu_cores_count 8\nsimd_count 0\ngfx_target_version 0\n");
  tree.mkdir("1/properties"); // a folder where the file should be: unreadable, skipped
  tree.write("2/properties", "simd_count 200\ngfx_target_version 0\n");  // no target: skipped
  tree.write("3/properties", "simd_count 0\ngfx_target_version 110000\n"); // no SIMDs: skipped
  tree.write("4/properties", "simd_count abc\ngfx_target_version 110002\n");
  // Nodes 5..8 missing; node 9 is the GPU, node 15 the last the bridge looks at.
  tree.write("9/properties", "simd_count 60\ngfx_target_version 110001\n");
  tree.write("15/properties", "simd_count 61\ngfx_target_version 110003\n");
  tree.write("16/properties", "simd_count 999\ngfx_target_version 120001\n"); // beyond 0..15
  EXPECT_EQ(detect(tree.root()), "gfx1103");
}

TEST(ReleaseGpuDetection, OverrideWinsOnlyWhenItLooksLikeATarget)
{
  EXPECT_EQ(resolve_gpu_arch(std::string_view("gfx1200"), fixture("one_gpu")).value_or("?"),
            "gfx1200");
  EXPECT_EQ(resolve_gpu_arch(std::string_view("gfx1200"), fixture("none")).value_or("?"),
            "gfx1200");
  EXPECT_EQ(resolve_gpu_arch(std::string_view("auto"), fixture("one_gpu")).value_or("?"),
            "gfx1101");
  EXPECT_EQ(resolve_gpu_arch(std::string_view(""), fixture("apu_plus_dgpu")).value_or("?"),
            "gfx1201");
  EXPECT_EQ(resolve_gpu_arch(std::nullopt, fixture("tie")).value_or("?"), "gfx1102");
  EXPECT_FALSE(resolve_gpu_arch(std::string_view("1101"), fixture("none")));
}

} // namespace
} // namespace d4r::release
