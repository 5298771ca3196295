// The one text form of a cache key: what the build service wrote before (the negative cache's
// file names are its SHA-256), and parse_key_text reading every text back to its key.

#include "cache/cache_key.hpp"

#include <gtest/gtest.h>

namespace d4r::cache {
namespace {

CacheKey recipe_key()
{
  return CacheKey{0, "k_main", "gfx1201", "", "llvm-19:abc", "recipe:swin@3:0f0f"};
}

TEST(CacheKey, TextIsWhatTheBuildServiceWrote)
{
  // The old build_service key_text: mode|kernel|target|toolchain|recipe[|module hash].
  EXPECT_EQ(recipe_key().to_text(Mode::fast), "fast|k_main|gfx1201|llvm-19:abc|recipe:swin@3:0f0f");
  CacheKey ptx = recipe_key();
  ptx.module_hash = 0x0123456789abcdefULL;
  EXPECT_EQ(ptx.to_text(Mode::accuracy),
            "accuracy|k_main|gfx1201|llvm-19:abc|recipe:swin@3:0f0f|0123456789abcdef");
}

TEST(CacheKey, EveryFieldChangesTheText)
{
  const std::string base = recipe_key().to_text(Mode::fast);
  std::vector<CacheKey> changed(6, recipe_key());
  changed[0].module_hash = 7;
  changed[1].kernel = "k_other";
  changed[2].target = "gfx1201-fp8";
  changed[3].variant = "o=3";
  changed[4].toolchain = "comgr";
  changed[5].recipe = "recipe:swin@4:0f0f";
  for (const CacheKey& key : changed) {
    EXPECT_NE(key.to_text(Mode::fast), base);
  }
  EXPECT_NE(recipe_key().to_text(Mode::accuracy), base);
}

TEST(CacheKey, ParseReadsBackEveryKey)
{
  CacheKey odd{0xffffffffffffffffULL, "zluda_ab", "gfx1100", "-O3|fast%math,x", "id|1%", "r"};
  for (const CacheKey& key : {recipe_key(), odd, CacheKey{1, "k", "t", "v", "c", "r"}}) {
    for (Mode mode : {Mode::fast, Mode::accuracy}) {
      Expected<ParsedKey> parsed = parse_key_text(key.to_text(mode));
      ASSERT_TRUE(parsed) << parsed.error().message;
      EXPECT_EQ(parsed->mode, mode);
      EXPECT_EQ(parsed->key, key);
    }
  }
  // A '|' inside a field cannot pass for a field boundary.
  EXPECT_EQ(odd.to_text(Mode::fast), "fast|zluda_ab|gfx1100|id%7C1%25|r|ffffffffffffffff|variant=-O3%7Cfast%25math,x");
}

TEST(CacheKey, ParseRefusesWhatToTextNeverWrites)
{
  for (std::string_view text :
       {"", "fast|k|t|c", "slow|k|t|c|r", "fast|k|t|c|r|0000000000000000", "fast|k|t|c|r|ABCDEF0123456789",
        "fast|k|t|c|r|12", "fast|k|t|c|r|variant=", "fast|k|t|c|r|variant=a|0123456789abcdef",
        "fast|k%41|t|c|r", "fast|k|t|c|r|0123456789abcdef|variant=a|x"}) {
    EXPECT_FALSE(parse_key_text(text)) << text;
  }
}

TEST(CacheKey, KernelOnlyKeepsWhatNamesTheKernel)
{
  CacheKey key{5, "k", "gfx1201", "v", "tc", "r"};
  EXPECT_EQ(key.kernel_only(), (CacheKey{5, "k", "gfx1201", "", "", ""}));
  EXPECT_EQ(key.describe(), "kernel k (ptx 0000000000000005)");
}

} // namespace
} // namespace d4r::cache
