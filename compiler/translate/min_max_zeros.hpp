#pragma once
// PTX orders the zeros in min and max (-0.0 < +0.0; max(-0, +0) is +0); LLVM's minnum/maxnum
// leave that order open. The lowering gives min/max of two registers to the AMDGPU hardware's
// own instructions, which order the zeros as PTX does (lower_float.cpp), but once the O2 pipeline
// has turned a register into the constant it holds (nvcc's fminf(fmaxf(x, 0.0f), 1.0f) moves
// 0.0 into a register), the backend makes min(max(x, 0), 1) the clamp bit, whose -0 result AMD
// does not document. So, after the pipeline, a minnum/maxnum against a constant zero becomes the
// class test and select that lowering_support.hpp's min_max_with_constant builds: PTX's result,
// and a refinement of LLVM's.

#include <cstddef>

namespace llvm {
class Function;
} // namespace llvm

namespace d4r::compiler::translate {

// Rewrites `function`'s minnum/maxnum calls with a zero operand as above; returns how many.
size_t order_zeros_in_min_max(llvm::Function& function);

} // namespace d4r::compiler::translate
