// Native twins of the corpus's mma.sync kernels: the same products written as a hand-written RDNA
// kernel would write them, for d4r-bench-code-quality's native build (clang-19 -x hip). The
// operands are loaded from shared memory straight into the WMMA layout (the address is remapped,
// not the data), the accumulator stays in that layout, and the epilogue combines lanes with DPP
// and v_permlanex16 where it must. The PTX files never see this header (nvcc takes the inline
// mma.sync path).
//
// Each body is a template over a Wave: the lane id, the WMMA instruction and the cross-lane moves.
// On the GPU they are the AMDGPU builtins (DeviceWave, at the end); tests/unit/test_native_mma_twins.cpp
// runs the same bodies with 32 host threads and a model of the WMMA layouts, and compares them
// with the PTX run on the CPU executor, so a twin cannot drift into a stub.
//
// WMMA layouts (wave32; compiler/translate/mma_layout.hpp has the sources, and the test checks
// these against it): gfx11 A lane L = row L%16, K 0..15 in 8 words (lanes 16-31 repeat 0-15); B
// lane L = column L%16, K 0..15; C/D word w = row 2w + L/16, column L%16. gfx12: A lane L = row
// L%16, K 8(L/16) + 0..7 in 4 words (fp8: 2 words); B likewise by column; C/D word w = row
// w + 8(L/16), column L%16. The m16n8 products use columns 0..7; B's columns 8..15 are zero.
#pragma once

#if defined(__HIP__)
#define D4R_TWIN_FN __device__ inline
#else
#define D4R_TWIN_FN inline
#endif

enum class WmmaTarget { gfx11, gfx12 };

struct WmmaAccum {
  float d[8];
};

// f16 operands: 8 words of halves on gfx11, the first 4 on gfx12. fp8 (gfx12 only): 2 words.
struct WmmaHalves {
  unsigned w[8];
};
struct WmmaBytes {
  unsigned w[2];
};

D4R_TWIN_FN float twin_max(float a, float b) { return a > b ? a : b; }

// e4m3 -> f16 bits, exactly (every e4m3 value is an f16): gfx11 has no FP8 conversion.
D4R_TWIN_FN unsigned twin_e4m3_to_f16_bits(unsigned byte)
{
  const unsigned sign = (byte & 0x80u) << 8;
  const unsigned magnitude = byte & 0x7fu;
  if (magnitude == 0x7fu) {
    return sign | 0x7fffu;
  }
  if (magnitude >= 8) { // normal: exponent bias 7 -> 15
    return sign | ((magnitude + 64u) << 7);
  }
  if (magnitude == 0) {
    return sign;
  }
  // subnormal m * 2^-9, normal in f16: exponent field p + 6 for the leading bit p of m
  const unsigned p = magnitude >= 4 ? 2u : magnitude >= 2 ? 1u : 0u;
  return sign | ((p + 6u) << 10) | ((magnitude - (1u << p)) << (10u - p));
}

// Four e4m3 bytes as two words of f16 pairs (lowest byte first).
D4R_TWIN_FN void twin_e4m3_word_to_halves(unsigned word, unsigned* halves)
{
  halves[0] = twin_e4m3_to_f16_bits(word & 0xffu) | twin_e4m3_to_f16_bits((word >> 8) & 0xffu) << 16;
  halves[1] = twin_e4m3_to_f16_bits((word >> 16) & 0xffu) | twin_e4m3_to_f16_bits(word >> 24) << 16;
}

// The WMMA element of accumulator word `w` of `lane`.
D4R_TWIN_FN int twin_d_row(WmmaTarget target, unsigned lane, int w)
{
  return target == WmmaTarget::gfx11 ? 2 * w + static_cast<int>(lane / 16) : w + 8 * static_cast<int>(lane / 16);
}

// The WMMA operand of a lane from an f16 tile staged as mma_tile.cu's enc0_gemm_f16 stages it (and
// texture_layers' fragments are staged): K 0..7 of row (A) or column (B) i in words 4i..4i+3,
// K 8..15 in k_half + 4i.. (A 16 x 16: k_half 64; B 16 x 8: 32, its columns 8..15 zero).
template <WmmaTarget Target>
D4R_TWIN_FN WmmaHalves twin_load_f16(const unsigned* tile, unsigned lane, unsigned k_half, unsigned count)
{
  WmmaHalves x = {};
  const unsigned index = lane % 16;
  if (index >= count) {
    return x;
  }
  for (unsigned j = 0; j < 4; ++j) {
    if constexpr (Target == WmmaTarget::gfx11) {
      x.w[j] = tile[index * 4 + j];
      x.w[4 + j] = tile[k_half + index * 4 + j];
    } else {
      x.w[j] = tile[(lane / 16) * k_half + index * 4 + j];
    }
  }
  return x;
}

template <WmmaTarget Target>
D4R_TWIN_FN WmmaHalves twin_load_a_f16(const unsigned* a_tile, unsigned lane)
{
  return twin_load_f16<Target>(a_tile, lane, 64, 16);
}

template <WmmaTarget Target>
D4R_TWIN_FN WmmaHalves twin_load_b_f16(const unsigned* b_tile, unsigned lane)
{
  return twin_load_f16<Target>(b_tile, lane, 32, 8);
}

// enc0_gemm_f16: out[(block * 32 + lane) * 4 + i] of the PTX lane holding D[r][c] (lane
// (r % 8) * 4 + c / 2, i = (r / 8) * 2 + c % 2) is D / max(m, 1e-6) where positive, else 0, m the
// largest of rows r % 8 and r % 8 + 8 over the four columns 4 (c / 4) .. + 3.
template <class Wave>
D4R_TWIN_FN void enc0_gemm_f16_twin(Wave& wave, const unsigned* a_tiles, const unsigned* b_tiles, float* out,
                                    int k_tiles, unsigned block, unsigned* a_shared, unsigned* b_shared)
{
  const unsigned lane = wave.lane();
  WmmaAccum acc = {};
  for (int k = 0; k < k_tiles; ++k) {
    for (unsigned i = lane; i < 128; i += 32) {
      a_shared[i] = a_tiles[k * 128 + static_cast<int>(i)];
    }
    for (unsigned i = lane; i < 64; i += 32) {
      b_shared[i] = b_tiles[k * 64 + static_cast<int>(i)];
    }
    wave.barrier();
    acc = wave.wmma_f16(twin_load_a_f16<Wave::target>(a_shared, lane),
                        twin_load_b_f16<Wave::target>(b_shared, lane), acc);
    wave.barrier();
  }
  // Rows r and r + 8: words w and w + 4 of one lane (gfx11), word w of lanes L and L ^ 16 (gfx12).
  float pair_max[8];
  for (int w = 0; w < 8; ++w) {
    if constexpr (Wave::target == WmmaTarget::gfx11) {
      pair_max[w] = twin_max(acc.d[w % 4], acc.d[w % 4 + 4]);
    } else {
      pair_max[w] = twin_max(acc.d[w], wave.xor_16(acc.d[w]));
    }
    pair_max[w] = twin_max(pair_max[w], wave.xor_quad(pair_max[w], 1));
    pair_max[w] = twin_max(pair_max[w], wave.xor_quad(pair_max[w], 2));
  }
  const int column = static_cast<int>(lane % 16);
  if (column >= 8) {
    return;
  }
  for (int w = 0; w < 8; ++w) {
    const int row = twin_d_row(Wave::target, lane, w);
    const int index = (static_cast<int>(block) * 32 + (row % 8) * 4 + column / 2) * 4 + (row / 8) * 2 + column % 2;
    out[index] = acc.d[w] > 0.0f ? acc.d[w] / twin_max(pair_max[w], 1e-6f) : 0.0f;
  }
}

// enc0_gemm_e4m3: A (16 x 16 bytes) staged with K 4t..4t+3 of row r in word (r / 8) * 32 +
// (r % 8) * 4 + t; B's word t of column n is b_shared[(n * 4 + t + k) & 31] in step k. out[block
// * 8 + p * 4 + q] = dequant * the sum of D over the rows of parity p and the columns 2q, 2q + 1.
template <class Wave>
D4R_TWIN_FN void enc0_gemm_e4m3_twin(Wave& wave, const unsigned* a_tiles, const unsigned* b_tiles, float* out,
                                     int k_tiles, float dequant, unsigned block, unsigned* a_shared,
                                     unsigned* b_shared)
{
  const unsigned lane = wave.lane();
  const unsigned row = lane % 16; // A: the row; B and D: the column
  const unsigned half = lane / 16;
  WmmaAccum acc = {};
  for (int k = 0; k < k_tiles; ++k) {
    a_shared[lane] = a_tiles[k * 64 + static_cast<int>(lane)];
    a_shared[lane + 32] = a_tiles[k * 64 + static_cast<int>(lane) + 32];
    b_shared[lane] = b_tiles[k * 32 + static_cast<int>(lane)];
    wave.barrier();
    const unsigned a_row = (row / 8) * 32 + (row % 8) * 4;
    if constexpr (Wave::target == WmmaTarget::gfx12) {
      WmmaBytes a = {{a_shared[a_row + 2 * half], a_shared[a_row + 2 * half + 1]}};
      WmmaBytes b = {};
      if (row < 8) {
        for (unsigned j = 0; j < 2; ++j) {
          b.w[j] = b_shared[(row * 4 + 2 * half + j + static_cast<unsigned>(k)) & 31];
        }
      }
      acc = wave.wmma_fp8(a, b, acc);
    } else {
      WmmaHalves a = {};
      WmmaHalves b = {};
      for (unsigned t = 0; t < 4; ++t) {
        twin_e4m3_word_to_halves(a_shared[a_row + t], &a.w[2 * t]);
        if (row < 8) {
          twin_e4m3_word_to_halves(b_shared[(row * 4 + t + static_cast<unsigned>(k)) & 31], &b.w[2 * t]);
        }
      }
      acc = wave.wmma_f16(a, b, acc);
    }
    wave.barrier();
  }
  const int column = static_cast<int>(lane % 16);
  if constexpr (Wave::target == WmmaTarget::gfx11) { // one lane's rows all have the parity L / 16
    float total = 0.0f;
    for (int w = 0; w < 8; ++w) {
      total += acc.d[w];
    }
    total += wave.xor_quad(total, 1);
    if (column < 8 && column % 2 == 0) {
      out[block * 8 + half * 4 + static_cast<unsigned>(column / 2)] = total * dequant;
    }
  } else { // word w is row w + 8 (L / 16): parity w % 2
    float even = acc.d[0] + acc.d[2] + acc.d[4] + acc.d[6];
    float odd = acc.d[1] + acc.d[3] + acc.d[5] + acc.d[7];
    even += wave.xor_16(even);
    odd += wave.xor_16(odd);
    even += wave.xor_quad(even, 1);
    odd += wave.xor_quad(odd, 1);
    if (lane < 8 && column % 2 == 0) {
      out[block * 8 + static_cast<unsigned>(column / 2)] = even * dequant;
      out[block * 8 + 4 + static_cast<unsigned>(column / 2)] = odd * dequant;
    }
  }
}

// texture_layers' product: the lane's four A words in the mma.sync layout (rows g and g + 8, K
// 2t.. and 8 + 2t.. for lane 4g + t) are staged in the warp's 128-word tile and loaded back in the
// WMMA layout; every column of B holds weights[2k] (K 0..7) and weights[2k + 1] (K 8..15). The
// result is this lane's part of the sum of D squared over the 16 x 8 product, which the caller
// sums over the warp as the PTX sums its lanes' four squares.
template <class Wave>
D4R_TWIN_FN float layer_energy_twin(Wave& wave, const float* values, int channels, const unsigned* weights,
                                    unsigned* warp_tile)
{
  const unsigned lane = wave.lane();
  const unsigned group = lane >> 2;
  const unsigned quad = lane & 3;
  WmmaAccum acc = {};
  for (int k = 0; k < channels / 8; ++k) {
    for (int j = 0; j < 4; ++j) {
      unsigned bits;
      __builtin_memcpy(&bits, &values[(k + j) % channels], sizeof(bits));
      warp_tile[(j >> 1) * 64 + (group + 8 * (j & 1)) * 4 + quad] = bits;
    }
    wave.sync();
    WmmaHalves b = {};
    if (lane % 16 < 8) {
      if constexpr (Wave::target == WmmaTarget::gfx11) {
        for (int j = 0; j < 8; ++j) {
          b.w[j] = weights[k * 2 + j / 4];
        }
      } else {
        for (int j = 0; j < 4; ++j) {
          b.w[j] = weights[k * 2 + static_cast<int>(lane / 16)];
        }
      }
    }
    acc = wave.wmma_f16(twin_load_a_f16<Wave::target>(warp_tile, lane), b, acc);
    wave.sync();
  }
  // Columns 8..15 are padding (zero, or NaN where A holds an infinity): not the PTX's product.
  float energy = 0.0f;
  if (lane % 16 < 8) {
    for (int w = 0; w < 8; ++w) {
      energy += acc.d[w] * acc.d[w];
    }
  }
  return energy;
}

#if defined(__HIP__)
// The builtins. DPP quad_perm 0xb1 and 0x4e swap lanes 1 and 2 apart within each quad;
// v_permlanex16 with the identity selects swaps the two halves of the wave.
struct DeviceWave {
#if defined(__gfx1200__) || defined(__gfx1201__)
  static constexpr WmmaTarget target = WmmaTarget::gfx12;
#else
  static constexpr WmmaTarget target = WmmaTarget::gfx11;
#endif
  typedef _Float16 v16h __attribute__((ext_vector_type(16)));
  typedef _Float16 v8h __attribute__((ext_vector_type(8)));
  typedef float v8f __attribute__((ext_vector_type(8)));
  typedef int v2i __attribute__((ext_vector_type(2)));
  typedef unsigned v8u __attribute__((ext_vector_type(8)));
  typedef unsigned v4u __attribute__((ext_vector_type(4)));

  __device__ unsigned lane() const { return __builtin_amdgcn_mbcnt_lo(~0u, 0u); }
  __device__ void barrier() const { __syncthreads(); }
  __device__ void sync() const
  {
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
  }
  __device__ float xor_quad(float v, int mask) const
  {
    const int bits = __builtin_bit_cast(int, v);
    return __builtin_bit_cast(float, mask == 1 ? __builtin_amdgcn_update_dpp(0, bits, 0xb1, 0xf, 0xf, false)
                                               : __builtin_amdgcn_update_dpp(0, bits, 0x4e, 0xf, 0xf, false));
  }
  __device__ float xor_16(float v) const
  {
    const int bits = __builtin_bit_cast(int, v);
    return __builtin_bit_cast(float, __builtin_amdgcn_permlanex16(bits, bits, 0x76543210, 0xfedcba98, false, false));
  }
  __device__ WmmaAccum wmma_f16(const WmmaHalves& a, const WmmaHalves& b, const WmmaAccum& c) const
  {
    const v8f in = __builtin_bit_cast(v8f, c);
#if defined(__gfx1200__) || defined(__gfx1201__)
    const v4u a4 = {a.w[0], a.w[1], a.w[2], a.w[3]};
    const v4u b4 = {b.w[0], b.w[1], b.w[2], b.w[3]};
    return __builtin_bit_cast(WmmaAccum, __builtin_amdgcn_wmma_f32_16x16x16_f16_w32_gfx12(
                                             __builtin_bit_cast(v8h, a4), __builtin_bit_cast(v8h, b4), in));
#else
    return __builtin_bit_cast(WmmaAccum, __builtin_amdgcn_wmma_f32_16x16x16_f16_w32(
                                             __builtin_bit_cast(v16h, a), __builtin_bit_cast(v16h, b), in));
#endif
  }
#if defined(__gfx1200__) || defined(__gfx1201__)
  __device__ WmmaAccum wmma_fp8(const WmmaBytes& a, const WmmaBytes& b, const WmmaAccum& c) const
  {
    return __builtin_bit_cast(WmmaAccum, __builtin_amdgcn_wmma_f32_16x16x16_fp8_fp8_w32_gfx12(
                                             __builtin_bit_cast(v2i, a), __builtin_bit_cast(v2i, b),
                                             __builtin_bit_cast(v8f, c)));
  }
#endif
};
#endif
