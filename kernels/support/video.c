/* video.c: PTX's video instructions, exactly the ISA pseudo-code (lower_video.cpp calls these with
 * constant selectors and flags, which fold after inlining).
 * https://docs.nvidia.com/cuda/parallel-thread-execution/#video-instructions
 *
 * Scalar (vadd, vsub, vabsdiff, vmin, vmax, vshl, vshr, vset):
 *   ta = partSelectSignExtend(a, atype, asel); tb = partSelectSignExtend(b, btype, bsel);
 *   tmp = ta OP tb (a wide intermediate); tmp = optSaturate(tmp, sat, isSigned(dtype), dsel);
 *   d = optSecondaryOp(op2, tmp, c) (.add: tmp + c, .min/.max); d = optMerge(dsel, tmp, c).
 *   vshl/vshr: tb is unsigned; .clamp makes tb > 32 into 32, .wrap takes tb & 0x1f.
 *   vset: tmp = (ta CMP tb) ? 1 : 0, no saturation.
 *   Where an NVIDIA H200 computes otherwise (.sat on unsigned words and signed merges, vshl's
 *   saturation, the secondary .min/.max, the .h1 merge) these functions follow the H200: see
 *   d4r_video_saturate, d4r_video_takes_result and __d4r_ptx_video.
 * SIMD (vadd2 ... vset2, vadd4 ... vset4): each element of a and b is picked from the halves
 * (bytes) of {b, a} (a's are 0-1 (0-3), b's 2-3 (4-7)), extended after its type; the results are
 * saturated to the element's range with .sat; then either d = c with the masked elements replaced
 * (merge), or with .add d = c + the sum of the masked elements.
 *   vavrg: (x + y + 1) >> 1 when x + y >= 0, else (x + y) >> 1.
 * Selectors: scalar 0-3 byte, 4-5 half, 6 the whole word. SIMD: element i's source index in bits
 * [2i+1:2i] (halves) or [3i+2:3i] (bytes). The signedness word: bit 0 atype, 1 btype, 2 dtype.
 */
#include "d4r_ptx_internal.h"

uint32_t __d4r_ptx_video(uint32_t op, uint32_t a, uint32_t asel, uint32_t b, uint32_t bsel,
                         uint32_t c, uint32_t dsel, uint32_t signs, uint32_t sat, uint32_t op2);
uint32_t __d4r_ptx_video2(uint32_t op, uint32_t a, uint32_t asel, uint32_t b, uint32_t bsel,
                          uint32_t c, uint32_t mask, uint32_t signs, uint32_t sat, uint32_t add);
uint32_t __d4r_ptx_video4(uint32_t op, uint32_t a, uint32_t asel, uint32_t b, uint32_t bsel,
                          uint32_t c, uint32_t mask, uint32_t signs, uint32_t sat, uint32_t add);

/* Operations: the arithmetic ones, the shifts with their mode, and the comparisons (vset). */
enum {
  V_ADD = 0,
  V_SUB = 1,
  V_ABSDIFF = 2,
  V_MIN = 3,
  V_MAX = 4,
  V_AVRG = 5,
  V_SHL_CLAMP = 6,
  V_SHL_WRAP = 7,
  V_SHR_CLAMP = 8,
  V_SHR_WRAP = 9,
  V_SET_EQ = 16, /* eq, ne, lt, le, gt, ge in this order */
};

D4R_INLINE int64_t d4r_extend(uint32_t x, int bits, int is_signed)
{
  if (bits == 32) {
    return is_signed ? (int64_t)(int32_t)x : (int64_t)x;
  }
  const uint32_t mask = (1u << bits) - 1u;
  x &= mask;
  if (is_signed && (x >> (bits - 1)) != 0) {
    return (int64_t)x - ((int64_t)1 << bits);
  }
  return (int64_t)x;
}

/* partSelectSignExtend: a byte (0-3), a half (4-5) or the word (6). */
D4R_INLINE int64_t d4r_part(uint32_t x, uint32_t sel, int is_signed)
{
  if (sel < 4) {
    return d4r_extend(x >> (8 * sel), 8, is_signed);
  }
  if (sel < 6) {
    return d4r_extend(x >> (16 * (sel - 4)), 16, is_signed);
  }
  return d4r_extend(x, 32, is_signed);
}

D4R_INLINE int64_t d4r_clamp(int64_t x, int bits, int is_signed)
{
  const int64_t high = is_signed ? ((int64_t)1 << (bits - 1)) - 1 : ((int64_t)1 << bits) - 1;
  const int64_t low = is_signed ? -((int64_t)1 << (bits - 1)) : 0;
  return x < low ? low : (x > high ? high : x);
}

D4R_INLINE int d4r_compare(uint32_t cmp, int64_t x, int64_t y)
{
  switch (cmp) {
  case 0:
    return x == y;
  case 1:
    return x != y;
  case 2:
    return x < y;
  case 3:
    return x <= y;
  case 4:
    return x > y;
  default:
    return x >= y;
  }
}

/* The primary operation on two extended elements, in 64 bits (exact: |x|, |y| < 2^32). */
D4R_INLINE int64_t d4r_video_op(uint32_t op, int64_t x, int64_t y)
{
  switch (op) {
  case V_ADD:
    return x + y;
  case V_SUB:
    return x - y;
  case V_ABSDIFF:
    return x > y ? x - y : y - x;
  case V_MIN:
    return x < y ? x : y;
  case V_MAX:
    return x > y ? x : y;
  case V_AVRG:
    return x + y >= 0 ? (x + y + 1) >> 1 : (x + y) >> 1;
  default:
    return d4r_compare(op - V_SET_EQ, x, y) ? 1 : 0;
  }
}

/* vshl/vshr: tb is at most 32 after .clamp and at most 31 after .wrap; the low 64 bits of the
 * shift are exact, which is all the rules below read. */
D4R_INLINE int64_t d4r_video_shift(uint32_t op, int64_t ta, uint32_t tb)
{
  if (op == V_SHL_CLAMP || op == V_SHR_CLAMP) {
    tb = tb > 32u ? 32u : tb;
  } else {
    tb &= 31u;
  }
  if (op == V_SHR_CLAMP || op == V_SHR_WRAP) {
    return ta >> tb;
  }
  return (int64_t)((uint64_t)ta << tb);
}

/* .sat on a scalar result, as an NVIDIA H200 computes it (tests/golden/expected/video_*: every
 * form of tests/ptx/isa/video.cu on 1,024 inputs). The ISA's optSaturate clamps to the range of
 * the destination (the merged byte or half, else the word); the H200 does that for signed words
 * and for unsigned merges, and otherwise:
 *   - an unsigned word clamps only below: max(tmp, 0), then the low 32 bits
 *     (vadd.u32.u32.u32.sat 0x80ff7f01 + 0x80ff7f01 = 0x01fefe02);
 *   - a merge is an unsigned minimum of the low 33 bits with the byte's or half's maximum
 *     (vadd.s32.s32.s32.sat d.b3 of -1 + -1 writes 0x7f; vadd.s32.s32.s32.sat d.h0 of
 *     0x80000000 + 0x80000000 writes 0x7fff; vadd.u32.s32.s32.sat d.h0 of a negative sum 0xffff);
 *   - vshl/vshr clamp to the word's range whatever the merge, vshl after wrapping its result to a
 *     34-bit signed value (vshl.s32 0x80ff7f01 << 32 saturates to 0x7fffffff).
 * The merges and the forms of video_extra.cu were measured on the H200 too (the values in
 * tests/unit/test_compiler_translate_new_forms.cpp, HostVideoH200Values). */
D4R_INLINE int64_t d4r_video_saturate(uint32_t op, int64_t tmp, uint32_t dsel, int d_signed)
{
  if (op >= V_SHL_CLAMP && op <= V_SHR_WRAP) {
    if (op == V_SHL_CLAMP || op == V_SHL_WRAP) {
      const uint64_t low = (uint64_t)tmp & ((1ull << 34) - 1u);
      tmp = (low >> 33) != 0 ? (int64_t)low - ((int64_t)1 << 34) : (int64_t)low;
    }
    return d4r_clamp(tmp, 32, d_signed);
  }
  if (dsel == 6) {
    if (d_signed) {
      return d4r_clamp(tmp, 32, 1);
    }
    return tmp < 0 ? 0 : (int64_t)(uint32_t)tmp;
  }
  const int bits = dsel < 4 ? 8 : 16;
  const uint64_t low = (uint64_t)tmp & ((1ull << 33) - 1u);
  const uint64_t top = d_signed ? (1ull << (bits - 1)) - 1u : (1ull << bits) - 1u;
  return (int64_t)(low < top ? low : top);
}

/* c as the secondary operation reads it: extended after the destination's signedness. */
D4R_INLINE int64_t d4r_video_word(int64_t x, int is_signed)
{
  return is_signed ? (int64_t)(int32_t)(uint32_t)x : (int64_t)(uint32_t)x;
}

/* Whether the secondary .min/.max takes the result over c (.min: it is below c; .max: above), as
 * an NVIDIA H200 decides (tests/golden/expected/video_secondary_*: 36 forms, every signedness mix
 * of a, b and d, with .sat, with selectors and with c = b, on 5 632 inputs): a 64-bit comparison
 * in the destination's signedness of c, extended after that signedness, with the result, which
 * for vadd and vsub is its low 32 bits sign-extended and for vabsdiff, vmin and vmax the exact
 * wide value. So vadd.u32.u32.u32.min of 0x88b76e84 + 0x039bf7b5 against c = 0x9075b645 is c (the
 * sum's bit 31 makes it above every unsigned c), and vabsdiff.u32.u32.s32.min of a difference of
 * 2^32 or more against any c is c. vshl/vshr and vavrg with .min/.max were not measured: they
 * follow vadd and vsub. */
D4R_INLINE int d4r_video_takes_result(uint32_t op, int64_t tmp, int64_t tc, int d_signed, int is_min)
{
  const int wide = op == V_ABSDIFF || op == V_MIN || op == V_MAX;
  const int64_t x = wide ? tmp : (int64_t)(int32_t)(uint32_t)tmp;
  if (d_signed) {
    return is_min ? x < tc : x > tc;
  }
  return is_min ? (uint64_t)x < (uint64_t)tc : (uint64_t)x > (uint64_t)tc;
}

D4R_API uint32_t __d4r_ptx_video(uint32_t op, uint32_t a, uint32_t asel, uint32_t b, uint32_t bsel,
                                 uint32_t c, uint32_t dsel, uint32_t signs, uint32_t sat,
                                 uint32_t op2)
{
  const int a_signed = (int)(signs & 1u);
  const int b_signed = (int)((signs >> 1) & 1u);
  const int d_signed = (int)((signs >> 2) & 1u);
  const int64_t ta = d4r_part(a, asel, a_signed);
  int64_t tmp;
  if (op >= V_SHL_CLAMP && op <= V_SHR_WRAP) {
    tmp = d4r_video_shift(op, ta, (uint32_t)d4r_part(b, bsel, 0));
  } else {
    tmp = d4r_video_op(op, ta, d4r_part(b, bsel, b_signed));
  }
  if (sat != 0 && op < V_SET_EQ) {
    tmp = d4r_video_saturate(op, tmp, dsel, d_signed);
  }
  const int64_t tc = d4r_video_word(c, d_signed);
  switch (op2) {
  case 1:
    tmp = tmp + tc;
    break;
  case 2:
    tmp = d4r_video_takes_result(op, tmp, tc, d_signed, 1) ? tmp : tc;
    break;
  case 3:
    tmp = d4r_video_takes_result(op, tmp, tc, d_signed, 0) ? tmp : tc;
    break;
  default:
    break;
  }
  const uint32_t t = (uint32_t)tmp;
  if (dsel < 4) {
    const uint32_t shift = 8u * dsel;
    return ((t & 0xffu) << shift) | (c & ~(0xffu << shift));
  }
  if (dsel == 4) {
    return (t & 0xffffu) | (c & 0xffff0000u);
  }
  if (dsel == 5) {
    /* The H200 does not move the result into the upper half: d = tmp[31:16] : c[15:0], with .sat
     * or without (with .sat the upper half is then 0). */
    return (t & 0xffff0000u) | (c & 0xffffu);
  }
  return t;
}

/* The SIMD forms: `n` elements of `bits` bits; `index_bits` bits of selector per element. */
D4R_INLINE uint32_t d4r_video_simd(uint32_t op, uint32_t a, uint32_t asel, uint32_t b,
                                   uint32_t bsel, uint32_t c, uint32_t mask, uint32_t signs,
                                   uint32_t sat, uint32_t add, int n, int bits)
{
  const uint64_t both = ((uint64_t)b << 32) | a;
  const int index_bits = n == 2 ? 2 : 3;
  const uint32_t index_mask = (1u << index_bits) - 1u;
  const uint32_t element_mask = (uint32_t)((1ull << bits) - 1u);
  uint32_t d = c;
  uint32_t sum = c;
  for (int i = 0; i < n; ++i) {
    const uint32_t ia = (asel >> (index_bits * i)) & index_mask;
    const uint32_t ib = (bsel >> (index_bits * i)) & index_mask;
    const int64_t x = d4r_extend((uint32_t)(both >> (bits * ia)), bits, (int)(signs & 1u));
    const int64_t y = d4r_extend((uint32_t)(both >> (bits * ib)), bits, (int)((signs >> 1) & 1u));
    int64_t t = d4r_video_op(op, x, y);
    if (sat != 0 && op < V_SET_EQ) {
      t = d4r_clamp(t, bits, (int)((signs >> 2) & 1u));
    }
    if (((mask >> i) & 1u) == 0) {
      continue;
    }
    sum += (uint32_t)t;
    const int shift = bits * i;
    d = (d & ~(element_mask << shift)) | (((uint32_t)t & element_mask) << shift);
  }
  return add != 0 ? sum : d;
}

D4R_API uint32_t __d4r_ptx_video2(uint32_t op, uint32_t a, uint32_t asel, uint32_t b,
                                  uint32_t bsel, uint32_t c, uint32_t mask, uint32_t signs,
                                  uint32_t sat, uint32_t add)
{
  return d4r_video_simd(op, a, asel, b, bsel, c, mask, signs, sat, add, 2, 16);
}

D4R_API uint32_t __d4r_ptx_video4(uint32_t op, uint32_t a, uint32_t asel, uint32_t b,
                                  uint32_t bsel, uint32_t c, uint32_t mask, uint32_t signs,
                                  uint32_t sat, uint32_t add)
{
  return d4r_video_simd(op, a, asel, b, bsel, c, mask, signs, sat, add, 4, 8);
}
