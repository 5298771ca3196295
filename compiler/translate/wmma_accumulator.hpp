#pragma once
// The native mma lowering's accumulator, kept in the WMMA layout from one mma to the next.
//
// lower_mma.cpp moves C from the PTX fragment layout to the WMMA layout before each v_wmma and D
// back after it (ds_bpermute word remaps). Where C is the previous mma's D, in the same block or
// through a loop's phis (a K loop: acc = mma(a, b, acc)), the two remaps cancel: each element of
// the WMMA C/D layout's columns 0..7 has one holder in the PTX layout, so D moved to PTX and back
// is that WMMA result itself there. Columns 8..15 then keep the earlier mma's values instead of
// zeros; a column of D depends only on the same column of C (B's columns 8..15 are zero), and only
// D's columns 0..7 are ever moved back, so nothing reads them. A loop's initial C qualifies where
// its four words are one constant (a zero accumulator).
//
// So the lowering emits the two moves as marks (calls of d4r.wmma.* functions, pure functions of
// their operands and the lane), and after mem2reg and LICM (the vectorizer's start in the O2
// pipeline) WmmaAccumulatorPass
//   - gives each C mark the WMMA value it equals, where it can show one (a new phi of WMMA
//     accumulators for a loop's phis);
//   - moves a D mark whose value is only used after its loop to the loop's exit, where the loop
//     has one exit that the mark's block dominates (the remap then runs once, not per iteration);
//   - expands every mark that is left into its ds_bpermute remap (mma_fragments.hpp).
// expand_wmma_accumulator_moves alone gives the code every mark stood for, for translations that
// are not optimised.

#include "compiler/translate/mma_layout.hpp"

#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/PassManager.h>

#include <cstddef>
#include <vector>

namespace d4r::compiler::translate {

// C's four PTX words (i32) as the <8 x float> accumulator of `family` (gfx11 or gfx12) of the
// calling lane.
[[nodiscard]] llvm::Value* mark_wmma_accumulator(llvm::IRBuilder<>& b, MmaLayout family,
                                                 const std::vector<llvm::Value*>& c_words);
// Word `word` (0..3, i32) of the PTX D fragment held by the WMMA accumulator `d` (<8 x float>).
[[nodiscard]] llvm::Value* mark_ptx_word(llvm::IRBuilder<>& b, MmaLayout family, llvm::Value* d,
                                         int word);

// Expands every mark of `module` and removes the marks' declarations; returns how many.
size_t expand_wmma_accumulator_moves(llvm::Module& module);

struct WmmaAccumulatorPass : llvm::PassInfoMixin<WmmaAccumulatorPass> {
  llvm::PreservedAnalyses run(llvm::Function& function, llvm::FunctionAnalysisManager& analyses);
};

} // namespace d4r::compiler::translate
