#include "daemon/release/directory_selection.hpp"

#include "test_release_tree.hpp"

#include <gtest/gtest.h>

namespace d4r::release {
namespace {

using testing::TempTree;

constexpr std::string_view k_manifest = "d4r_test_layer 8baeb925f177af87\n";

SelectionInputs inputs_for(const TempTree& tree, std::string arch, Mode mode, bool fp8 = true)
{
  return SelectionInputs{tree.root(), std::move(arch), fp8, mode};
}

// The selected folder relative to the tree root ("<none>" when nothing serves), and its kind.
std::string select(const SelectionInputs& inputs)
{
  Expected<std::optional<SelectedDirectory>> selected = select_release_directory(inputs);
  if (!selected) {
    return "error: " + selected.error().message;
  }
  if (!*selected) {
    return "<none>";
  }
  std::string relative = (*selected)->directory.lexically_relative(inputs.root).string();
  const char* kind = (*selected)->kind == DirectoryKind::hash_checked ? "hash" : "dev";
  return relative + " " + kind + " [" + (*selected)->folder_target + "]";
}

// A release root as d4r ships it: fast per-target folders with manifests, gfx1201-fp8, and an
// accuracy/ tree whose folders are each marked.
void make_release(const TempTree& tree)
{
  for (const char* folder : {"gfx1101", "gfx1201", "gfx1201-fp8", "accuracy/gfx1101",
                             "accuracy/gfx1201", "accuracy/gfx1201-fp8"}) {
    tree.object(folder, "d4r_test_layer");
    tree.manifest(folder, k_manifest);
  }
  for (const char* folder : {"accuracy/gfx1101", "accuracy/gfx1201", "accuracy/gfx1201-fp8"}) {
    tree.mark_accuracy(folder);
  }
}

TEST(ReleaseSelection, FastPicksTheTargetFolder)
{
  TempTree tree;
  make_release(tree);
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::fast)), "gfx1101 hash [gfx1101]");
}

TEST(ReleaseSelection, Fp8FolderOnlyOnGfx12WithFp8On)
{
  TempTree tree;
  make_release(tree);
  tree.object("gfx1101-fp8", "d4r_test_layer");
  tree.manifest("gfx1101-fp8", k_manifest); // present but never chosen: gfx11 has no FP8 folder
  EXPECT_EQ(select(inputs_for(tree, "gfx1201", Mode::fast, true)), "gfx1201-fp8 hash [gfx1201-fp8]");
  EXPECT_EQ(select(inputs_for(tree, "gfx1201", Mode::fast, false)), "gfx1201 hash [gfx1201]");
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::fast, true)), "gfx1101 hash [gfx1101]");
}

TEST(ReleaseSelection, Fp8FolderWithoutManifestFallsToTheTargetFolder)
{
  TempTree tree;
  make_release(tree);
  std::filesystem::remove(tree.root() / "gfx1201-fp8" / "d4r-kernels.txt");
  EXPECT_EQ(select(inputs_for(tree, "gfx1201", Mode::fast)), "gfx1201 hash [gfx1201]");
}

TEST(ReleaseSelection, AccuracyPicksTheMarkedAccuracyFolder)
{
  TempTree tree;
  make_release(tree);
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::accuracy)),
            "accuracy/gfx1101 hash [gfx1101]");
  EXPECT_EQ(select(inputs_for(tree, "gfx1201", Mode::accuracy)),
            "accuracy/gfx1201-fp8 hash [gfx1201-fp8]");
  EXPECT_EQ(select(inputs_for(tree, "gfx1201", Mode::accuracy, false)),
            "accuracy/gfx1201 hash [gfx1201]");
}

TEST(ReleaseSelection, AccuracyMarkerMustBeExactlyOneNewline)
{
  TempTree tree;
  make_release(tree);
  const SelectionInputs inputs = inputs_for(tree, "gfx1101", Mode::accuracy);
  const std::filesystem::path folder = "accuracy/gfx1101";
  tree.mark_accuracy(folder, "1\nbuilt by build.sh\n");
  EXPECT_EQ(select(inputs), "accuracy/gfx1101 hash [gfx1101]");
  // The bridge compares the first line, fgets-style, to "1\n": each of these is unmarked.
  for (std::string_view marker : {"0\n", "1", "1\r\n", " 1\n", "11\n", ""}) {
    tree.mark_accuracy(folder, marker);
    EXPECT_EQ(select(inputs), "<none>") << "marker '" << marker << "'";
  }
  std::filesystem::remove(tree.root() / folder / "d4r-accuracy.txt");
  EXPECT_EQ(select(inputs), "<none>");
}

TEST(ReleaseSelection, AccuracyNeverFallsBackToFast)
{
  TempTree tree;
  make_release(tree);
  std::filesystem::remove_all(tree.root() / "accuracy");
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::accuracy)), "<none>");
  // An unmarked accuracy folder with a manifest is fast binaries in the wrong place: refused.
  tree.object("accuracy/gfx1101", "d4r_test_layer");
  tree.manifest("accuracy/gfx1101", k_manifest);
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::accuracy)), "<none>");
}

TEST(ReleaseSelection, AccuracyFp8UnmarkedFallsToTheMarkedTargetFolder)
{
  TempTree tree;
  make_release(tree);
  std::filesystem::remove(tree.root() / "accuracy/gfx1201-fp8" / "d4r-accuracy.txt");
  EXPECT_EQ(select(inputs_for(tree, "gfx1201", Mode::accuracy)),
            "accuracy/gfx1201 hash [gfx1201]");
}

TEST(ReleaseSelection, MarkedRootIsItsOwnAccuracyBase)
{
  TempTree tree;
  tree.mark_accuracy("");
  tree.mark_accuracy("gfx1101");
  tree.manifest("gfx1101", k_manifest);
  tree.object("gfx1101", "d4r_test_layer");
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::accuracy)), "gfx1101 hash [gfx1101]");
}

TEST(ReleaseSelection, MarkedFlatAccuracySetWithoutManifestIsADeveloperSet)
{
  TempTree tree;
  tree.object("accuracy", "d4r_test_layer");
  tree.mark_accuracy("accuracy");
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::accuracy)), "accuracy dev []");
  // A marked target folder without a manifest is a developer set too.
  tree.object("accuracy/gfx1101", "d4r_test_layer");
  tree.mark_accuracy("accuracy/gfx1101");
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::accuracy)), "accuracy/gfx1101 dev [gfx1101]");
}

TEST(ReleaseSelection, MarkedAccuracyBaseWithOtherTargetsServesNothing)
{
  TempTree tree;
  tree.mark_accuracy("accuracy");
  tree.object("accuracy", "stray_top_level_object");
  tree.object("accuracy/gfx1100", "d4r_test_layer");
  tree.mark_accuracy("accuracy/gfx1100");
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::accuracy)), "<none>");
}

TEST(ReleaseSelection, FastFlatManifestSet)
{
  TempTree tree;
  tree.object("", "d4r_test_layer");
  tree.manifest("", k_manifest);
  tree.mkdir("gfx1100"); // a flat manifest is served even beside target folders
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::fast)), ". hash []");
}

TEST(ReleaseSelection, FastFlatDeveloperSet)
{
  TempTree tree;
  tree.object("", "d4r_test_layer");
  tree.mkdir("accuracy"); // not named gfx*: still flat
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::fast)), ". dev []");
}

TEST(ReleaseSelection, FastTargetFolderWithoutManifestIsNotACandidate)
{
  TempTree tree;
  tree.object("gfx1101", "d4r_test_layer");
  EXPECT_EQ(select(inputs_for(tree, "gfx1101", Mode::fast)), "<none>");
}

TEST(ReleaseSelection, RootWithOtherTargetsOnlyServesNothing)
{
  TempTree tree;
  make_release(tree);
  EXPECT_EQ(select(inputs_for(tree, "gfx1102", Mode::fast)), "<none>");
  EXPECT_EQ(select(inputs_for(tree, "gfx1102", Mode::accuracy)), "<none>");
  // A file named gfx* counts as a target entry too, as the bridge's readdir does.
  TempTree flat;
  flat.object("", "d4r_test_layer");
  flat.write("gfx-notes.txt", "x");
  EXPECT_EQ(select(inputs_for(flat, "gfx1101", Mode::fast)), "<none>");
}

TEST(ReleaseSelection, MissingRootServesNothing)
{
  TempTree tree;
  SelectionInputs inputs = inputs_for(tree, "gfx1101", Mode::fast);
  inputs.root = tree.root() / "absent";
  EXPECT_EQ(select(inputs), "<none>");
  inputs.mode = Mode::accuracy;
  EXPECT_EQ(select(inputs), "<none>");
}

TEST(ReleaseSelection, RefusesAnArchThatIsNotAName)
{
  TempTree tree;
  make_release(tree);
  for (std::string arch : {"../gfx1101", "gfx1101/..", "gfx 1101"}) {
    Expected<std::optional<SelectedDirectory>> selected =
        select_release_directory(inputs_for(tree, arch, Mode::fast));
    ASSERT_FALSE(selected) << arch;
    EXPECT_EQ(selected.error().code, ErrorCode::invalid_argument);
  }
}

} // namespace
} // namespace d4r::release
