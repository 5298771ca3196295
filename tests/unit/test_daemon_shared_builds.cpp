// What a build offered to the other hosts says (shared_builds.hpp): read back as written, and
// anything else (another version, a missing or empty field, a bad mode or hash) refused, so a
// host never builds from a job it misreads.

#include "daemon/shared_builds.hpp"

#include <gtest/gtest.h>

namespace d4r::daemon {
namespace {

TEST(SharedBuilds, AJobReadsBackAsWritten)
{
  SharedBuild build{.recipe = "translate-ptx",
                    .kernel = "_Z6kernelPfS_i",
                    .target = "gfx1201",
                    .mode = Mode::accuracy,
                    .module_hash = 0x8baeb925f177af87ULL};
  std::string body = encode_shared_build(build);
  EXPECT_EQ(body, "d4r-build 1\ntranslate-ptx\n_Z6kernelPfS_i\ngfx1201\naccuracy\n8baeb925f177af87");
  std::optional<SharedBuild> read = decode_shared_build(body);
  ASSERT_TRUE(read);
  EXPECT_EQ(read->recipe, build.recipe);
  EXPECT_EQ(read->kernel, build.kernel);
  EXPECT_EQ(read->target, build.target);
  EXPECT_EQ(read->mode, build.mode);
  EXPECT_EQ(read->module_hash, build.module_hash);
}

TEST(SharedBuilds, AnythingElseIsRefused)
{
  for (const char* body : {"", "d4r-build 2\nr\nk\ngfx1201\nfast\n0000000000000000",
                           "d4r-build 1\nr\nk\ngfx1201\nfast", // a field missing
                           "d4r-build 1\n\nk\ngfx1201\nfast\n0000000000000000",
                           "d4r-build 1\nr\nk\ngfx1201\nquick\n0000000000000000",
                           "d4r-build 1\nr\nk\ngfx1201\nfast\n00000000",
                           "d4r-build 1\nr\nk\ngfx1201\nfast\n0000000000000000\nextra"}) {
    EXPECT_FALSE(decode_shared_build(body)) << body;
  }
}

} // namespace
} // namespace d4r::daemon
