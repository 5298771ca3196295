#pragma once
// The value a `st` writes when its source register is wider than the store's type. The PTX ISA
// says the register's low bits, but ptxas 13 (as the H200 runs it) types each register by the
// instructions that write it and converts the value when the sizes differ
// (tests/golden/cases/gap_store_wide_*, tests/ptx/isa/coverage_gaps.cu):
//   - written by integer instructions (b/u/s): an integer store keeps the low bits; st.f32 of a
//     64-bit one stores cvt.rn.f32.u64 of it;
//   - written by f64 (f32) instructions, the register as wide: an integer store of N bits stores
//     cvt.rzi.sat of the value to N bits (b as unsigned), a NaN as 1 << (N - 1) from f64 and 0 from
//     f32; st.f32 of an f64 value stores cvt.rn.f32.f64;
//   - written by both kinds, by instructions without a type (call) or half types, or any other
//     float store: rejected (unsupported), never guessed.
// Same-width stores are bit copies and go through FunctionTranslator::read as before.

#include "compiler/ptx/ast.hpp"
#include "compiler/translate/function_translator.hpp"
#include "util/error.hpp"

namespace d4r::compiler::translate {

// The value of `source` (one element of `store`'s source operand) to store as `type`.
[[nodiscard]] Expected<llvm::Value*> read_store_source(FunctionTranslator& t,
                                                       const ptx::Instruction& store,
                                                       const ptx::Operand& source, PtxType type);

} // namespace d4r::compiler::translate
