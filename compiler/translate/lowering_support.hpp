#pragma once
// Helpers the lower_*.cpp files share: modifiers, operand counts, and the float details PTX fixes
// exactly (subnormal flushing for .ftz, saturation for .sat, NVIDIA's canonical NaN).
//
// NaN: an f32 operation of NVIDIA hardware whose result is NaN returns the canonical 0x7fffffff,
// whatever the inputs' payloads; x86 returns 0xffc00000 or a quieted input, AMDGPU a quieted
// input. The lowering rewrites NaN results of f32 arithmetic (add, sub, mul, fma/mad, div, sqrt,
// rcp, min/max of two NaNs, conversions to f32) to 0x7fffffff on both targets, so the host run is
// bit-exact with NVIDIA and the GPU code computes the same bits the game saw on NVIDIA. The cost is
// one compare and select per operation, which LLVM drops where it proves the result is not NaN.
// f64 NaN results become 0x7fffffffffffffff the same way (the support library's convention).
// Directed rounding (.rz/.rm/.rp), conversions and the .approx instructions call the support
// library (kernels/support/d4r_ptx_support.h), which follows the same NaN rule.

#include "compiler/translate/function_translator.hpp"

#include <string_view>

namespace d4r::compiler::translate {

[[nodiscard]] bool has_modifier(const ptx::Instruction& instruction, std::string_view modifier);
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

// .ftz on an f32: a subnormal becomes a zero of the same sign.
llvm::Value* flush_subnormal(llvm::IRBuilder<>& builder, llvm::Value* value);
// .sat on an f32: clamped to [0, 1], NaN gives +0.
llvm::Value* saturate(llvm::IRBuilder<>& builder, llvm::Value* value);
// A NaN f32 becomes 0x7fffffff, a NaN f64 0x7fffffffffffffff (see the file comment).
llvm::Value* canonical_nan(llvm::IRBuilder<>& builder, llvm::Value* value);

// The float forms of add, sub, mul, mad, fma, div, abs, neg, min, max, rcp, sqrt, rsqrt, ex2, lg2,
// sin, cos, tanh, copysign, testp (lower_float.cpp).
[[nodiscard]] Expected<void> lower_float(FunctionTranslator& t, const ptx::Instruction& instruction,
                                         PtxType type);
// add/sub/mul/fma on .f16x2 / .bf16x2: each half through the support library (lower_float.cpp).
[[nodiscard]] Expected<void> lower_packed_half(FunctionTranslator& t,
                                               const ptx::Instruction& instruction);
// Whether a modifier names a packed type (f16x2, bf16x2).
[[nodiscard]] bool has_packed_type(const ptx::Instruction& instruction);

inline PtxType u32_type() { return PtxType{PtxType::Kind::unsigned_int, 32, false}; }
inline PtxType pred_type() { return PtxType{PtxType::Kind::pred, 1, false}; }
inline PtxType f32_type() { return PtxType{PtxType::Kind::floating, 32, false}; }

} // namespace d4r::compiler::translate
