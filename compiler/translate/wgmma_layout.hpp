#pragma once
// Where wgmma.mma_async (sm_90a) finds and puts matrix elements, as pure functions (no LLVM), so
// that tests check them on the host and lower_wgmma.cpp emits the same arithmetic in IR. PTX ISA
// 9.7.15.5.1 "Register Fragments and Shared Memory Matrix Layouts":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#asynchronous-warpgroup-level-matrix-register-fragments
//
// A warpgroup is four consecutive warps (warp rank % 4 = w) of 128 threads. With g = lane >> 2,
// t = lane & 3:
//   D (m64nN, f32/s32 and f16 alike, element i in register order, f16 two per register, low half
//     first): row 16 w + g + 8 ((i >> 1) & 1), column 8 (i >> 2) + 2 t + (i & 1).
//   A in registers (four .b32 of 32 / bits elements each, for k16 f16/bf16, k8 tf32, k32 s8/u8):
//     register r holds row 16 w + g + 8 (r & 1), K elements q p .. q p + p - 1 (low bits first)
//     with q = 4 (r >> 1) + t and p = 32 / bits: the mma.m16n8k16/k8/k32 A fragment of each warp.
//   A and B in shared memory: a 64-bit matrix descriptor (9.7.15.5.1.2.2): bits 0-13 start
//     address >> 4, 16-29 leading dimension byte offset (LBO) >> 4, 32-45 stride dimension byte
//     offset (SBO) >> 4, 49-51 base offset, 62-63 swizzle mode (0 none, 1 128-byte, 2 64-byte,
//     3 32-byte). The K extent of one instruction is always 32 bytes. With W the swizzle width
//     (16 for none) and e the element bytes, element (mn, k) (mn: row of A or column of B) is at
//     start + off, where
//       K-major (imm-trans 0):  off = (mn % 8) W + (mn / 8) SBO + (kb / 16) S + kb % 16,
//                                kb = k e, S = LBO without swizzling, else 16;
//       MN-major (imm-trans 1): off = mb % W + (mb / W) P + (k % 8) W + (k / 8) Q,
//                                mb = mn e, (P, Q) = (SBO, LBO) without swizzling, else
//                                (LBO, SBO);
//     then the address (18 bits) is swizzled: bits 4.. of it XOR ((address >> 7) - base) masked
//     to W / 16 - 1. These are the canonical layouts CUTLASS documents for its GMMA descriptors
//     (cute/atom/mma_traits_sm90_gmma.hpp, make_gmma_desc: "Swizzle<B,4,3> o smem_ptr o
//     ((8,m),(T,2)):((WT,SBO),(1,T))" and the MN-major forms), applied to the absolute shared
//     address as the ISA's repeating patterns (1024/512/256-byte boundaries) say; the base offset
//     is the pattern start's (address >> 7) & 7 when it is not on its boundary.

#include <cstdint>

namespace d4r::compiler::translate {

struct WgmmaDescriptor {
  uint32_t start = 0;  // byte address in .shared
  uint32_t lbo = 0;    // bytes
  uint32_t sbo = 0;    // bytes
  uint32_t base = 0;   // 0..7
  uint32_t mode = 0;   // 0 none, 1 128B, 2 64B, 3 32B
};

[[nodiscard]] WgmmaDescriptor wgmma_descriptor(uint64_t bits);
// log2 of the swizzle width in bytes: 4 (none), 7, 6, 5.
[[nodiscard]] int wgmma_width_shift(uint32_t mode);
// The .shared byte address of element (mn, k) of an operand of `element_bytes` bytes.
[[nodiscard]] uint32_t wgmma_address(const WgmmaDescriptor& d, int mn, int k, int element_bytes,
                                     bool mn_major);

struct WgmmaPos {
  int row = -1;
  int col = -1;
  bool operator==(const WgmmaPos&) const = default;
};

// D element `element` (register order, f16: two per register) of thread `thread` (0..127).
[[nodiscard]] WgmmaPos wgmma_d_position(int thread, int element);
// A-in-registers element `sub` of register `reg` (0..3) of thread `thread`, `bits` per element.
[[nodiscard]] WgmmaPos wgmma_a_position(int thread, int reg, int sub, int bits);

} // namespace d4r::compiler::translate
