#include "compiler/translate/uniform_lane_moves.hpp"

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

namespace d4r::compiler::translate {

size_t forward_uniform_lane_moves(llvm::Function& function, const llvm::UniformityInfo& uniformity)
{
  if (!llvm::Triple(function.getParent()->getTargetTriple()).isAMDGPU()) {
    return 0; // elsewhere the analysis sees no divergence at all
  }
  llvm::SmallVector<llvm::IntrinsicInst*, 32> moves;
  for (llvm::Instruction& instruction : llvm::instructions(function)) {
    auto* move = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction);
    if (move != nullptr && move->getIntrinsicID() == llvm::Intrinsic::amdgcn_ds_bpermute &&
        !uniformity.isDivergentUse(move->getArgOperandUse(1))) {
      moves.push_back(move);
    }
  }
  for (llvm::IntrinsicInst* move : moves) {
    move->replaceAllUsesWith(move->getArgOperand(1));
    move->eraseFromParent();
  }
  return moves.size();
}

} // namespace d4r::compiler::translate
