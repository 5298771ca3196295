#include "daemon/release/manifest.hpp"

#include "test_release_tree.hpp"

#include <gtest/gtest.h>

namespace d4r::release {
namespace {

using testing::TempTree;

bool has_problem(const Manifest& manifest, std::string_view prefix, std::string_view part)
{
  for (const std::string& problem : manifest.problems) {
    if (problem.starts_with(prefix) && problem.find(part) != std::string::npos) {
      return true;
    }
  }
  return false;
}

TEST(ReleaseManifest, ParsesCommentsAndPairs)
{
  Manifest manifest = parse_manifest("# d4r native kernel manifest\n"
                                     "# nvngx_dlss.dll 310.7.0\n"
                                     "d4r_test_layer 8baeb925f177af87\n"
                                     "rrlite_enc1_4x4 0123456789abcdef\n");
  ASSERT_EQ(manifest.entries.size(), 2U);
  EXPECT_TRUE(manifest.problems.empty());
  EXPECT_FALSE(manifest.records_origin);
  EXPECT_EQ(manifest.entries[0].name, "d4r_test_layer");
  EXPECT_EQ(manifest.entries[0].module_hash, 0x8baeb925f177af87ULL);
  EXPECT_EQ(manifest.entries[0].origin, HashOrigin::unrecorded);
  EXPECT_EQ(manifest.entries[0].line, 3);
  EXPECT_EQ(manifest.entries[1].module_hash, 0x0123456789abcdefULL);
  EXPECT_EQ(manifest.entries[1].line, 4);
}

TEST(ReleaseManifest, KeepsEveryPairOfARepeatedName)
{
  Manifest manifest = parse_manifest("k 1111111111111111\nk 2222222222222222\nk 1111111111111111\n");
  ASSERT_EQ(manifest.entries.size(), 3U);
  EXPECT_EQ(manifest.entries[1].module_hash, 0x2222222222222222ULL);
  EXPECT_EQ(manifest.entries[2].module_hash, 0x1111111111111111ULL);
}

TEST(ReleaseManifest, AcceptsUppercaseHashAndStoresTheNumber)
{
  Manifest manifest = parse_manifest("k 8BAEB925F177AF87\n");
  ASSERT_EQ(manifest.entries.size(), 1U);
  EXPECT_EQ(manifest.entries[0].module_hash, 0x8baeb925f177af87ULL);
}

TEST(ReleaseManifest, ToleratesCrlfAndMissingFinalNewline)
{
  Manifest manifest = parse_manifest("# header\r\na 0000000000000001\r\nb 0000000000000002 rr\r\nc "
                                     "0000000000000003");
  ASSERT_EQ(manifest.entries.size(), 3U) << (manifest.problems.empty() ? "" : manifest.problems[0]);
  EXPECT_TRUE(manifest.problems.empty());
  EXPECT_EQ(manifest.entries[1].origin, HashOrigin::ray_reconstruction);
  EXPECT_EQ(manifest.entries[2].name, "c");
  EXPECT_EQ(manifest.entries[2].module_hash, 3U);
}

TEST(ReleaseManifest, NameLimitIs127Characters)
{
  std::string ok(127, 'a');
  std::string too_long(128, 'b');
  Manifest manifest = parse_manifest(ok + " 0000000000000001\n" + too_long + " 0000000000000002\n");
  ASSERT_EQ(manifest.entries.size(), 1U);
  EXPECT_EQ(manifest.entries[0].name, ok);
  EXPECT_TRUE(has_problem(manifest, "line 2: ", "128 characters"));
}

TEST(ReleaseManifest, SkipsAndReportsBadHashes)
{
  Manifest manifest = parse_manifest("short 0123456789abcde\n"
                                     "long 0123456789abcdef0\n"
                                     "nonhex 0123456789abcdeg\n"
                                     "prefixed 0x23456789abcdef\n"
                                     "good 0123456789abcdef\n");
  ASSERT_EQ(manifest.entries.size(), 1U);
  EXPECT_EQ(manifest.entries[0].name, "good");
  EXPECT_EQ(manifest.problems.size(), 4U);
  EXPECT_TRUE(has_problem(manifest, "line 1: ", "not 16 hex digits"));
  EXPECT_TRUE(has_problem(manifest, "line 2: ", "not 16 hex digits"));
  EXPECT_TRUE(has_problem(manifest, "line 3: ", "not 16 hex digits"));
  EXPECT_TRUE(has_problem(manifest, "line 4: ", "not 16 hex digits"));
}

TEST(ReleaseManifest, SkipsBadShapesAndNames)
{
  Manifest manifest = parse_manifest("onlyname\n"
                                     "\n"
                                     "   \n"
                                     "k 0123456789abcdef sr extra\n"
                                     "k 0123456789abcdef xx\n"
                                     "bad/name 0123456789abcdef\n"
                                     "fine 0123456789abcdef\n");
  ASSERT_EQ(manifest.entries.size(), 1U);
  EXPECT_EQ(manifest.entries[0].line, 7);
  EXPECT_TRUE(has_problem(manifest, "line 1: ", "one field"));
  EXPECT_TRUE(has_problem(manifest, "line 2: ", "blank"));
  EXPECT_TRUE(has_problem(manifest, "line 3: ", "blank"));
  EXPECT_TRUE(has_problem(manifest, "line 4: ", "4 fields"));
  EXPECT_TRUE(has_problem(manifest, "line 5: ", "'xx' is neither sr nor rr"));
  EXPECT_TRUE(has_problem(manifest, "line 6: ", "[A-Za-z0-9_$]"));
  // A line that failed does not turn on the origin split.
  EXPECT_FALSE(manifest.records_origin);
}

TEST(ReleaseManifest, OriginColumnTurnsOnTheSplit)
{
  Manifest manifest = parse_manifest("dl4rt_input_kernel 8baeb925f177af87 sr\n"
                                     "dl4rt_input_kernel 26332c9543501ce9 rr\n"
                                     "plain 0000000000000001\n");
  ASSERT_EQ(manifest.entries.size(), 3U);
  EXPECT_TRUE(manifest.records_origin);
  EXPECT_EQ(manifest.entries[0].origin, HashOrigin::super_resolution);
  EXPECT_EQ(manifest.entries[1].origin, HashOrigin::ray_reconstruction);
  EXPECT_EQ(manifest.entries[2].origin, HashOrigin::unrecorded);
}

TEST(ReleaseManifest, ReadsAFileAndNamesAMissingOne)
{
  TempTree tree;
  std::filesystem::path path = tree.manifest("gfx1101", "k$1 0123456789ABCDEF\n");
  Expected<Manifest> manifest = read_manifest(path);
  ASSERT_TRUE(manifest) << manifest.error().message;
  ASSERT_EQ(manifest->entries.size(), 1U);
  EXPECT_EQ(manifest->entries[0].name, "k$1");

  std::filesystem::path missing = tree.root() / "nowhere" / "d4r-kernels.txt";
  Expected<Manifest> none = read_manifest(missing);
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message.find(missing.string()), std::string::npos) << none.error().message;
}

TEST(ReleaseManifest, RefusesAManifestOver16MiB)
{
  TempTree tree;
  std::string big((16 << 20) + 1, '#');
  std::filesystem::path path = tree.manifest("", big);
  Expected<Manifest> manifest = read_manifest(path);
  ASSERT_FALSE(manifest);
  EXPECT_EQ(manifest.error().code, ErrorCode::resource_exhausted);
}

TEST(ReleaseManifest, RefusesADirectory)
{
  TempTree tree;
  std::filesystem::path path = tree.mkdir("d4r-kernels.txt");
  Expected<Manifest> manifest = read_manifest(path);
  ASSERT_FALSE(manifest);
  EXPECT_NE(manifest.error().message.find("not a regular file"), std::string::npos)
      << manifest.error().message;
}

} // namespace
} // namespace d4r::release
