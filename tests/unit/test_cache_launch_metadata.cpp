// The cache's own encoding of launch metadata (version 2), and the reader of version 1, the RPC's
// protobuf message that rows of schema version 4 hold: fed the bytes protobuf itself writes.

#include "cache/launch_metadata.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <gtest/gtest.h>

namespace d4r::cache {
namespace {

LaunchMetadata sample()
{
  LaunchMetadata meta;
  meta.amdhsa_target = "amdgcn-amd-amdhsa--gfx1201";
  meta.main = LaunchKernel{"k_main", 64, 8, 32, 40, 96, 4096, 128, 1024};
  meta.prep = LaunchKernel{"k_main_prep", 16, 8, 32, 10, 20, 0, 0, 256};
  meta.prep_blocks = 3;
  meta.prep_key_offset = 8;
  meta.prep_key_at = 12;
  meta.prep_key_slots = 4;
  meta.prep_identity_at = 20;
  meta.block_z = 2;
  meta.grid_x = 0xffffffffU;
  meta.posts = {LaunchPost{"k_main_post1", 0, 0, 32, 1, 1}, LaunchPost{"k_main_post2", 4, 5, 64, 2, 1}};
  meta.host_variables = {LaunchVariable{"d_table", 256}, LaunchVariable{"k_wide", 1ULL << 40}};
  meta.tensor_map_layout = 0xd4a7a9e1U;
  return meta;
}

// What wire.cpp's serialize_launch_meta wrote into rows before schema version 5.
std::string as_protobuf(const LaunchMetadata& meta)
{
  ::d4r::kernel::v1::LaunchMetadata out;
  auto fill = [](const LaunchKernel& from, ::d4r::kernel::v1::KernelResources& to) {
    to.set_name(from.name);
    to.set_kernarg_size(from.kernarg_size);
    to.set_kernarg_align(from.kernarg_align);
    to.set_wave_size(from.wave_size);
    to.set_sgpr_count(from.sgpr_count);
    to.set_vgpr_count(from.vgpr_count);
    to.set_lds_bytes(from.lds_bytes);
    to.set_scratch_bytes(from.scratch_bytes);
    to.set_max_workgroup_size(from.max_workgroup_size);
  };
  out.set_amdhsa_target(meta.amdhsa_target);
  fill(meta.main, *out.mutable_main());
  if (meta.prep) {
    fill(*meta.prep, *out.mutable_prep());
  }
  out.set_prep_blocks(meta.prep_blocks);
  out.set_prep_key_offset(meta.prep_key_offset);
  out.set_prep_key_at(meta.prep_key_at);
  out.set_prep_key_slots(meta.prep_key_slots);
  out.set_prep_identity_at(meta.prep_identity_at);
  out.set_block_z(meta.block_z);
  out.set_grid_x(meta.grid_x);
  for (const LaunchPost& post : meta.posts) {
    ::d4r::kernel::v1::PostKernel& p = *out.add_posts();
    p.set_name(post.name);
    p.set_grid_x(post.grid_x);
    p.set_grid_y(post.grid_y);
    p.set_block_x(post.block_x);
    p.set_block_y(post.block_y);
    p.set_block_z(post.block_z);
  }
  for (const LaunchVariable& variable : meta.host_variables) {
    ::d4r::kernel::v1::HostVariable& v = *out.add_host_variables();
    v.set_name(variable.name);
    v.set_size(variable.size);
  }
  out.set_tensor_map_layout(meta.tensor_map_layout);
  return out.SerializeAsString();
}

TEST(LaunchMetadata, EncodesAndDecodesEveryField)
{
  for (LaunchMetadata meta : {sample(), LaunchMetadata{}}) {
    const std::string encoded = encode_launch_metadata(meta);
    EXPECT_EQ(static_cast<uint8_t>(encoded[0]), k_launch_metadata_version);
    Expected<LaunchMetadata> decoded = decode_launch_metadata(encoded);
    ASSERT_TRUE(decoded) << decoded.error().message;
    EXPECT_EQ(*decoded, meta);
  }
  LaunchMetadata no_prep = sample();
  no_prep.prep.reset();
  EXPECT_EQ(decode_launch_metadata(encode_launch_metadata(no_prep)), no_prep);
}

TEST(LaunchMetadata, RefusesWhatItDidNotWrite)
{
  const std::string encoded = encode_launch_metadata(sample());
  EXPECT_FALSE(decode_launch_metadata("")) << "no metadata at all";
  EXPECT_FALSE(decode_launch_metadata(as_protobuf(sample()))) << "version 1 is the migration's";
  for (size_t cut = 1; cut < encoded.size(); ++cut) {
    EXPECT_FALSE(decode_launch_metadata(std::string_view(encoded).substr(0, cut))) << cut;
  }
  EXPECT_FALSE(decode_launch_metadata(encoded + '\0')) << "overlong";
  // A count far past what the rest could hold fails before anything is reserved for it.
  LaunchMetadata empty;
  std::string huge = encode_launch_metadata(empty);
  const size_t posts_at = huge.size() - 4 - 4 - 4; // posts count, variables count, layout
  huge[posts_at + 3] = '\x7f';
  EXPECT_FALSE(decode_launch_metadata(huge));
}

TEST(LaunchMetadata, ReadsVersion1AsProtobufWroteIt)
{
  for (LaunchMetadata meta : {sample(), LaunchMetadata{}}) {
    Expected<LaunchMetadata> decoded = decode_launch_metadata_v1(as_protobuf(meta));
    ASSERT_TRUE(decoded) << decoded.error().message;
    EXPECT_EQ(*decoded, meta);
  }
  // Fields this reader does not know (a later .proto's) are skipped, as protobuf skips them.
  ::d4r::kernel::v1::LaunchMetadata with_unknown;
  ASSERT_TRUE(with_unknown.ParseFromString(as_protobuf(sample())));
  with_unknown.GetReflection()->MutableUnknownFields(&with_unknown)->AddVarint(99, 5);
  with_unknown.GetReflection()->MutableUnknownFields(&with_unknown)->AddFixed32(98, 5);
  with_unknown.GetReflection()->MutableUnknownFields(&with_unknown)->AddLengthDelimited(97, "x");
  EXPECT_EQ(decode_launch_metadata_v1(with_unknown.SerializeAsString()), sample());
}

TEST(LaunchMetadata, Version1RefusesBrokenWireFormat)
{
  const std::string good = as_protobuf(sample());
  EXPECT_FALSE(decode_launch_metadata_v1(good.substr(0, good.size() - 1)));
  EXPECT_FALSE(decode_launch_metadata_v1(std::string("\x0a\x7f", 2))) << "length past the end";
  EXPECT_FALSE(decode_launch_metadata_v1(std::string("\x08\xff\xff", 3))) << "unfinished varint";
  EXPECT_FALSE(decode_launch_metadata_v1(std::string("\x0b", 1))) << "a group";
  EXPECT_FALSE(decode_launch_metadata_v1(std::string("\x00\x01", 2))) << "field number 0";
}

} // namespace
} // namespace d4r::cache
