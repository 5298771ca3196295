#pragma once
// Which functions run with f32 denormals flushed by the hardware's float mode instead of by code.
//
// PTX's .ftz flushes an f32 operation's subnormal inputs and result to a zero of their sign; the
// lowering does it with a class test and a select on each input and result (lowering_support.hpp:
// flush_subnormal), about half the instructions of an .ftz-heavy layer. AMDGPU can flush every
// f32 operation of a kernel by its float mode register (LLVM: "denormal-fp-math-f32" =
// "preserve-sign,preserve-sign", which sets the kernel descriptor's FLOAT_DENORM_MODE_32). That is
// exact only for a kernel none of whose code can see the difference: every f32 operation that
// reads or writes a value as a float either has .ftz, or gives the same bits whether or not its
// subnormals are flushed (data movement, bit operations, integer -> f32, round-to-integer toward
// zero or nearest, f32 -> f16 to nearest or zero, .add.f32 atomics, which always flush). Anything
// else (an operation without .ftz, a directed round-to-integer, f64 or bf16 arithmetic, which the
// host's model of the mode flushes too, a call of a function not defined in the module) keeps the
// kernel in IEEE mode, and a .func runs in flush mode only when every kernel that reaches it does.
//
// An mma/wmma/wgmma with f32 accumulators keeps subnormal accumulators on NVIDIA's tensor cores
// (tests/golden/cases/mma_subnormal_*), so it keeps the kernel in IEEE mode in the accuracy set;
// the fast set (FloatPolicy::fast) lets it run flushed: the only difference between the two sets.

#include "compiler/ptx/ast.hpp"
#include "compiler/translate/translator.hpp"

#include <set>
#include <string>

namespace d4r::compiler::translate {

// The .entry and .func names of `module` whose f32 denormals the float mode flushes.
[[nodiscard]] std::set<std::string> functions_flushing_f32(const ptx::Module& module,
                                                           FloatPolicy policy);

// Whether one instruction allows its function to run flushed (the rules above), for tests.
[[nodiscard]] bool allows_f32_flush(const ptx::Instruction& instruction, FloatPolicy policy);

} // namespace d4r::compiler::translate
