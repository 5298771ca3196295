#include "daemon/release/authorization.hpp"

#include <gtest/gtest.h>

namespace d4r::release {
namespace {

// Module hashes of our PTX fixtures (tests/ptx): sr_module.ptx and rr_module.ptx.
constexpr uint64_t k_sr_hash = 0x8baeb925f177af87ULL;
constexpr uint64_t k_rr_hash = 0x26332c9543501ce9ULL;

Authorization check(const Manifest& manifest, std::string_view kernel, uint64_t hash,
                    bool swin = true)
{
  return authorize(DirectoryKind::hash_checked, &manifest, AuthorizationInputs{kernel, hash, swin});
}

TEST(ReleaseAuthorization, ListedPairIsAllowed)
{
  Manifest manifest = parse_manifest("d4r_test_layer 8baeb925f177af87\n");
  Authorization result = check(manifest, "d4r_test_layer", k_sr_hash);
  EXPECT_EQ(result.verdict, Verdict::allowed);
  EXPECT_TRUE(result.reason.empty());
}

TEST(ReleaseAuthorization, AnyListedHashOfTheNameMatches)
{
  Manifest manifest = parse_manifest("k 1111111111111111\nk 8baeb925f177af87\n");
  EXPECT_EQ(check(manifest, "k", k_sr_hash).verdict, Verdict::allowed);
  EXPECT_EQ(check(manifest, "k", 0x1111111111111111ULL).verdict, Verdict::allowed);
}

TEST(ReleaseAuthorization, UnlistedNameIsNotListed)
{
  Manifest manifest = parse_manifest("d4r_test_layer 8baeb925f177af87\n");
  Authorization result = check(manifest, "d4r_test_simple", k_sr_hash);
  EXPECT_EQ(result.verdict, Verdict::not_listed);
  EXPECT_NE(result.reason.find("d4r_test_simple"), std::string::npos);
}

TEST(ReleaseAuthorization, OtherHashIsAMismatchNamingBoth)
{
  Manifest manifest = parse_manifest("d4r_test_layer 8baeb925f177af87\nd4r_test_layer "
                                     "1111111111111111\n");
  Authorization result = check(manifest, "d4r_test_layer", k_rr_hash);
  EXPECT_EQ(result.verdict, Verdict::hash_mismatch);
  EXPECT_NE(result.reason.find("got 26332c9543501ce9"), std::string::npos) << result.reason;
  EXPECT_NE(result.reason.find("8baeb925f177af87"), std::string::npos) << result.reason;
  EXPECT_NE(result.reason.find("1111111111111111"), std::string::npos) << result.reason;
}

TEST(ReleaseAuthorization, SwinSwitchDropsExactlyTheTwoEncoders)
{
  Manifest manifest = parse_manifest("rrlite_enc1_4x4 8baeb925f177af87\n"
                                     "rrlite_enc2_4x4 8baeb925f177af87\n"
                                     "rrlite_enc3_4x4 8baeb925f177af87\n"
                                     "rrlite_enc1_4x4_x 8baeb925f177af87\n");
  EXPECT_EQ(check(manifest, "rrlite_enc1_4x4", k_sr_hash, false).verdict, Verdict::switched_off);
  EXPECT_EQ(check(manifest, "rrlite_enc2_4x4", k_sr_hash, false).verdict, Verdict::switched_off);
  EXPECT_EQ(check(manifest, "rrlite_enc3_4x4", k_sr_hash, false).verdict, Verdict::allowed);
  EXPECT_EQ(check(manifest, "rrlite_enc1_4x4_x", k_sr_hash, false).verdict, Verdict::allowed);
  EXPECT_EQ(check(manifest, "rrlite_enc1_4x4", k_sr_hash, true).verdict, Verdict::allowed);
}

TEST(ReleaseAuthorization, SwinSwitchDropsADeveloperSetEntirely)
{
  AuthorizationInputs on{"d4r_test_layer", 42, true};
  AuthorizationInputs off{"d4r_test_layer", 42, false};
  EXPECT_EQ(authorize(DirectoryKind::developer_set, nullptr, on).verdict, Verdict::allowed);
  Authorization dropped = authorize(DirectoryKind::developer_set, nullptr, off);
  EXPECT_EQ(dropped.verdict, Verdict::switched_off);
  EXPECT_FALSE(dropped.reason.empty());
}

TEST(ReleaseAuthorization, RrSplitRefusesSrHashForRrKernel)
{
  Manifest manifest = parse_manifest("cuda_dldn_engine_test_kernel 8baeb925f177af87 sr\n"
                                     "cuda_dldn_engine_test_kernel 26332c9543501ce9 rr\n");
  EXPECT_EQ(check(manifest, "cuda_dldn_engine_test_kernel", k_rr_hash).verdict, Verdict::allowed);
  Authorization result = check(manifest, "cuda_dldn_engine_test_kernel", k_sr_hash);
  EXPECT_EQ(result.verdict, Verdict::wrong_origin);
  EXPECT_EQ(result.reason, "hash 8baeb925f177af87 comes from the super resolution library and "
                           "cannot authorise cuda_dldn_engine_test_kernel");
}

TEST(ReleaseAuthorization, RrSplitRefusesRrHashForSrKernel)
{
  Manifest manifest = parse_manifest("dl4rt_input_kernel 8baeb925f177af87 sr\n"
                                     "dl4rt_input_kernel 26332c9543501ce9 rr\n");
  EXPECT_EQ(check(manifest, "dl4rt_input_kernel", k_sr_hash).verdict, Verdict::allowed);
  Authorization result = check(manifest, "dl4rt_input_kernel", k_rr_hash);
  EXPECT_EQ(result.verdict, Verdict::wrong_origin);
  EXPECT_EQ(result.reason, "hash 26332c9543501ce9 comes from the ray reconstruction library and "
                           "cannot authorise dl4rt_input_kernel");
}

TEST(ReleaseAuthorization, RrSplitRefusesUnrecordedLinesOnceAnyLineRecords)
{
  Manifest manifest = parse_manifest("dl4rt_input_kernel 8baeb925f177af87\n"
                                     "other 26332c9543501ce9 rr\n");
  ASSERT_TRUE(manifest.records_origin);
  EXPECT_EQ(check(manifest, "dl4rt_input_kernel", k_sr_hash).verdict, Verdict::wrong_origin);
}

TEST(ReleaseAuthorization, NoSplitRecordedAllowsEitherHash)
{
  Manifest manifest = parse_manifest("dl4rt_input_kernel 8baeb925f177af87\n"
                                     "dl4rt_input_kernel 26332c9543501ce9\n"
                                     "cuda_dldn_engine_test_kernel 8baeb925f177af87\n");
  ASSERT_FALSE(manifest.records_origin);
  EXPECT_EQ(check(manifest, "dl4rt_input_kernel", k_sr_hash).verdict, Verdict::allowed);
  EXPECT_EQ(check(manifest, "dl4rt_input_kernel", k_rr_hash).verdict, Verdict::allowed);
  EXPECT_EQ(check(manifest, "cuda_dldn_engine_test_kernel", k_sr_hash).verdict, Verdict::allowed);
}

TEST(ReleaseAuthorization, VerdictNames)
{
  EXPECT_STREQ(to_string(Verdict::allowed), "allowed");
  EXPECT_STREQ(to_string(Verdict::wrong_origin), "wrong origin");
  EXPECT_STREQ(to_string(Verdict::switched_off), "switched off");
}

} // namespace
} // namespace d4r::release
