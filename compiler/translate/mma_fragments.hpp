#pragma once
// D = A * B + C on warp fragments of any layout (mma_layout.hpp's Fragment): the portable
// lowering that lower_mma.cpp (every mma.sync form but the m16n8k16 ones lower_mma.cpp keeps) and
// lower_wmma.cpp (wmma.mma) share. Each lane computes its own D elements: for each it fetches the
// row of A and the column of B it needs, one whole register at a time, from the lanes that hold
// them (the host: one d4r_rt_warp_gather of every lane's A and B registers; AMDGPU: one
// ds_bpermute per 32-bit word; no exchange where the lane holds the register itself), then sums.
//
// Arithmetic (NVIDIA leaves the tensor cores' summation order unspecified; the order is ours):
//   f16, bf16, tf32 with f32 or f16 C: as the H200's tensor cores (mma_tensor_sum below, measured
//     on random goldens).
//   e4m3, e5m2: as ptxas runs them on the H200 (f16 tensor-core steps, mma_fp8_sum below).
//   NaN gives 0x7fffffff; an f16 D is the f32 rounded to nearest (NaN 0x7fff), as the H200 wrote
//   every f16 D of mat_wmma_f16_random. tf32 inputs are f32 bits whose low 13 mantissa bits are
//   ignored.
//   f64: fma in k order from C, each rounded in the instruction's mode (.rn unless wmma's .rnd
//     says otherwise), NaN as f64 fma: every f64 result of mat_wmma_tf32_f64_random and
//     mat_mma_float_random (an exact sum rounded once misses a sixth of them).
//   s8, u8, s4, u4: exact products summed with C in 64 bits; the s32 D wraps, or with .satfinite
//     clamps to [INT32_MIN, INT32_MAX]. b1: C + popc(A row AND / XOR B column) per word.

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/mma_layout.hpp"

#include <functional>
#include <vector>

namespace d4r::compiler::translate {

enum class MmaElement { f16, bf16, tf32, e4m3, e5m2, f64, s8, u8, s4, u4, b1, f32, s32 };

// Element bits; f32 and s32 are accumulator types only.
[[nodiscard]] int mma_element_bits(MmaElement element);
// "f16" -> f16 ...; nullopt for a name that is no matrix element type.
[[nodiscard]] std::optional<MmaElement> mma_element(std::string_view name);

struct MmaProduct {
  MmaShape shape;
  MmaElement a = MmaElement::f16;
  MmaElement b = MmaElement::f16;
  MmaElement c = MmaElement::f32; // f32, f16, s32, f64
  MmaElement d = MmaElement::f32;
  bool satfinite = false;
  bool b1_and = false;  // b1: .and.popc (else .xor.popc)
  int f64_rounding = 0; // f64: 0 rn, 1 rz, 2 rm, 3 rp (the support library's numbering)
  int k_group = 0;      // f16/bf16/tf32: products per tensor-core step (0: all K)
};

// A sparse A (mma.sp, mma_sparse.hpp): `a` is the fragment of the K/2 stored elements of each
// row, and compressed element c of a row multiplies the row of B its metadata names, so a D
// element sums K/2 products (the hardware never multiplies the zeros it leaves out: a zero there
// against an infinite B gives no NaN). Chunk q of a row holds `stored` elements of `width` columns;
// its metadata nibble is bits 4 (q % 8) + 3 .. 4 (q % 8) of word q / 8 of row_metadata(i), for the
// row of the calling lane's D element i. two_of_four: stored element s of the chunk is at column
// 4 q + bits 2s + 1 .. 2s of the nibble; one_of_two (tf32): at 2 q + bit 1 of the nibble;
// pairs_of_eight (s4/u4): element j (0..3) at 8 q + 2 (bits 2 (j / 2) + 1 .. 2 (j / 2)) + j % 2.
struct MmaSparsity {
  enum class Chunks { two_of_four, one_of_two, pairs_of_eight };
  Chunks chunks = Chunks::two_of_four;
  std::function<std::vector<llvm::Value*>(int d_element)> row_metadata;
};

// Registers are i32, or i64 for f64 fragments; D comes back the same way (f32 as its bits), in
// C's layout, or in `d_layout` where D's differs (mma.m8n8k4 f16 C with f32 D: C's elements move
// to the lanes that hold them in D).
[[nodiscard]] std::vector<llvm::Value*>
emit_mma_product(FunctionTranslator& t, const MmaProduct& product, const Fragment& a,
                 const Fragment& b, const Fragment& c, const std::vector<llvm::Value*>& a_regs,
                 const std::vector<llvm::Value*>& b_regs, const std::vector<llvm::Value*>& c_regs,
                 const Fragment* d_layout = nullptr, const MmaSparsity* sparse = nullptr);

// entries[lane] as an i32 of the calling lane: a constant when uniform, a few integer operations
// when it is entries[0] plus one or two bit fields of the lane times a constant, else a load from
// a [32 x i32] table in the constant space (one global per distinct table in the module; the
// builder's form takes the module from its insertion block and the space's number).
[[nodiscard]] llvm::Value* mma_lane_table(FunctionTranslator& t,
                                          const std::vector<uint32_t>& entries, llvm::Value* lane);
[[nodiscard]] llvm::Value* mma_lane_table(llvm::IRBuilder<>& b, const std::vector<uint32_t>& entries,
                                          llvm::Value* lane, unsigned constant_space);

// Word `word` (of the operand being moved) of lane `source_lane` (i32).
using MmaFetch = std::function<llvm::Value*(llvm::Value* source_lane, int word)>;
// AMDGPU: one ds_bpermute of `words[word]` (mma.sync.aligned runs on all lanes).
[[nodiscard]] MmaFetch bpermute_fetch(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& words);
// mma_word_remap of two mma_layout.hpp layouts, which always remap word by word.
[[nodiscard]] MmaWordRemap layout_word_remap(const MmaLayoutSpec& destination, const MmaLayoutSpec& source);
// The destination words of `remap` for the calling lane `lane`: per word, one fetch for each
// source word some lane needs, a select among them by a lane table, and zero where `remap` says.
[[nodiscard]] std::vector<llvm::Value*> emit_word_remap(llvm::IRBuilder<>& b, const MmaWordRemap& remap,
                                                        llvm::Value* lane, const MmaFetch& fetch,
                                                        unsigned constant_space);
[[nodiscard]] std::vector<llvm::Value*> emit_word_remap(FunctionTranslator& t, const MmaWordRemap& remap,
                                                        llvm::Value* lane, const MmaFetch& fetch);

// The registers of vector operand `index` ({r0, r1, ...}, exactly `count` of them) as i32 (`bits`
// 32) or i64 (64), and the writing of D's.
[[nodiscard]] Expected<std::vector<llvm::Value*>> read_fragment(FunctionTranslator& t,
                                                                const ptx::Instruction& instruction,
                                                                size_t index, int count, int bits);
[[nodiscard]] Expected<void> write_fragment(FunctionTranslator& t,
                                            const ptx::Instruction& instruction, size_t index,
                                            const std::vector<llvm::Value*>& regs, int bits);

// The exponent the H200's tensor cores estimate for a non-zero input of `element` (f16, bf16,
// tf32, e4m3, e5m2; f32 for C): floor(log2 |x|), but for a subnormal the format's smallest normal
// exponent (-14 for f16 and e5m2, -126 for bf16, tf32 and f32, -6 for e4m3), as if its leading zero
// bits were significant. Measured on random programs (version 3 seeds 1..500): a tf32 subnormal
// times 2^125 set E 8 higher than its value, coarsening a whole m16n8k4 sum (r4: 0x3b90d8c0, where
// the value's own exponent gives 0x3b90d8aa).
[[nodiscard]] int mma_min_exponent(MmaElement element);

// C + the products of A and B elements (f64 or f32 values, exact) as the H200's tensor cores sum
// them, before rounding: with each product's exponent estimated as e(a) + e(b) (e(c) for C, zeros
// left out; e as mma_min_exponent says) and E their maximum, every term is truncated toward zero
// to a multiple of 2^(E - bits), but never of less than 2^-158, and the truncated terms are added
// exactly (f64). `bits` is 25 for f16, bf16 and tf32 inputs, 13 for wgmma's FP8. The 2^-158 floor
// is the H100's (golden case mma_subnormal_tiny: sums of products near 2^-149 agree with it in all
// 3072 elements and with no other floor from 2^-175 to 2^-149). An infinite or NaN term makes the
// sum its own.
[[nodiscard]] llvm::Value* mma_exact_tensor_sum(llvm::IRBuilder<>& b,
                                                const std::vector<llvm::Value*>& a,
                                                const std::vector<llvm::Value*>& bv, llvm::Value* c,
                                                int bits, MmaElement a_type, MmaElement b_type);

// C + the products of f16, bf16 or tf32 (`input`) A and B elements as the H200's tensor cores sum
// them: mma_exact_tensor_sum with 25 bits, rounded toward zero to f32. With `group` > 0 the
// products go in steps of `group`, each step's f32 result the next one's C (wmma.m16n16k8 .tf32
// runs as k = 4 steps; 0: one step). Measured on the goldens: every result of
// mat_wmma_f16_random (7,168 f32, 3,072 f16), mat_wmma_bf16_random (6,144),
// mat_wmma_tf32_f64_random (2,048 tf32, steps of 4) and mat_mma_float_random (m16n8k8 f16, bf16,
// tf32 in one step, m16n8k4 tf32), where an exact sum rounded once misses up to a third of them
// (by up to 230 ulp after cancellation). tf32 inputs are truncated to tf32 first (decode()).
[[nodiscard]] llvm::Value* mma_tensor_sum(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& a,
                                          const std::vector<llvm::Value*>& bv, llvm::Value* c,
                                          int group, MmaElement input);

// C + the products of FP8 A and B elements (exact f64 values) as the H200 computes them: ptxas
// (sm_90) widens the FP8 bytes to f16 (exact) and runs the mma as two f16 tensor-core steps from a
// zero accumulator, then adds C with a separate f32 add (FADD; an f16 C and D: HADD2). The first
// step takes the elements k with k % 4 < 2 (the low f16x2 of each widened register; for mma.sp the
// stored elements' order), the second the others plus the first's result, each one step of
// mma_tensor_sum with f16 inputs (with `f16_accumulator`, its f32 then rounded to nearest f16, as
// an f16-D step rounds). D is C + S rounded to nearest f32 (f16), NaN canonical. Measured: every
// result of mat_mma_fp8_random, _wide, _c0, _wide_c0, _tiny (m16n8k16, m16n8k32, all four type
// pairs) and mma_sp_fp8_random, where one exact sum rounded toward zero missed up to 217 of 512.
[[nodiscard]] llvm::Value* mma_fp8_sum(llvm::IRBuilder<>& b, const std::vector<llvm::Value*>& a,
                                       const std::vector<llvm::Value*>& bv, llvm::Value* c,
                                       bool f16_accumulator = false);

// f64 -> f32 rounded toward zero (the f64 is an exact sum; NaN and infinities pass through, a
// magnitude of 2^128 or more becomes an infinity, a non-zero one below 2^-149 becomes +0 whatever
// its sign: the tensor cores' fixed-point sum has no sign left when it truncates to zero; r295 of
// the random programs, -1.5 * 2^-175 + (+0), on an H100: +0).
[[nodiscard]] llvm::Value* mma_round_f32_toward_zero(llvm::IRBuilder<>& b, llvm::Value* sum);
// An FP8 byte (i32, 0..255) as the f64 it denotes exactly: a load from a [256 x double] table in
// the constant space (one per format and module). Three instructions per byte (extract, scale the
// index, load) where decoding by bit operations took about twelve; NaN entries need no care, the
// sums canonicalise the result.
[[nodiscard]] llvm::Value* mma_fp8_value(FunctionTranslator& t, llvm::Value* byte, bool e4m3);

} // namespace d4r::compiler::translate
