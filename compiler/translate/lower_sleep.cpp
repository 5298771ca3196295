// nanosleep.u32 t: "suspends the thread for a sleep duration approximately close to the delay t,
// in nanoseconds ... guaranteed to be in [0, 2*t]". It has no observable result, so the host does
// nothing (a duration of 0 is in range); AMDGPU sleeps one s_sleep unit (64 clocks, at most 64 ns
// at 1 GHz or more) when t is at least 64, so that spin-wait loops back off without ever sleeping
// longer than 2*t.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#miscellaneous-instructions-nanosleep

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Intrinsics.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>

namespace d4r::compiler::translate {

namespace {

Expected<void> lower_nanosleep(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"u32"};
  TRY(known_modifiers(t, instruction, k_known));
  if (instruction.modifiers.size() != 1) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 1));
  TRY_ASSIGN(llvm::Value * delay, t.read(instruction.operands[0], u32_type()));
  if (t.hooks().kind() != TargetKind::amdgpu) {
    return {};
  }
  llvm::IRBuilder<>& b = t.builder();
  llvm::BasicBlock* sleep = llvm::BasicBlock::Create(t.context(), "sleep", &t.llvm_function());
  llvm::BasicBlock* next = llvm::BasicBlock::Create(t.context(), "sleep.done", &t.llvm_function());
  b.CreateCondBr(b.CreateICmpUGE(delay, b.getInt32(64)), sleep, next);
  b.SetInsertPoint(sleep);
  b.CreateIntrinsic(llvm::Intrinsic::amdgcn_s_sleep, {}, {b.getInt32(1)});
  b.CreateBr(next);
  b.SetInsertPoint(next);
  return {};
}

} // namespace

void add_sleep_lowerings(LoweringTable& table)
{
  table["nanosleep"] = lower_nanosleep;
}

} // namespace d4r::compiler::translate
