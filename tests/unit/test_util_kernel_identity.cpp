#include "util/kernel_identity.hpp"

#include <gtest/gtest.h>

namespace d4r {
namespace {

TEST(KernelName, AcceptsIdentifiers)
{
  EXPECT_TRUE(validate_kernel_name("hiluma_engine_output_depthinv_mvhi_hdr_v1_rel"));
  EXPECT_TRUE(validate_kernel_name("a$b_9"));
  EXPECT_TRUE(validate_kernel_name(std::string(255, 'k')));
  // A C++ template kernel's mangled name runs to thousands of bytes.
  EXPECT_TRUE(validate_kernel_name(std::string(1527, 'k')));
  EXPECT_TRUE(validate_kernel_name(std::string(k_max_kernel_name, 'k')));
}

TEST(KernelName, RefusesPathsAndOddBytes)
{
  for (std::string bad : {std::string(), std::string("a/b"), std::string(".."),
                          std::string("../x"), std::string("a\0b", 3), std::string("a b"),
                          std::string("k\xff"), std::string(k_max_kernel_name + 1, 'k')}) {
    Expected<void> result = validate_kernel_name(bad);
    ASSERT_FALSE(result) << "accepted: " << bad;
    EXPECT_EQ(result.error().code, ErrorCode::invalid_argument);
    EXPECT_FALSE(result.error().message.empty());
  }
}

TEST(Target, KnownTargetsOnly)
{
  for (std::string_view arch : k_known_targets) {
    EXPECT_TRUE(validate_target(arch));
  }
  EXPECT_FALSE(validate_target("gfx1036"));
  EXPECT_FALSE(validate_target("gfx1201-fp8"));
  EXPECT_FALSE(validate_target(""));
  EXPECT_TRUE(target_has_native_fp8("gfx1201"));
  EXPECT_FALSE(target_has_native_fp8("gfx1101"));
}

TEST(Mode, ParsesBothModes)
{
  EXPECT_EQ(parse_mode("fast"), Mode::fast);
  EXPECT_EQ(parse_mode("accuracy"), Mode::accuracy);
  EXPECT_FALSE(parse_mode("precise"));
  EXPECT_STREQ(to_string(Mode::accuracy), "accuracy");
}

TEST(RayReconstruction, PrefixRule)
{
  EXPECT_TRUE(is_ray_reconstruction_kernel("cuda_dldn_engine_swin_enc0_kernel"));
  EXPECT_FALSE(is_ray_reconstruction_kernel("dl4rt_input_kernel"));
}

} // namespace
} // namespace d4r
