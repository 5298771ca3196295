#pragma once
// Vector registers (`.reg .v4 .f32 %v;`, PTX ISA 5.4.2 "Vectors") as the scalars they are made of.
// A vector register is four (or two) registers of its element type that can be named one by one
// (`%v.x`, `%v.y`, `%v.z`, `%v.w`, or `%v.r`, `.g`, `.b`, `.a`) or all at once where an instruction
// takes a vector operand (`ld.global.v4.f32 %v, [a]`). The translator lowers only scalar registers
// and brace-enclosed vector operands, so before translation each declaration becomes one scalar
// register per element (`%v.x` ...), each element reference names its scalar, and each whole-vector
// use becomes the brace list `{%v.x, %v.y, %v.z, %v.w}`: the same program, spelled the way
// every lowering already reads.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#vectors

#include "compiler/ptx/ast.hpp"
#include "util/error.hpp"

namespace d4r::compiler::translate {

// Whether any function of `module` declares a vector register (most modules do not: they are
// translated as they are, without a copy).
[[nodiscard]] bool has_vector_registers(const ptx::Module& module);

// `module` with every vector register replaced by its element registers. Errors
// (invalid_argument, naming the line): a vector of .pred, a vector register parameter, or a name
// declared both as a vector and as a scalar register in one function.
[[nodiscard]] Expected<ptx::Module> expand_vector_registers(const ptx::Module& module);

} // namespace d4r::compiler::translate
