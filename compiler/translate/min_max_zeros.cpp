#include "compiler/translate/min_max_zeros.hpp"

#include "compiler/translate/lowering_support.hpp"

#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/IntrinsicInst.h>

namespace d4r::compiler::translate {

size_t order_zeros_in_min_max(llvm::Function& function)
{
  llvm::SmallVector<llvm::IntrinsicInst*, 16> calls;
  for (llvm::Instruction& instruction : llvm::instructions(function)) {
    auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(&instruction);
    if (call != nullptr && call->getType()->isFloatingPointTy() &&
        (call->getIntrinsicID() == llvm::Intrinsic::maxnum ||
         call->getIntrinsicID() == llvm::Intrinsic::minnum)) {
      calls.push_back(call);
    }
  }
  size_t rewritten = 0;
  for (llvm::IntrinsicInst* call : calls) {
    for (unsigned zero_at = 0; zero_at < 2; ++zero_at) {
      auto* zero = llvm::dyn_cast<llvm::ConstantFP>(call->getArgOperand(zero_at));
      if (zero == nullptr || !zero->isZero()) {
        continue;
      }
      llvm::IRBuilder<> builder(call);
      llvm::Value* ordered =
          min_max_with_constant(builder, call->getIntrinsicID() == llvm::Intrinsic::maxnum,
                                call->getArgOperand(1 - zero_at), zero);
      call->replaceAllUsesWith(ordered);
      call->eraseFromParent();
      ++rewritten;
      break;
    }
  }
  return rewritten;
}

} // namespace d4r::compiler::translate
