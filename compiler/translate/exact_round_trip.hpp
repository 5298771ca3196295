#pragma once
// Narrowing conversions that cannot round, undone. A PTX FP8 decode gives f16 bits
// (cvt.rn.f16x2.e4m3x2), and nvcc's __half2float widens them again; on gfx12 the hardware decodes
// FP8 straight to f32 (v_cvt_pk_f32_fp8), so the translation computes fpext(fptrunc(x)) with x
// the hardware's f32, two conversions and a NaN select per weight. Every e4m3 and e5m2 value
// (subnormals, infinities) is exact in f16, so for a number the round trip is x itself; for a NaN
// it is some NaN whose bits the lowering never lets through: decoded_half selects PTX's f16 NaN
// whenever x is one, and instcombine carries that select past the fpext.
//
// So only that form is folded: select(isnan(x), NaN, fpext(fptrunc(x))) becomes
// select(isnan(x), NaN, x), the same value for every x. It runs after the O2 pipeline, before
// the unobserved NaN selects are dropped (nan_observation.hpp), which it makes one more of.
// Only the .relu decode takes that form now: the plain one gives both halves at once as
// <2 x half> (lower_fp8.cpp), which the f32 arithmetic reads as halves (v_fma_mix_f32). Folding
// that round trip too saves two conversions per pair in a small kernel but keeps two f32 live
// instead of one register of halves, and the large texture layers then spill (enc2_layer on
// gfx1201: 2 003 instructions unfolded, 2 504 folded), so it is not done.

#include <cstddef>

namespace llvm {
class Function;
} // namespace llvm

namespace d4r::compiler::translate {

// Folds `function`'s exact half round trips as above; returns how many.
size_t fold_exact_half_round_trips(llvm::Function& function);

} // namespace d4r::compiler::translate
