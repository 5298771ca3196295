// kernels/support/warp.c: shfl.sync source lanes, checked for every lane, mode, b and clamp /
// segment mask against CUDA's documented __shfl*_sync(width) semantics (the c values nvcc emits),
// and for every (b, c) against an independent reading of the PTX pseudo-code.

#include "kernels/support/d4r_ptx_support.h"

#include <gtest/gtest.h>

#include <cstdint>

namespace {

// The CUDA programming guide: __shfl_sync(m, v, src, w) reads lane (lane & ~(w-1)) + src % w;
// __shfl_up_sync reads lane - d unless that leaves the segment; __shfl_down_sync lane + d
// likewise; __shfl_xor_sync lane ^ m unless outside the segment. nvcc passes c = ((32 - w) << 8)
// | 31 (idx, down, bfly) and c = (32 - w) << 8 (up).
TEST(KernelsPtxSupportWarp, CudaWidthSemantics)
{
  for (uint32_t w = 1; w <= 32; w *= 2) {
    for (uint32_t lane = 0; lane < 32; ++lane) {
      const uint32_t seg = lane & ~(w - 1);
      for (uint32_t b = 0; b < 32; ++b) {
        uint32_t in_range = 7;
        const uint32_t c_hi = ((32 - w) << 8) | 31u;
        const uint32_t c_up = (32 - w) << 8;
        EXPECT_EQ(__d4r_ptx_shfl_source(lane, 0, b, c_hi, &in_range), seg + b % w);
        EXPECT_EQ(in_range, 1u);
        const bool up_ok = (lane - seg) >= b;
        EXPECT_EQ(__d4r_ptx_shfl_source(lane, 1, b, c_up, &in_range), up_ok ? lane - b : lane);
        EXPECT_EQ(in_range, up_ok ? 1u : 0u);
        const bool down_ok = (lane - seg) + b < w;
        EXPECT_EQ(__d4r_ptx_shfl_source(lane, 2, b, c_hi, &in_range), down_ok ? lane + b : lane);
        EXPECT_EQ(in_range, down_ok ? 1u : 0u);
        const bool xor_ok = ((lane ^ b) & ~(w - 1)) <= seg; // stays in (or below) the segment
        EXPECT_EQ(__d4r_ptx_shfl_source(lane, 3, b, c_hi, &in_range), xor_ok ? (lane ^ b) : lane)
            << "w " << w << " lane " << lane << " b " << b;
      }
    }
  }
}

// The pseudo-code again, as arithmetic on an int64 without masks reused: an independent reading.
TEST(KernelsPtxSupportWarp, EveryClampAndSegmentMask)
{
  int64_t checked = 0;
  for (uint32_t segmask = 0; segmask < 32; ++segmask) {
    for (uint32_t cval = 0; cval < 32; ++cval) {
      const uint32_t c = (segmask << 8) | cval | 0xffff0000u | 0xe0u; // junk bits ignored
      for (uint32_t lane = 0; lane < 32; ++lane) {
        const int64_t max_lane = static_cast<int64_t>((lane & segmask) | (cval & (31u ^ segmask)));
        const int64_t min_lane = static_cast<int64_t>(lane & segmask);
        for (uint32_t b = 0; b < 32; ++b) {
          const int64_t js[4] = {min_lane | static_cast<int64_t>(b & (31u ^ segmask)),
                                 static_cast<int64_t>(lane) - b, static_cast<int64_t>(lane) + b,
                                 static_cast<int64_t>(lane ^ b)};
          for (uint32_t mode = 0; mode < 4; ++mode) {
            const bool pval = mode == 1 ? js[mode] >= max_lane : js[mode] <= max_lane;
            uint32_t in_range = 9;
            const uint32_t got = __d4r_ptx_shfl_source(lane, mode, b | 0x40u, c, &in_range);
            ASSERT_EQ(got, pval ? static_cast<uint32_t>(js[mode]) : lane);
            ASSERT_EQ(in_range, pval ? 1u : 0u);
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_EQ(checked, 32 * 32 * 32 * 32 * 4);
}

} // namespace
