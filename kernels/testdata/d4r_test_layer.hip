// d4r_test_layer: a main kernel with a prep kernel, post1, post2 and a stray post4, and every
// symbol of the launch-metadata contract set to a distinct non-zero value, so that a reader that
// mixes two symbols up fails its test. post2 leaves its block fields unset (block_y is an explicit
// 0 in .bss), so the 32/1/1 defaults apply. post4 exists but post3 does not: probing stops at 3.
// -DD4R_FP8 (the -fp8 folders) changes d4r_grid_x so that a test can tell which folder served.
// -DD4R_ACCURACY takes an IEEE division where the fast build uses the hardware reciprocal.
#include "d4r_contract.h"

extern "C" {
D4R_U32(d4r_prep_blocks, 12);
D4R_U32(d4r_prep_key_offset, 64);
D4R_U32(d4r_prep_key_at, 17);
D4R_U32(d4r_prep_key_slots, 4);
D4R_U32(d4r_prep_identity_at, 80);
D4R_U32(d4r_block_z, 2);
#ifdef D4R_FP8
D4R_U32(d4r_grid_x, 176);
#else
D4R_U32(d4r_grid_x, 88);
#endif
D4R_U32(d4r_post1_grid_x, 5);
D4R_U32(d4r_post1_grid_y, 6);
D4R_U32(d4r_post1_block_x, 96);
D4R_U32(d4r_post1_block_y, 3);
D4R_U32(d4r_post1_block_z, 7);
D4R_U32(d4r_post2_grid_x, 10);
D4R_U32(d4r_post2_grid_y, 11);
D4R_U32(d4r_post2_block_y, 0);
D4R_U32(d4r_post4_grid_x, 13);
}

// Parameters: 8 + 8 + 8 + 4 = 28 bytes of kernarg segment.
D4R_KERNEL d4r_test_layer(const float* in, float* out, unsigned long long key, unsigned n)
{
  __attribute__((shared)) float tile[256];
  unsigned lane = __builtin_amdgcn_workitem_id_x();
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 256u + lane;
  float x = i < n ? in[i] : 0.0f;
  tile[lane & 255u] = x;
  __builtin_amdgcn_s_barrier();
  float y = tile[(lane + 1u) & 255u] + 1.0f;
#ifdef D4R_ACCURACY
  float r = x / y;
#else
  float r = x * __builtin_amdgcn_rcpf(y);
#endif
  if (i < n) {
    out[i] = r + static_cast<float>(key & 0xffu);
  }
}

D4R_KERNEL d4r_test_layer_prep(const float* in, float* out, unsigned long long key, unsigned n)
{
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 128u + __builtin_amdgcn_workitem_id_x();
  if (i < n) {
    out[i] = in[i] * static_cast<float>(key);
  }
}

D4R_KERNEL d4r_test_layer_post1(const float* in, float* out, unsigned long long key, unsigned n)
{
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 96u + __builtin_amdgcn_workitem_id_x();
  if (i < n) {
    out[i] += in[i] + static_cast<float>(key >> 8);
  }
}

D4R_KERNEL d4r_test_layer_post2(const float* in, float* out, unsigned long long key, unsigned n)
{
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 32u + __builtin_amdgcn_workitem_id_x();
  if (i < n && key != 0) {
    out[i] -= in[i];
  }
}

D4R_KERNEL d4r_test_layer_post4(const float* in, float* out, unsigned long long key, unsigned n)
{
  unsigned i = __builtin_amdgcn_workitem_id_x();
  if (i < n && key == 0) {
    out[i] = in[i];
  }
}
