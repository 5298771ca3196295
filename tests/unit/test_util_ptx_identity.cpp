#include "util/ptx_identity.hpp"

#include "tests/support/read_file.hpp"

#include "util/digest.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace d4r {
namespace {

using d4r::testing::read_file;

TEST(PtxModuleHash, IgnoresTrailingNuls)
{
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/rr_module.ptx");
  ASSERT_FALSE(ptx.empty());
  std::string padded = ptx + std::string(5, '\0');
  EXPECT_EQ(ptx_module_hash(padded), ptx_module_hash(ptx));
  // Independently computed (tests/ptx/README.md).
  EXPECT_EQ(hash_to_hex(ptx_module_hash(padded)), "26332c9543501ce9");
  EXPECT_EQ(ptx_module_hash(std::string(3, '\0')), fnv1a64(std::string_view()));
}

TEST(PtxTextOfImage, StopsAtFirstNul)
{
  std::string image = std::string(".version 8.0\n") + '\0' + "garbage";
  std::string_view text =
      ptx_text_of_image({reinterpret_cast<const std::byte*>(image.data()), image.size()});
  EXPECT_EQ(text, ".version 8.0\n");
}

TEST(ScanEntryNames, FindsTheFixtureEntries)
{
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/sr_module.ptx");
  std::vector<std::string> names = scan_entry_names(ptx);
  std::vector<std::string> expected = {"d4r_test_layer", "d4r_test_simple", "rrlite_enc1_4x4",
                                       "rrlite_enc2_4x4", "dl4rt_input_kernel"};
  EXPECT_EQ(names, expected);
}

TEST(ScanEntryNames, FollowsTheBridgeGrammar)
{
  std::string text = ".entry a(\n"
                     ".entry  b_$1 \t(\n"
                     ".entryc(\n"          // no blank after .entry
                     ".entry d\n{\n"       // no parenthesis
                     ".entry e-f(\n"       // '-' ends the name before '('
                     ".func g(\n"          // not an entry
                     ".entry a(\n";        // duplicate
  std::vector<std::string> expected = {"a", "b_$1"};
  EXPECT_EQ(scan_entry_names(text), expected);
}

// The bridge's scan stopped at 127 bytes and dropped longer names without a word; C++ template
// kernels have names of thousands. Every length is listed, whole.
TEST(ScanEntryNames, ListsNamesOfAnyLength)
{
  for (size_t length : {127u, 128u, 256u, 1500u, 100000u}) {
    std::string name = "_Z" + std::string(length - 2, 'x');
    std::vector<std::string> names = scan_entry_names(".visible .entry " + name + "(\n.param .u64 p\n)");
    ASSERT_EQ(names.size(), 1u) << length;
    EXPECT_EQ(names.front(), name) << length;
  }
}

} // namespace
} // namespace d4r
