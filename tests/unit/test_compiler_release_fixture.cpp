// The release-directory fixture that kernels/CMakeLists.txt lays out: every folder, its objects,
// its manifest with hashes computed from tests/ptx/ (checked here against an independent
// computation and the table of tests/ptx/README.md), and the accuracy marker.

#include "util/ptx_identity.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

const fs::path k_release = D4R_RELEASE_FIXTURE_DIR;
const std::vector<std::string> k_folders = {
    "gfx1100",     "gfx1101",     "gfx1102",          "gfx1103",         "gfx1200",
    "gfx1201",     "gfx1200-fp8", "gfx1201-fp8",      "accuracy/gfx1101", "accuracy/gfx1201"};
const std::vector<std::string> k_shipped = {
    "d4r_test_layer",  "d4r_test_simple",  "rrlite_enc1_4x4", "cuda_dldn_engine_test_kernel",
    "dl4rt_input_kernel", "d4r_broken_prep", "d4r_missing_main", "d4r_bad_symbol"};

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// FNV-1a 64 written out here again, so that the manifest tool's use of util/ is checked too.
std::string fnv1a64_hex(std::string text)
{
  while (!text.empty() && text.back() == '\0') {
    text.pop_back();
  }
  uint64_t hash = 0xcbf29ce484222325ULL;
  for (unsigned char c : text) {
    hash = (hash ^ c) * 0x100000001b3ULL;
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

struct ManifestLine {
  std::string name;
  std::string hash;
  std::string origin;
};

std::vector<ManifestLine> parse_manifest(const std::string& text, int& comments)
{
  std::vector<ManifestLine> lines;
  std::istringstream in(text);
  std::string line;
  comments = 0;
  while (std::getline(in, line)) {
    if (line.starts_with("#")) {
      ++comments;
      EXPECT_TRUE(lines.empty()) << "comment after the entries: " << line;
      continue;
    }
    ManifestLine entry;
    std::istringstream fields(line);
    fields >> entry.name >> entry.hash >> entry.origin;
    std::string rest;
    EXPECT_FALSE(fields >> rest) << "extra field in: " << line;
    lines.push_back(entry);
  }
  return lines;
}

TEST(ReleaseFixture, EveryFolderHoldsEveryKernel)
{
  for (const std::string& folder : k_folders) {
    for (const std::string& kernel : k_shipped) {
      fs::path object = k_release / folder / (kernel + ".hsaco");
      ASSERT_TRUE(fs::is_regular_file(object)) << object;
      EXPECT_GT(fs::file_size(object), 1000u) << object;
    }
    EXPECT_FALSE(fs::exists(k_release / folder / "d4r_not_shipped.hsaco"));
    EXPECT_TRUE(fs::is_regular_file(k_release / folder / "d4r-kernels.txt")) << folder;
  }
  EXPECT_EQ(read_text(k_release / "accuracy" / "d4r-accuracy.txt"), "1\n");
  EXPECT_EQ(read_text(k_release / "accuracy" / "gfx1101" / "d4r-accuracy.txt"), "1\n");
  EXPECT_EQ(read_text(k_release / "accuracy" / "gfx1201" / "d4r-accuracy.txt"), "1\n");
  EXPECT_FALSE(fs::exists(k_release / "d4r-accuracy.txt"));
  EXPECT_FALSE(fs::exists(k_release / "accuracy" / "gfx1100"));
}

TEST(ReleaseFixture, ManifestHashesFollowThePtx)
{
  std::string sr_text = read_text(fs::path(D4R_TEST_SOURCE_DIR) / "ptx" / "sr_module.ptx");
  std::string rr_text = read_text(fs::path(D4R_TEST_SOURCE_DIR) / "ptx" / "rr_module.ptx");
  std::string sr = fnv1a64_hex(sr_text);
  std::string rr = fnv1a64_hex(rr_text);
  // The values of tests/ptx/README.md, computed there in Python.
  EXPECT_EQ(sr, "8baeb925f177af87");
  EXPECT_EQ(rr, "26332c9543501ce9");

  int comments = 0;
  std::vector<ManifestLine> lines =
      parse_manifest(read_text(k_release / "gfx1201" / "d4r-kernels.txt"), comments);
  EXPECT_GE(comments, 1);
  std::map<std::string, std::vector<ManifestLine>> by_name;
  for (const ManifestLine& line : lines) {
    EXPECT_EQ(line.hash.size(), 16u) << line.name;
    EXPECT_TRUE(std::ranges::all_of(line.hash, [](char c) {
      return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
    })) << line.hash;
    by_name[line.name].push_back(line);
  }
  EXPECT_TRUE(std::ranges::is_sorted(lines, {}, &ManifestLine::name));

  std::vector<std::string> expected_names = k_shipped;
  expected_names.push_back("d4r_not_shipped");
  ASSERT_EQ(by_name.size(), expected_names.size());
  for (const std::string& name : expected_names) {
    ASSERT_EQ(by_name[name].size(), 1u) << name;
    const ManifestLine& line = by_name[name].front();
    bool from_rr = name == "cuda_dldn_engine_test_kernel";
    EXPECT_EQ(line.hash, from_rr ? rr : sr) << name;
    EXPECT_EQ(line.origin, from_rr ? "rr" : "sr") << name;
  }
  // RR also defines dl4rt_input_kernel, but the RR split keeps its hash off that name.
  std::vector<std::string> rr_entries = d4r::scan_entry_names(rr_text);
  EXPECT_NE(std::ranges::find(rr_entries, "dl4rt_input_kernel"), rr_entries.end());
}

TEST(ReleaseFixture, ManifestsAgreeAcrossFolders)
{
  std::string reference = read_text(k_release / "gfx1100" / "d4r-kernels.txt");
  ASSERT_FALSE(reference.empty());
  for (const std::string& folder : k_folders) {
    EXPECT_EQ(read_text(k_release / folder / "d4r-kernels.txt"), reference) << folder;
  }
}

} // namespace
