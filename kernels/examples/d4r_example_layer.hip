// d4r_example_layer: the whole launch-metadata contract in one object. A main kernel that stages
// its input through LDS, a _prep kernel, _post1 and _post2, and every u32 contract symbol set to a
// distinct non-zero value, so that a reader that mixes two symbols up is caught.
//
// The build-flag lines below are read by the recipe (compiler/recipe.cpp) as the d4r build reads
// them: the gfx1101 line replaces the default for gfx1101 only, the gfx12 line for gfx1200 and
// gfx1201. D4R_EXAMPLE_TUNED doubles d4r_grid_x so that a test sees which line a build took.
// d4r-build-flags: -O3
// d4r-build-flags-gfx1101: -O3 -DD4R_EXAMPLE_TUNED
// d4r-build-flags-gfx12: -O2 -mcumode
#include "../include/d4r_kernel.h"

extern "C" {
D4R_U32(d4r_prep_blocks, 12);
D4R_U32(d4r_prep_key_offset, 64);
D4R_U32(d4r_prep_key_at, 17);
D4R_U32(d4r_prep_key_slots, 4);
D4R_U32(d4r_prep_identity_at, 80);
D4R_U32(d4r_block_z, 2);
#ifdef D4R_EXAMPLE_TUNED
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
D4R_U32(d4r_post2_block_x, 64);
D4R_U32(d4r_post2_block_y, 2);
D4R_U32(d4r_post2_block_z, 1);
}

// Parameters: 8 + 8 + 8 + 4 = 28 bytes of kernarg segment; the prep key (d4r_prep_key_at = 17)
// is the u64 at offset 16, `key`.
D4R_KERNEL d4r_example_layer(const float* in, float* out, unsigned long long key, unsigned n)
{
  D4R_SHARED float tile[256];
  unsigned lane = d4r_lane();
  unsigned i = d4r_index(256u);
  float x = i < n ? in[i] : 0.0f;
  tile[lane & 255u] = x;
  __builtin_amdgcn_s_barrier();
  float y = tile[(lane + 1u) & 255u] + tile[(lane + 255u) & 255u];
  if (i < n) {
    out[i] = 0.5f * y + static_cast<float>(key & 0xffu);
  }
}

D4R_KERNEL d4r_example_layer_prep(const float* in, float* out, unsigned long long key, unsigned n)
{
  unsigned i = d4r_index(128u);
  if (i < n) {
    out[i] = in[i] * static_cast<float>(key);
  }
}

D4R_KERNEL d4r_example_layer_post1(const float* in, float* out, unsigned long long key, unsigned n)
{
  unsigned i = d4r_index(96u);
  if (i < n) {
    out[i] += in[i] + static_cast<float>(key >> 8);
  }
}

D4R_KERNEL d4r_example_layer_post2(const float* in, float* out, unsigned long long key, unsigned n)
{
  unsigned i = d4r_index(64u);
  if (i < n && key != 0) {
    out[i] = out[i] > 0.0f ? out[i] : 0.0f;
  }
}
