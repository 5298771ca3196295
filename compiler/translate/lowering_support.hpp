#pragma once
// Helpers the lower_*.cpp files share: modifiers, operand counts, and the float details PTX fixes
// exactly (subnormal flushing for .ftz, saturation for .sat, the NaN a result carries).
//
// NaN rules. PTX leaves most NaN bit patterns unspecified; these are what an NVIDIA H200 wrote
// (tests/golden/expected/, inputs from the cases' seeds), and both targets reproduce them (the
// host run bit for bit; on AMDGPU the game sees NVIDIA's bits). x86 and AMDGPU hardware propagate
// input payloads differently, so every float result that can be NaN gets an explicit select (one
// compare, which LLVM drops where it proves the result is not NaN).
//   f32 arithmetic (add, sub, mul, fma/mad, div, sqrt, rcp, the .approx functions, every rounding
//     mode, .ftz or not): the canonical 0x7fffffff, whatever the inputs' sign and payload
//     (float_arith_*: host x + y keeps the input payload, the GPU does not). f16/bf16: 0x7fff.
//   f64 arithmetic (add, sub, mul, fma, div, sqrt, rcp, every rounding mode): the FIRST NaN operand
//     in operand order (a, b, c), quieted, sign and payload kept; a NaN made from non-NaN operands
//     (0 * inf, inf - inf, 0 / 0, sqrt(-1)) is 0xfff8000000000000 (double_arith_*: 100% of 1,900
//     NaN results: add(0x7ff0000000000001, 0x7ff8000000000000) = 0x7ff8000000000001,
//     add(0x7ff8000000000000, 0x7ff0000000000001) = 0x7ff8000000000000, fma(1, 2, 0x7ff8..05) =
//     0x7ff8..05, sub(x, NaN) keeps the NaN's sign, 0 * inf = 0xfff8000000000000).
//   min/max f32 (.ftz or not): one NaN operand gives the other operand; two NaNs, or .NaN with
//     any NaN, give 0x7fffffff (float_minmax_*, nan_bits_f32_*). min/max f64: one NaN gives the
//     other; two NaNs give a NaN PTX does not fix and ptxas decides by its operand order: a,
//     quieted, in double_arith_* (nvcc's fmin: min(0xffffffffffffffff, 0x7ff8000000000000) =
//     0xffffffffffffffff), b, quieted, for the same min.f64 a, b written as inline PTX
//     (nan_bits_f64_edges, compared NaN-as-NaN for that reason). We give a, quieted.
//   abs and neg are an add of -0 on NVIDIA (FADD/DADD with an operand modifier), not bit
//     operations, wherever ptxas keeps them as instructions (nan_bits_*: every context but the
//     folded ones below): f32, f16, bf16, f16x2, bf16x2 (.ftz or not): a NaN gives the canonical
//     NaN (0x7fffffff, 0x7fff per half; neg(0xffc00000) = abs(0x7fc00001) = 0x7fffffff); f64: the
//     NaN quieted with its sign untouched (abs(0xfff8000000000000) = 0xfff8000000000000,
//     neg(0x7ff0000000000001) = 0x7ff8000000000001). Other inputs are bit operations (neg(+0) =
//     -0; subnormals kept unless .ftz flushed them to a zero of their sign first). Where ptxas
//     folds abs/neg into the next instruction the NaN is that instruction's: abs into selp keeps
//     the payload with the sign cleared, neg of neg is a move, neg into cvt.f64.f32 keeps the
//     sign (nan_bits_f32_*'s out2, recorded, not compared): no translator of PTX can see that.
//   copysign is a pure bit operation, NaNs included (copysign(0x7f800001 with a negative sign)
//     = 0xff800001, not quieted); so are selp and mov, f32 and f64 (nan_bits_*).
//   cvt f32 -> f64: sign and payload kept (payload << 29), quiet bit set (cvt_f32_*: 0x7fc00001 ->
//     0x7ff8000020000000, 0xffffffff -> 0xffffffffe0000000, sNaN 0x7f800001 -> 0x7ff8000020000000);
//     cvt.ftz.f64.f32 first turns the NaN into the canonical f32 NaN (cvt_f32_ftz_*: every NaN ->
//     0x7fffffffe0000000). cvt f64 -> f32 (every mode, .ftz or not) and f64 -> f16: sign and the
//     payload's top bits kept, quiet bit set (cvt_f64_*: 0xfff4000000000000 -> 0xffe00000 and
//     f16 0xff00). cvt.rXi.f64.f64: the input quieted (0xfff4.. -> 0xfffc..).
//   cvt f32 -> f16/bf16, f16 -> f32 and cvt{.rXi}{.ftz}.f32.f32: canonical (0x7fff, 0x7fffffff;
//     cvt_f32_*, cvt_f16_exhaustive: all 2,046 NaN halves -> 0x7fffffff). .sat makes NaN +0.
//     f16/bf16 -> f64, bf16 <-> f64: no golden covers them; canonical.
//   mov, ld, st, selp, shfl, prmt and every other data movement never touch bits: a NaN travels
//     unchanged (shfl_widths: lane 8's 0xffa00000 comes back from cvt.f64.f32, mul.f64, two
//     shfl.bfly of the halves, sub.f64 and cvt.rn.f32.f64 as 0xffe00000, the f64 rules above).
// Round-to-nearest f32/f64 arithmetic is native LLVM wrapped in nan_result(); directed rounding,
// min/max, conversions and the .approx instructions call the support library
// (kernels/support/d4r_ptx_support.h), which implements the same rules.

#include "compiler/translate/function_translator.hpp"

#include <span>
#include <string_view>

namespace d4r::compiler::translate {

[[nodiscard]] bool has_modifier(const ptx::Instruction& instruction, std::string_view modifier);
// "unsupported" unless every modifier of `instruction` is in `known`. A lowering lists what it
// implements (and what it may ignore, with the reason where it declares the list), so that a
// modifier it has never heard of (a new type, .relu, .oob, a state space such as .shared::cluster)
// makes the kernel go to ZLUDA instead of being translated without it.
[[nodiscard]] Expected<void> known_modifiers(FunctionTranslator& t,
                                             const ptx::Instruction& instruction,
                                             std::span<const std::string_view> known);
// "unsupported" unless exactly one modifier names a type (parse_type): a mixed-precision form such
// as add.f32.f16 would otherwise be read as its last type. Types parse_type does not know (tf32,
// e4m3, u128, s16x2) are left to known_modifiers.
[[nodiscard]] Expected<void> one_type(FunctionTranslator& t, const ptx::Instruction& instruction);
// The last modifier that names a fundamental type, or an error.
[[nodiscard]] Expected<PtxType> last_type(FunctionTranslator& t, const ptx::Instruction& instruction);
// The two last type modifiers (cvt.DTYPE.STYPE, set.CMP.DTYPE.STYPE).
[[nodiscard]] Expected<std::pair<PtxType, PtxType>> two_types(FunctionTranslator& t,
                                                              const ptx::Instruction& instruction);
[[nodiscard]] Expected<void> expect_operands(FunctionTranslator& t,
                                             const ptx::Instruction& instruction, size_t count);
// The rounding-mode modifier as the support library numbers it: 0 rn, 1 rz, 2 rm, 3 rp, 4 rna
// (.rni/.rzi/.rmi/.rpi give the same numbers); -1 without one.
[[nodiscard]] int rounding_mode(const ptx::Instruction& instruction);

// Whether the function being built runs with f32 denormals flushed by the float mode.
[[nodiscard]] bool float_mode_flushes_f32(llvm::IRBuilder<>& builder);

// .ftz on an f32: a subnormal becomes a zero of the same sign. In a function that runs with f32
// denormals flushed by the float mode (denormal_mode.hpp) that is llvm.canonicalize, which the
// backends drop after an operation whose result the mode has flushed already.
llvm::Value* flush_subnormal(llvm::IRBuilder<>& builder, llvm::Value* value);
// PTX's min/max (f32, f64) of x and a constant c that is not a NaN: a NaN x gives c, and -0.0 is
// less than +0.0. One comparison and a select; against a zero, a test of x's class, which no
// backend turns back into a min/max: the AMDGPU clamp bit it would form from min(max(x, 0), 1)
// has no documented -0 result.
llvm::Value* min_max_with_constant(llvm::IRBuilder<>& builder, bool is_max, llvm::Value* x,
                                   llvm::ConstantFP* c);
// .sat on an f32: clamped to [0, 1], NaN gives +0.
llvm::Value* saturate(llvm::IRBuilder<>& builder, llvm::Value* value);
// A NaN f32 becomes 0x7fffffff (see the file comment), each NaN half of a vector of halves
// 0x7fff; other types are returned unchanged, except f64, which becomes 0xfff8000000000000 (the
// NaN f64 arithmetic makes from non-NaN operands; use nan_result where the operands are known).
llvm::Value* canonical_nan(llvm::IRBuilder<>& builder, llvm::Value* value);
// PTX's f16 NaN, 0x7fff, as a constant of `type` (half, or each element of a vector of halves).
llvm::Constant* ptx_half_nan(llvm::Type* type);
// The NaN rule of an arithmetic result (file comment): f32 canonical; f64 the first NaN among
// `operands` quieted, else 0xfff8000000000000.
llvm::Value* nan_result(llvm::IRBuilder<>& builder, llvm::Value* value,
                        std::span<llvm::Value* const> operands);

// The float forms of add, sub, mul, mad, fma, div, abs, neg, min, max, rcp, sqrt, rsqrt, ex2, lg2,
// sin, cos, tanh, copysign, testp (lower_float.cpp).
[[nodiscard]] Expected<void> lower_float(FunctionTranslator& t, const ptx::Instruction& instruction,
                                         PtxType type);
// add/sub/mul/fma on .f16x2 / .bf16x2: each half through the support library, or on AMDGPU the
// packed hardware operation where it is the same (lower_float.cpp).
[[nodiscard]] Expected<void> lower_packed_half(FunctionTranslator& t,
                                               const ptx::Instruction& instruction);
// Whether a modifier names a packed type (f16x2, bf16x2).
[[nodiscard]] bool has_packed_type(const ptx::Instruction& instruction);

inline PtxType u32_type() { return PtxType{PtxType::Kind::unsigned_int, 32, false}; }
inline PtxType pred_type() { return PtxType{PtxType::Kind::pred, 1, false}; }
inline PtxType f32_type() { return PtxType{PtxType::Kind::floating, 32, false}; }

} // namespace d4r::compiler::translate
