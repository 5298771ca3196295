#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/Module.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>

namespace d4r::compiler::translate {

bool has_modifier(const ptx::Instruction& instruction, std::string_view modifier)
{
  for (const std::string& candidate : instruction.modifiers) {
    if (candidate == modifier) {
      return true;
    }
  }
  return false;
}

Expected<void> known_modifiers(FunctionTranslator& t, const ptx::Instruction& instruction,
                               std::span<const std::string_view> known)
{
  for (const std::string& modifier : instruction.modifiers) {
    if (std::find(known.begin(), known.end(), modifier) == known.end()) {
      return std::unexpected(t.unsupported(instruction));
    }
  }
  return {};
}

Expected<void> one_type(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  int types = 0;
  for (const std::string& modifier : instruction.modifiers) {
    if (parse_type(modifier)) {
      ++types;
    }
  }
  if (types != 1) {
    return std::unexpected(t.unsupported(instruction));
  }
  return {};
}

bool has_packed_type(const ptx::Instruction& instruction)
{
  for (const std::string& modifier : instruction.modifiers) {
    if (modifier.ends_with("x2") || modifier.ends_with("x4")) {
      return true;
    }
  }
  return false;
}

Expected<PtxType> last_type(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  for (auto it = instruction.modifiers.rbegin(); it != instruction.modifiers.rend(); ++it) {
    if (std::optional<PtxType> type = parse_type(*it)) {
      return *type;
    }
  }
  return std::unexpected(t.error(instruction, instruction.opcode + " has no type"));
}

Expected<std::pair<PtxType, PtxType>> two_types(FunctionTranslator& t,
                                                const ptx::Instruction& instruction)
{
  std::vector<PtxType> types;
  for (const std::string& modifier : instruction.modifiers) {
    if (std::optional<PtxType> type = parse_type(modifier)) {
      types.push_back(*type);
    }
  }
  if (types.size() < 2) {
    return std::unexpected(t.unsupported(instruction));
  }
  return std::pair{types[types.size() - 2], types[types.size() - 1]};
}

Expected<void> expect_operands(FunctionTranslator& t, const ptx::Instruction& instruction,
                               size_t count)
{
  if (instruction.operands.size() != count) {
    return std::unexpected(t.error(instruction, instruction.opcode + " takes " +
                                                    std::to_string(count) + " operands, not " +
                                                    std::to_string(instruction.operands.size())));
  }
  return {};
}

int rounding_mode(const ptx::Instruction& instruction)
{
  static constexpr std::pair<std::string_view, int> k_modes[] = {
      {"rn", 0}, {"rz", 1}, {"rm", 2}, {"rp", 3}, {"rna", 4},
      {"rni", 0}, {"rzi", 1}, {"rmi", 2}, {"rpi", 3}};
  for (const std::string& modifier : instruction.modifiers) {
    for (const auto& [name, mode] : k_modes) {
      if (modifier == name) {
        return mode;
      }
    }
  }
  return -1;
}

bool float_mode_flushes_f32(llvm::IRBuilder<>& builder)
{
  const llvm::Function* function = builder.GetInsertBlock()->getParent();
  return function->getDenormalModeF32Raw().Output == llvm::DenormalMode::PreserveSign;
}

llvm::Value* flush_subnormal(llvm::IRBuilder<>& builder, llvm::Value* value)
{
  if (!value->getType()->isFloatTy()) {
    return value;
  }
  // x86 has no canonicalize in LLVM 19: the host keeps the class test under its model of the mode.
  if (float_mode_flushes_f32(builder) &&
      llvm::Triple(builder.GetInsertBlock()->getModule()->getTargetTriple()).isAMDGPU()) {
    return builder.CreateUnaryIntrinsic(llvm::Intrinsic::canonicalize, value);
  }
  // llvm.is.fpclass rather than |x| < 2^-126: LLVM's known-class analysis folds it where the value
  // cannot be subnormal (already flushed, fpext of a half, an integer conversion), which drops
  // about half of the flushes in the .ftz-heavy texture_layers kernels (505 -> 275 in enc0.sm_86);
  // one v_cmp_class on AMDGPU.
  llvm::Value* tiny = builder.createIsFPClass(value, llvm::fcSubnormal);
  llvm::Value* zero = builder.CreateBinaryIntrinsic(
      llvm::Intrinsic::copysign, llvm::ConstantFP::get(value->getType(), 0.0), value);
  return builder.CreateSelect(tiny, zero, value);
}

llvm::Value* min_max_with_constant(llvm::IRBuilder<>& builder, bool is_max, llvm::Value* x,
                                   llvm::ConstantFP* c)
{
  if (c->isZero()) {
    // The x that are kept against the zero: for max, a positive x, and +0 too when the zero is -0;
    // for min, a negative x, and -0 too when the zero is +0. A NaN x is never kept.
    llvm::FPClassTest wins = is_max ? llvm::fcPosSubnormal | llvm::fcPosNormal | llvm::fcPosInf
                                    : llvm::fcNegSubnormal | llvm::fcNegNormal | llvm::fcNegInf;
    if (is_max == c->isNegative()) {
      wins = wins | (is_max ? llvm::fcPosZero : llvm::fcNegZero);
    }
    return builder.CreateSelect(builder.createIsFPClass(x, wins), x, c);
  }
  llvm::Value* wins = is_max ? builder.CreateFCmpOGT(x, c) : builder.CreateFCmpOLT(x, c);
  return builder.CreateSelect(wins, x, c);
}

llvm::Value* saturate(llvm::IRBuilder<>& builder, llvm::Value* value)
{
  llvm::Type* type = value->getType();
  llvm::Value* zero = llvm::ConstantFP::get(type, 0.0);
  llvm::Value* one = llvm::ConstantFP::get(type, 1.0);
  // NaN and anything <= 0 (-0 included) give +0; anything >= 1 gives 1.
  llvm::Value* above_zero = builder.CreateFCmpOGT(value, zero);
  llvm::Value* low = builder.CreateSelect(above_zero, value, zero);
  return builder.CreateSelect(builder.CreateFCmpOGT(low, one), one, low);
}

llvm::Constant* ptx_half_nan(llvm::Type* type)
{
  return llvm::ConstantFP::get(type, llvm::APFloat(llvm::APFloat::IEEEhalf(), llvm::APInt(16, 0x7fff)));
}

llvm::Value* canonical_nan(llvm::IRBuilder<>& builder, llvm::Value* value)
{
  llvm::Value* nan = nullptr;
  if (value->getType()->isFloatTy()) {
    nan = builder.CreateBitCast(builder.getInt32(0x7fffffffU), value->getType());
  } else if (value->getType()->isDoubleTy()) {
    nan = builder.CreateBitCast(builder.getInt64(0xfff8000000000000ULL), value->getType());
  } else if (value->getType()->isVectorTy() && value->getType()->getScalarType()->isHalfTy()) {
    nan = ptx_half_nan(value->getType());
  } else {
    return value;
  }
  return builder.CreateSelect(builder.CreateFCmpUNO(value, value), nan, value);
}

llvm::Value* nan_result(llvm::IRBuilder<>& builder, llvm::Value* value,
                        std::span<llvm::Value* const> operands)
{
  if (!value->getType()->isDoubleTy()) {
    return canonical_nan(builder, value);
  }
  // Innermost select first: the last operand, then earlier ones override, so the first NaN wins.
  llvm::Type* i64 = builder.getInt64Ty();
  llvm::Value* nan = builder.getInt64(0xfff8000000000000ULL);
  for (auto it = operands.rbegin(); it != operands.rend(); ++it) {
    llvm::Value* quiet = builder.CreateOr(builder.CreateBitCast(*it, i64),
                                          builder.getInt64(0x0008000000000000ULL));
    nan = builder.CreateSelect(builder.CreateFCmpUNO(*it, *it), quiet, nan);
  }
  llvm::Value* is_nan = builder.CreateFCmpUNO(value, value);
  return builder.CreateSelect(is_nan, builder.CreateBitCast(nan, value->getType()), value);
}

} // namespace d4r::compiler::translate
