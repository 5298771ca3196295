#pragma once
// The tensor-map instructions (lower_tensor_copy.cpp) over this project's tensor-map layout
// (tensor_map_layout.hpp): what lower_async_copy.cpp's cp lowering hands over.

#include "compiler/ptx/ast.hpp"
#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "util/error.hpp"

namespace d4r::compiler::translate {

// cp.async.bulk.tensor.* and cp.reduce.async.bulk.tensor.* (the opcode "cp", modifiers from
// "async.bulk.tensor" or "reduce.async.bulk.tensor" on).
[[nodiscard]] Expected<void> lower_tensor_copy(FunctionTranslator& t,
                                               const ptx::Instruction& instruction);

// tensormap.replace and tensormap.cp_fenceproxy (registered by add_async_copy_lowerings).
void add_tensor_copy_lowerings(LoweringTable& table);

} // namespace d4r::compiler::translate
