#pragma once
// What lower_async_copy.cpp (cp.async.bulk, cp.reduce.async.bulk, cp.async.mbarrier.arrive) and
// lower_memory.cpp (st.async, red.async) need of lower_mbarrier.cpp's barrier object: its copies
// are done synchronously, so each one's complete-tx or arrive happens right after it.

#include "compiler/ptx/ast.hpp"
#include "compiler/translate/function_translator.hpp"
#include "util/error.hpp"

#include <llvm/IR/Value.h>

namespace d4r::compiler::translate {

// The pointer of an mbarrier address operand: a .shared{::cta} window address, a
// .shared::cluster one (only where clusters are one CTA: one_cta_clusters; "unsupported"
// otherwise), or generic when `space` is empty.
[[nodiscard]] Expected<llvm::Value*> mbarrier_pointer(FunctionTranslator& t,
                                                      const ptx::Instruction& instruction,
                                                      const ptx::Operand& operand,
                                                      std::string_view space);

// The complete-tx operation of `bytes` (i32) on the barrier at `pointer`, which may complete its
// current phase.
void mbarrier_complete_tx(FunctionTranslator& t, llvm::Value* pointer, llvm::Value* bytes);

// An arrive-on operation of one arrival (cp.async.mbarrier.arrive.noinc).
void mbarrier_arrive_one(FunctionTranslator& t, llvm::Value* pointer);

// One element of a float cp.reduce.async.bulk (lower_memory.cpp): .add on .f32 (subnormals kept,
// canonical NaN) and .f64 (f64 arithmetic's NaN rule), .add/.min/.max on .f16/.bf16 (as atom's
// .noftz forms); any other combination is "unsupported". Returns the old value.
[[nodiscard]] Expected<llvm::Value*>
reduce_float_element(FunctionTranslator& t, const ptx::Instruction& instruction,
                     std::string_view op, PtxType type, llvm::Value* pointer, llvm::Value* value,
                     llvm::SyncScope::ID scope);

// st.async{.weak|.release.cluster}.shared::cluster.mbarrier::complete_tx::bytes{.v2|.v4}.type
// [a], b, [mbar] and red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.op.type
// [a], b, [mbar] (lower_async_copy.cpp; lower_memory.cpp's st and red delegate them).
[[nodiscard]] Expected<void> lower_st_async(FunctionTranslator& t,
                                            const ptx::Instruction& instruction);
[[nodiscard]] Expected<void> lower_red_async(FunctionTranslator& t,
                                             const ptx::Instruction& instruction);

} // namespace d4r::compiler::translate
