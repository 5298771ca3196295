#pragma once
// NaN canonicalisation only where a NaN's bits can be seen. The lowering gives every f32 and f64
// arithmetic result PTX's NaN (lowering_support.hpp: select(isnan(x), 0x7fffffff, x)), because
// NVIDIA's hardware writes that NaN whatever the inputs were, and a program can read the bits.
// Most results never reach a place where bits are read: they feed the next multiply-add, a
// comparison, a conversion to an integer. Which NaN a value is then changes nothing the program
// can observe, so those selects are removed here, after the O2 pipeline (the registers are SSA
// values and the support library is inlined) and before code generation. The result is the same
// program to every observer, in both accuracy modes.
//
// A value's NaN is seen by: a store, an atomic, a return, a call of anything but the floating-
// point intrinsics below, a bit cast, a vector insert, copysign's sign operand (unless the
// result only reaches float arithmetic that a select takes where the value is a number: roundf's
// t + copysign(0.5, x) * 2, taken when |x - t| >= 0.5), and every other instruction not listed as
// follows. It flows on, unseen yet, through float arithmetic (fneg,
// fadd ... frem, fpext, fptrunc, freeze), phi and select values, and the float intrinsics below
// (fma, sqrt, minnum, ...: each may pass an input NaN through, quieted), and it stops unseen at a
// comparison (fcmp, is.fpclass), a conversion to an integer (the lowering handles NaN inputs
// itself, whatever their bits), and a canonicalising select that stays (its NaN is PTX's). In a
// kernel whose LDS is read only where no NaN's bits are seen (lds_hides_nans in the .cpp: every
// LDS load's value reaches no observer, no flat load, no atomic or call that may read LDS), a
// store into LDS does not see them either: a block reduction's partial sums.
//
// A canonicalising select is select(isnan(x), NaN, v) with v a NaN exactly when x is one: x
// itself, x's fabs or fneg (abs and neg of an f32, whose NaN test instcombine moves onto the
// operand), or a conversion of those (cvt.rn.f16.f32 and its kind, the fp8 decode). Vectors of
// halves (f16x2 on AMDGPU) are followed element-wise alike.
//
// The selects are looked at once each, in any order: one is removed when no place that sees a NaN
// is reachable from it without passing a select still kept. That is sound for the final set too:
// were a place reachable from a removed select S past selects removed after it, the last of those
// removed would have reached the place when it was looked at, and been kept.

#include <cstddef>

namespace llvm {
class Function;
} // namespace llvm

namespace d4r::compiler::translate {

// Removes `function`'s canonicalising selects that nothing observes; returns how many.
size_t drop_unobserved_nan_canonicalisations(llvm::Function& function);

} // namespace d4r::compiler::translate
