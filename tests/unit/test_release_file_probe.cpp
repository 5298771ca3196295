// CatalogAnswer::probes: an allowed answer's file-system facts hold while the release is as it was
// judged, and stop holding on any change that could change the answer.

#include "daemon/release/release_catalog.hpp"

#include "test_release_tree.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <thread>
#include <unistd.h>

namespace d4r::release {
namespace {

using testing::TempTree;

constexpr uint64_t k_sr_hash = 0x8baeb925f177af87ULL;

AuthorizationInputs request(std::string_view kernel)
{
  return AuthorizationInputs{kernel, k_sr_hash, true};
}

CatalogAnswer allowed(const ReleaseCatalog& catalog, const SelectionInputs& inputs)
{
  Expected<CatalogAnswer> answer = catalog.find(inputs, request("d4r_test_layer"));
  EXPECT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer ? answer->authorization.verdict : Verdict::not_listed, Verdict::allowed);
  return answer ? *answer : CatalogAnswer{};
}

void make_folder(const TempTree& tree, const std::string& folder)
{
  tree.object(folder, "d4r_test_layer");
  tree.manifest(folder, "d4r_test_layer 8baeb925f177af87\n");
}

// Timestamps are as coarse as the kernel's clock tick: wait one out before changing a file.
void next_tick()
{
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
}

const SelectionInputs k_fast_gfx1101{"", "gfx1101", true, Mode::fast};

TEST(ReleaseFileProbe, HoldWhileNothingChanges)
{
  TempTree tree;
  make_folder(tree, "gfx1101");
  ReleaseCatalog catalog(tree.root());
  CatalogAnswer answer = allowed(catalog, k_fast_gfx1101);
  // The manifest (its stat and lstat as one) and the object: two stats to check it again.
  EXPECT_EQ(answer.probes.size(), 2U);
  EXPECT_TRUE(probes_still_hold(answer.probes));
  EXPECT_TRUE(probes_still_hold(answer.probes));
  // Other files elsewhere do not matter.
  tree.object("gfx1201", "d4r_test_layer");
  EXPECT_TRUE(probes_still_hold(answer.probes));
}

TEST(ReleaseFileProbe, ARewrittenManifestBreaksThemEvenWithItsOldMtime)
{
  TempTree tree;
  make_folder(tree, "gfx1101");
  const std::filesystem::path manifest = tree.root() / "gfx1101" / "d4r-kernels.txt";
  ReleaseCatalog catalog(tree.root());
  CatalogAnswer answer = allowed(catalog, k_fast_gfx1101);
  std::filesystem::file_time_type old_time = std::filesystem::last_write_time(manifest);
  next_tick();
  tree.manifest("gfx1101", "d4r_test_layer 1111111111111111\n"); // the same size
  std::filesystem::last_write_time(manifest, old_time);
  EXPECT_FALSE(probes_still_hold(answer.probes)); // the ctime moved
}

TEST(ReleaseFileProbe, AReplacedOrRemovedObjectBreaksThem)
{
  TempTree tree;
  make_folder(tree, "gfx1101");
  const std::filesystem::path object = tree.root() / "gfx1101" / "d4r_test_layer.hsaco";
  ReleaseCatalog catalog(tree.root());
  CatalogAnswer answer = allowed(catalog, k_fast_gfx1101);
  next_tick();
  tree.write("gfx1101/new.tmp", "fake hsaco d4r_test_layer"); // replaced by a rename, same bytes
  std::filesystem::rename(tree.root() / "gfx1101" / "new.tmp", object);
  EXPECT_FALSE(probes_still_hold(answer.probes));

  CatalogAnswer again = allowed(catalog, k_fast_gfx1101);
  EXPECT_TRUE(probes_still_hold(again.probes));
  ASSERT_EQ(::unlink(object.c_str()), 0);
  EXPECT_FALSE(probes_still_hold(again.probes));
}

TEST(ReleaseFileProbe, ASymlinkRetargetedBreaksThem)
{
  TempTree tree;
  tree.manifest("gfx1101", "d4r_test_layer 8baeb925f177af87\n");
  const std::filesystem::path one = tree.write("store/one.hsaco", "fake hsaco one");
  const std::filesystem::path two = tree.write("store/two.hsaco", "fake hsaco two");
  const std::filesystem::path link = tree.root() / "gfx1101" / "d4r_test_layer.hsaco";
  std::filesystem::create_symlink(one, link);
  ReleaseCatalog catalog(tree.root());
  CatalogAnswer answer = allowed(catalog, k_fast_gfx1101);
  EXPECT_TRUE(probes_still_hold(answer.probes));
  std::filesystem::remove(link);
  std::filesystem::create_symlink(two, link);
  EXPECT_FALSE(probes_still_hold(answer.probes));
}

TEST(ReleaseFileProbe, AFolderThatWouldBeChosenFirstBreaksThem)
{
  TempTree tree;
  make_folder(tree, "gfx1201");
  ReleaseCatalog catalog(tree.root());
  const SelectionInputs fp8{"", "gfx1201", true, Mode::fast};
  CatalogAnswer answer = allowed(catalog, fp8);
  ASSERT_TRUE(answer.directory);
  EXPECT_EQ(answer.directory->folder_target, "gfx1201");
  make_folder(tree, "gfx1201-fp8"); // gfx12 with native FP8 prefers it now
  EXPECT_FALSE(probes_still_hold(answer.probes));
  CatalogAnswer again = allowed(catalog, fp8);
  ASSERT_TRUE(again.directory);
  EXPECT_EQ(again.directory->folder_target, "gfx1201-fp8");
}

TEST(ReleaseFileProbe, AnAccuracyMarkerRemovedBreaksThem)
{
  TempTree tree;
  make_folder(tree, "accuracy/gfx1101");
  tree.mark_accuracy("accuracy/gfx1101");
  ReleaseCatalog catalog(tree.root());
  const SelectionInputs accuracy{"", "gfx1101", true, Mode::accuracy};
  CatalogAnswer answer = allowed(catalog, accuracy);
  EXPECT_TRUE(probes_still_hold(answer.probes));
  ASSERT_EQ(::unlink((tree.root() / "accuracy" / "gfx1101" / "d4r-accuracy.txt").c_str()), 0);
  EXPECT_FALSE(probes_still_hold(answer.probes));
  // And one put at the root makes the root the accuracy release.
  tree.mark_accuracy("accuracy/gfx1101");
  CatalogAnswer marked = allowed(catalog, accuracy);
  EXPECT_TRUE(probes_still_hold(marked.probes));
  tree.mark_accuracy("");
  EXPECT_FALSE(probes_still_hold(marked.probes));
}

} // namespace
} // namespace d4r::release
