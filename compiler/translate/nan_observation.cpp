#include "compiler/translate/nan_observation.hpp"

#include <llvm/ADT/SmallPtrSet.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Function.h>
#include <llvm/IR/InstIterator.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/IntrinsicInst.h>
#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/PatternMatch.h>
#include <llvm/Support/AMDGPUAddrSpace.h>

#include <algorithm>

namespace d4r::compiler::translate {
namespace {

// A NaN, or a vector of NaNs.
bool is_nan_constant(const llvm::Value* value)
{
  return llvm::PatternMatch::match(value, llvm::PatternMatch::m_NaN());
}

// A number (not a NaN), or a vector of one number (zeroinitializer included).
bool is_number_constant(const llvm::Value* value)
{
  const llvm::APFloat* number = nullptr;
  return llvm::PatternMatch::match(value, llvm::PatternMatch::m_APFloat(number)) && !number->isNaN();
}

bool nan_only_if(const llvm::Value* value, const llvm::Value* x, int depth = 0);

// select(isnan(x), NaN, v) or select(!isnan(x), v, NaN), with isnan as fcmp uno x, x or fcmp
// uno x, <a non-NaN constant> (instcombine's form), and v a NaN exactly when x is one: x itself,
// its fabs or fneg (instcombine moves the test onto fabs's operand), or a conversion of it
// (cvt.rn.f16.f32's form); the canonicalised value v, or null.
llvm::Value* canonicalised_value(const llvm::SelectInst& select)
{
  const auto* compare = llvm::dyn_cast<llvm::FCmpInst>(select.getCondition());
  if (compare == nullptr) {
    return nullptr;
  }
  llvm::Value* x = compare->getOperand(0);
  const llvm::Value* other = compare->getOperand(1);
  if (other != x && !is_number_constant(other)) {
    return nullptr;
  }
  llvm::Value* kept = nullptr;
  if (compare->getPredicate() == llvm::FCmpInst::FCMP_UNO && is_nan_constant(select.getTrueValue())) {
    kept = select.getOperand(2); // the false value
  } else if (compare->getPredicate() == llvm::FCmpInst::FCMP_ORD &&
             is_nan_constant(select.getFalseValue())) {
    kept = select.getOperand(1); // the true value
  }
  return kept != nullptr && nan_only_if(kept, x) ? kept : nullptr;
}

enum class Use { passes_on, stops, seen };

// Float intrinsics whose result is a NaN whenever an operand is one (an input NaN may come out,
// quieted).
bool gives_nan_for_nan(llvm::Intrinsic::ID id)
{
  switch (id) {
  case llvm::Intrinsic::fma:
  case llvm::Intrinsic::fmuladd:
  case llvm::Intrinsic::sqrt:
  case llvm::Intrinsic::fabs:
  case llvm::Intrinsic::floor:
  case llvm::Intrinsic::ceil:
  case llvm::Intrinsic::trunc:
  case llvm::Intrinsic::rint:
  case llvm::Intrinsic::nearbyint:
  case llvm::Intrinsic::round:
  case llvm::Intrinsic::roundeven:
  case llvm::Intrinsic::canonicalize:
    return true;
  default:
    return false;
  }
}

// Float intrinsics that may pass an input NaN on: those above, those that may also drop one
// (minnum and its kind give the other operand; the legacy multiplies give 0 for 0 * NaN), and
// those not known here to keep every NaN.
bool passes_nan_on(llvm::Intrinsic::ID id)
{
  switch (id) {
  case llvm::Intrinsic::minnum:
  case llvm::Intrinsic::maxnum:
  case llvm::Intrinsic::minimum:
  case llvm::Intrinsic::maximum:
  case llvm::Intrinsic::exp2:
  case llvm::Intrinsic::log2:
  case llvm::Intrinsic::sin:
  case llvm::Intrinsic::cos:
  case llvm::Intrinsic::ldexp:
  case llvm::Intrinsic::amdgcn_rcp:
  case llvm::Intrinsic::amdgcn_rsq:
  case llvm::Intrinsic::amdgcn_sqrt:
  case llvm::Intrinsic::amdgcn_fract:
  case llvm::Intrinsic::amdgcn_fmed3:
  case llvm::Intrinsic::amdgcn_fmul_legacy:
  case llvm::Intrinsic::amdgcn_fma_legacy:
  case llvm::Intrinsic::amdgcn_frexp_mant:
  case llvm::Intrinsic::amdgcn_div_fixup:
  case llvm::Intrinsic::amdgcn_div_fmas:
  case llvm::Intrinsic::amdgcn_sin:
  case llvm::Intrinsic::amdgcn_cos:
  case llvm::Intrinsic::amdgcn_log:
  case llvm::Intrinsic::amdgcn_exp2:
    return true;
  default:
    return gives_nan_for_nan(id);
  }
}

// Whether `value` is a NaN whenever `source` is: it is `source`, or computed from it by
// operations that give a NaN for a NaN operand (not minnum and its kind, which may drop one).
bool nan_whenever(const llvm::Value* value, const llvm::Value* source, int depth = 0)
{
  constexpr int k_max_depth = 12;
  if (value == source) {
    return true;
  }
  const auto* instruction = llvm::dyn_cast<llvm::Instruction>(value);
  if (instruction == nullptr || depth == k_max_depth) {
    return false;
  }
  if (const auto* select = llvm::dyn_cast<llvm::SelectInst>(instruction)) {
    if (const llvm::Value* kept = canonicalised_value(*select)) { // PTX's NaN where kept is one
      return nan_whenever(kept, source, depth + 1);
    }
    return nan_whenever(select->getTrueValue(), source, depth + 1) && // both choices are
           nan_whenever(select->getFalseValue(), source, depth + 1);
  }
  bool propagates = instruction->getOpcode() == llvm::Instruction::FNeg ||
                    (llvm::isa<llvm::BinaryOperator>(instruction) &&
                     instruction->getType()->isFloatingPointTy()) ||
                    llvm::isa<llvm::FPExtInst>(instruction) ||
                    llvm::isa<llvm::FPTruncInst>(instruction);
  if (const auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(instruction)) {
    propagates = gives_nan_for_nan(intrinsic->getIntrinsicID());
  }
  if (!propagates) {
    return false;
  }
  for (const llvm::Value* operand : instruction->operands()) {
    if (nan_whenever(operand, source, depth + 1)) {
      return true;
    }
  }
  return false;
}

// The cross-lane moves: `value` as the data they carry to another lane, unchanged.
bool moves_between_lanes(const llvm::IntrinsicInst& intrinsic, const llvm::Value* value)
{
  switch (intrinsic.getIntrinsicID()) {
  case llvm::Intrinsic::amdgcn_ds_bpermute:
    return intrinsic.getArgOperand(1) == value && intrinsic.getArgOperand(0) != value;
  case llvm::Intrinsic::amdgcn_readlane:
  case llvm::Intrinsic::amdgcn_readfirstlane:
  case llvm::Intrinsic::amdgcn_ds_swizzle:
  case llvm::Intrinsic::amdgcn_permlane64:
    return intrinsic.getArgOperand(0) == value && (intrinsic.arg_size() < 2 ||
                                                   intrinsic.getArgOperand(1) != value);
  default:
    return false;
  }
}

enum class Step { follow, stop, fail };

// Walks the uses reachable from `start`: `step(value, user)` says whether the walk goes on through
// `user` (follow), ends there (stop) or is over (fail). Whether no step failed.
template <class StepFunction> bool walk_uses(const llvm::Value* start, StepFunction step)
{
  llvm::SmallPtrSet<const llvm::Value*, 32> visited = {start};
  llvm::SmallVector<const llvm::Value*, 32> work = {start};
  while (!work.empty()) {
    const llvm::Value* value = work.pop_back_val();
    for (const llvm::User* user : value->users()) {
      switch (step(value, user)) {
      case Step::fail:
        return false;
      case Step::stop:
        break;
      case Step::follow:
        if (visited.insert(user).second) {
          work.push_back(user);
        }
        break;
      }
    }
  }
  return true;
}

// Whether `condition` holds only where `x` is a number: is.fpclass(x, classes without NaN), or an
// ordered comparison of a value that is a NaN whenever x is.
bool true_only_for_numbers(const llvm::Value* condition, const llvm::Value* x)
{
  constexpr uint64_t k_nan_classes = 0x3; // fcSNan | fcQNan
  if (const auto* test = llvm::dyn_cast<llvm::IntrinsicInst>(condition);
      test != nullptr && test->getIntrinsicID() == llvm::Intrinsic::is_fpclass) {
    const auto* classes = llvm::dyn_cast<llvm::ConstantInt>(test->getArgOperand(1));
    return test->getArgOperand(0) == x && classes != nullptr &&
           (classes->getZExtValue() & k_nan_classes) == 0;
  }
  const auto* compare = llvm::dyn_cast<llvm::FCmpInst>(condition);
  return compare != nullptr && llvm::FCmpInst::isOrdered(compare->getPredicate()) &&
         (nan_whenever(compare->getOperand(0), x) || nan_whenever(compare->getOperand(1), x));
}

// Whether `result` (copysign(m, x), which shows x's sign) reaches nothing but float arithmetic
// (canonicalising selects included) that ends as the value a select takes where x is a number: roundf's t + copysign(0.5, x) * 2,
// taken only when |x - t| >= 0.5 (so where x is a NaN the sign is dropped), or a flush to zero,
// select(is.fpclass(x, subnormal), copysign(0, x), x).
bool chosen_only_for_numbers(const llvm::Instruction& result, const llvm::Value* x)
{
  return walk_uses(&result, [x](const llvm::Value* value, const llvm::User* user) {
    const auto* select = llvm::dyn_cast<llvm::SelectInst>(user);
    if (select != nullptr && canonicalised_value(*select) != value) {
      bool for_numbers = select->getTrueValue() == value && select->getFalseValue() != value &&
                         true_only_for_numbers(select->getCondition(), x);
      return for_numbers ? Step::stop : Step::fail;
    }
    const auto* compare = llvm::dyn_cast<llvm::FCmpInst>(user);
    if (compare != nullptr &&
        (compare->getPredicate() == llvm::FCmpInst::FCMP_UNO ||
         compare->getPredicate() == llvm::FCmpInst::FCMP_ORD) &&
        nan_whenever(value, x)) {
      return Step::stop; // a NaN test of a value that is a NaN whatever x's sign, where x is one
    }
    const auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(user);
    bool arithmetic = user->getType()->isFloatingPointTy() &&
                      (select != nullptr || llvm::isa<llvm::BinaryOperator>(user) ||
                       llvm::isa<llvm::UnaryOperator>(user) ||
                       (intrinsic != nullptr && passes_nan_on(intrinsic->getIntrinsicID())));
    return arithmetic ? Step::follow : Step::fail;
  });
}

// Whether `value` can be a NaN only when `x` is one: x itself, its canonicalisation, or a
// conversion or sign operation of such a value (none makes a NaN of a number, and each keeps a
// NaN a NaN: `value` is a NaN exactly when x is).
bool nan_only_if(const llvm::Value* value, const llvm::Value* x, int depth)
{
  constexpr int k_max_depth = 4;
  if (value == x) {
    return true;
  }
  if (depth == k_max_depth) {
    return false;
  }
  if (const auto* select = llvm::dyn_cast<llvm::SelectInst>(value)) {
    const llvm::Value* kept = canonicalised_value(*select);
    return kept != nullptr && nan_only_if(kept, x, depth + 1);
  }
  const auto* instruction = llvm::dyn_cast<llvm::Instruction>(value);
  if (instruction == nullptr) {
    return false;
  }
  bool keeps_numbers = llvm::isa<llvm::FPTruncInst>(instruction) ||
                       llvm::isa<llvm::FPExtInst>(instruction) ||
                       instruction->getOpcode() == llvm::Instruction::FNeg;
  if (const auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(instruction)) {
    keeps_numbers = intrinsic->getIntrinsicID() == llvm::Intrinsic::fabs;
  }
  return keeps_numbers && nan_only_if(instruction->getOperand(0), x, depth + 1);
}

// The WMMA and SWMMAC products: a NaN among their operands gives NaN elements.
bool is_matrix_product(llvm::Intrinsic::ID id)
{
  const llvm::StringRef name = llvm::Intrinsic::getBaseName(id);
  return name.starts_with("llvm.amdgcn.wmma.") || name.starts_with("llvm.amdgcn.swmmac.");
}

// What `user` does with `value`, one of its operands. A NaN's bits may travel in an integer or
// a vector on the way (a lane move carries floats as i32, a WMMA takes vectors): those carry it
// on unseen; any other use of the integer sees it.
Use use_of(const llvm::Value* value, const llvm::Instruction& user)
{
  if (llvm::isa<llvm::FCmpInst>(user) || llvm::isa<llvm::FPToSIInst>(user) ||
      llvm::isa<llvm::FPToUIInst>(user)) {
    return Use::stops;
  }
  if (llvm::isa<llvm::PHINode>(user) || llvm::isa<llvm::FreezeInst>(user) ||
      llvm::isa<llvm::FPExtInst>(user) || llvm::isa<llvm::FPTruncInst>(user) ||
      llvm::isa<llvm::ExtractElementInst>(user) || llvm::isa<llvm::ShuffleVectorInst>(user)) {
    return llvm::isa<llvm::ExtractElementInst>(user) && user.getOperand(1) == value
               ? Use::seen
               : Use::passes_on;
  }
  if (llvm::isa<llvm::InsertElementInst>(user)) {
    return user.getOperand(2) == value ? Use::seen : Use::passes_on;
  }
  if (const auto* cast = llvm::dyn_cast<llvm::BitCastInst>(&user)) {
    // Same width, float <-> integer: the bits unchanged.
    return cast->getSrcTy()->getPrimitiveSizeInBits() == cast->getDestTy()->getPrimitiveSizeInBits() &&
                   !cast->getDestTy()->isPointerTy()
               ? Use::passes_on
               : Use::seen;
  }
  if (const auto* select = llvm::dyn_cast<llvm::SelectInst>(&user)) {
    if (select->getCondition() == value) {
      return Use::seen;
    }
    return Use::passes_on; // a select that stops a NaN is a canonicalising one (reaches_an_observer)
  }
  if (user.getOpcode() == llvm::Instruction::FNeg ||
      (llvm::isa<llvm::BinaryOperator>(user) && user.getType()->isFPOrFPVectorTy())) {
    return Use::passes_on;
  }
  if (const auto* intrinsic = llvm::dyn_cast<llvm::IntrinsicInst>(&user)) {
    const llvm::Intrinsic::ID id = intrinsic->getIntrinsicID();
    if (id == llvm::Intrinsic::is_fpclass || id == llvm::Intrinsic::amdgcn_class) {
      return Use::stops;
    }
    if (id == llvm::Intrinsic::copysign) {
      // The sign of a NaN is part of its bits: copysign(m, x) shows them only where m is a
      // number while x is a NaN (roundf's rewrite, copysign(trunc(|x| + 0.5), x), never is),
      // and its result is used where x is a NaN (a flush to zero, select(is.fpclass(x,
      // subnormal), copysign(0, x), x), takes x then).
      const llvm::Value* magnitude = intrinsic->getArgOperand(0);
      if (magnitude == value || nan_whenever(magnitude, value)) {
        return Use::passes_on;
      }
      return chosen_only_for_numbers(*intrinsic, value) ? Use::stops : Use::seen;
    }
    if (moves_between_lanes(*intrinsic, value) ||
        (is_matrix_product(id) && user.getType()->isFPOrFPVectorTy()) ||
        (passes_nan_on(id) && user.getType()->isFPOrFPVectorTy())) {
      return Use::passes_on;
    }
  }
  return Use::seen;
}

constexpr unsigned k_flat_space = llvm::AMDGPUAS::FLAT_ADDRESS;
constexpr unsigned k_lds_space = llvm::AMDGPUAS::LOCAL_ADDRESS;

using KeptSelects = llvm::SmallPtrSetImpl<const llvm::SelectInst*>;

// Whether `user` stores `value` into LDS (as the data, not the address).
bool stored_into_lds(const llvm::Value* value, const llvm::Instruction& user)
{
  const auto* store = llvm::dyn_cast<llvm::StoreInst>(&user);
  return store != nullptr && store->getValueOperand() == value &&
         store->getPointerAddressSpace() == k_lds_space;
}

// Whether the NaN `start` gives can reach a place that sees it, flowing through every
// instruction that passes it on and stopping at the selects in `kept` (and at stores into LDS
// where `lds_unseen`: lds_hides_nans).
bool reaches_an_observer(const llvm::Value& start, const KeptSelects& kept, bool lds_unseen)
{
  return !walk_uses(&start, [&kept, lds_unseen](const llvm::Value* value, const llvm::User* user) {
    const auto* instruction = llvm::dyn_cast<llvm::Instruction>(user);
    if (instruction == nullptr) {
      return Step::fail;
    }
    const auto* select = llvm::dyn_cast<llvm::SelectInst>(instruction);
    if (select != nullptr && kept.contains(select) && canonicalised_value(*select) == value) {
      return Step::stop; // gives PTX's NaN whatever NaN it is handed
    }
    if (lds_unseen && stored_into_lds(value, *instruction)) {
      return Step::stop;
    }
    switch (use_of(value, *instruction)) {
    case Use::seen:
      return Step::fail;
    case Use::stops:
      return Step::stop;
    case Use::passes_on:
      break;
    }
    return Step::follow;
  });
}

// Whether `instruction`, not a load, may read LDS: an atomic on LDS or flat memory, a call of a
// function (it may read anything) or of an intrinsic that reads through an LDS or flat pointer.
bool may_read_lds(const llvm::Instruction& instruction)
{
  auto shared_or_flat = [](unsigned space) { return space == k_lds_space || space == k_flat_space; };
  if (const auto* update = llvm::dyn_cast<llvm::AtomicRMWInst>(&instruction)) {
    return shared_or_flat(update->getPointerAddressSpace());
  }
  if (const auto* exchange = llvm::dyn_cast<llvm::AtomicCmpXchgInst>(&instruction)) {
    return shared_or_flat(exchange->getPointerAddressSpace());
  }
  const auto* call = llvm::dyn_cast<llvm::CallBase>(&instruction);
  if (call == nullptr || !call->mayReadFromMemory()) {
    return false;
  }
  const llvm::Function* callee = call->getCalledFunction();
  if (callee == nullptr || !callee->isIntrinsic()) {
    return true;
  }
  return std::ranges::any_of(call->args(), [&](const llvm::Value* argument) {
    const auto* pointer = llvm::dyn_cast<llvm::PointerType>(argument->getType());
    return pointer != nullptr && shared_or_flat(pointer->getAddressSpace());
  });
}

// Whether no NaN's bits stored into a kernel's LDS can be seen: every instruction that may read
// LDS is a load from it whose value reaches no observer, with a store into LDS counted as none.
// That assumption proves itself: under it no value read from LDS shows a NaN's bits, so none
// stored there is ever seen (LDS lives for one workgroup, whose threads all run this kernel; a
// function it calls could read LDS, and such a call is a read here). A flat load may read LDS.
// The fp8 decode's block reduction keeps its f16x2 partial sums there, read only by additions.
bool lds_hides_nans(const llvm::Function& function, const KeptSelects& kept)
{
  if (function.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL) {
    return false; // its caller, which reads the same LDS, is not looked at here
  }
  for (const llvm::Instruction& instruction : llvm::instructions(function)) {
    if (const auto* load = llvm::dyn_cast<llvm::LoadInst>(&instruction)) {
      const unsigned space = load->getPointerAddressSpace();
      if (space == k_flat_space || (space == k_lds_space && reaches_an_observer(*load, kept, true))) {
        return false;
      }
    } else if (may_read_lds(instruction)) {
      return false;
    }
  }
  return true;
}

} // namespace

size_t drop_unobserved_nan_canonicalisations(llvm::Function& function)
{
  llvm::SmallVector<llvm::SelectInst*, 64> candidates;
  llvm::SmallPtrSet<const llvm::SelectInst*, 32> kept;
  for (llvm::Instruction& instruction : llvm::instructions(function)) {
    auto* select = llvm::dyn_cast<llvm::SelectInst>(&instruction);
    if (select != nullptr && select->getType()->isFPOrFPVectorTy() &&
        canonicalised_value(*select) != nullptr) {
      candidates.push_back(select);
      kept.insert(select);
    }
  }
  const bool lds_unseen = !candidates.empty() && lds_hides_nans(function, kept);
  size_t dropped = 0;
  for (llvm::SelectInst* select : candidates) {
    if (reaches_an_observer(*select, kept, lds_unseen)) {
      continue;
    }
    kept.erase(select);
    llvm::Value* x = canonicalised_value(*select);
    auto* condition = llvm::dyn_cast<llvm::Instruction>(select->getCondition());
    select->replaceAllUsesWith(x);
    select->eraseFromParent();
    if (condition != nullptr && condition->use_empty()) {
      condition->eraseFromParent();
    }
    ++dropped;
  }
  return dropped;
}

} // namespace d4r::compiler::translate
