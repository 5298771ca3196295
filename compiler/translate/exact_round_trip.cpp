#include "compiler/translate/exact_round_trip.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/PatternMatch.h>

namespace d4r::compiler::translate {
namespace {

// Whether every number `value` can be is exact in f16: an element of the hardware's FP8 decode.
bool exact_in_half(llvm::Value* value)
{
  llvm::Value* decoded = nullptr;
  if (!llvm::PatternMatch::match(value, llvm::PatternMatch::m_ExtractElt(llvm::PatternMatch::m_Value(decoded), llvm::PatternMatch::m_ConstantInt()))) {
    decoded = value;
  }
  const auto* call = llvm::dyn_cast<llvm::IntrinsicInst>(decoded);
  if (call == nullptr) {
    return false;
  }
  switch (call->getIntrinsicID()) {
  case llvm::Intrinsic::amdgcn_cvt_pk_f32_fp8:
  case llvm::Intrinsic::amdgcn_cvt_pk_f32_bf8:
  case llvm::Intrinsic::amdgcn_cvt_f32_fp8:
  case llvm::Intrinsic::amdgcn_cvt_f32_bf8:
    return true;
  default:
    return false;
  }
}

// Whether `condition` is true exactly when `x` is a NaN (fcmp uno x, x or x, <a number>).
bool is_nan_test_of(llvm::Value* condition, llvm::Value* x)
{
  llvm::FCmpInst::Predicate predicate{};
  llvm::Value* other = nullptr;
  if (!llvm::PatternMatch::match(condition, llvm::PatternMatch::m_FCmp(predicate, llvm::PatternMatch::m_Specific(x), llvm::PatternMatch::m_Value(other))) ||
      predicate != llvm::FCmpInst::FCMP_UNO) {
    return false;
  }
  const auto* constant = llvm::dyn_cast<llvm::ConstantFP>(other);
  return other == x || (constant != nullptr && !constant->isNaN());
}

} // namespace

size_t fold_exact_half_round_trips(llvm::Function& function)
{
  size_t folded = 0;
  for (llvm::Instruction& instruction : llvm::instructions(function)) {
    auto* select = llvm::dyn_cast<llvm::SelectInst>(&instruction);
    llvm::Value* x = nullptr;
    if (select == nullptr || !select->getType()->isFloatTy() ||
        !llvm::isa<llvm::ConstantFP>(select->getTrueValue()) ||
        !llvm::cast<llvm::ConstantFP>(select->getTrueValue())->isNaN() ||
        !llvm::PatternMatch::match(select->getFalseValue(),
                      llvm::PatternMatch::m_FPExt(llvm::PatternMatch::m_FPTrunc(llvm::PatternMatch::m_Value(x)))) ||
        !x->getType()->isFloatTy() ||
        !llvm::cast<llvm::Instruction>(select->getFalseValue())->getOperand(0)->getType()->isHalfTy() ||
        !exact_in_half(x) || !is_nan_test_of(select->getCondition(), x)) {
      continue;
    }
    select->setOperand(2, x);
    ++folded;
  }
  return folded;
}

} // namespace d4r::compiler::translate
