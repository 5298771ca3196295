// Block and warp collectives: bar.sync / barrier.sync / bar.arrive-free forms, bar.warp.sync,
// shfl.sync (idx, up, down, bfly, with the optional predicate destination), vote.sync (all, any,
// uni, ballot), activemask. The source lane of a shuffle is computed by the support library's
// __d4r_ptx_shfl_source (PTX's clamp and segment-mask rules); the exchange itself and the ballot
// are target hooks (ds_bpermute and ballot on AMDGPU, the SIMT runtime on the host). A lane whose
// source is out of range keeps its own value, as PTX specifies.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

// bar.sync a{, b} / barrier.sync{.aligned} a{, b} / bar{.cta}.sync.
Expected<void> lower_bar(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (has_modifier(instruction, "warp")) {
    TRY(expect_operands(t, instruction, 1));
    TRY_ASSIGN(llvm::Value * mask, t.read(instruction.operands[0], u32_type()));
    t.hooks().warp_sync(t.env(), t.next_site(), mask);
    return {};
  }
  if (!has_modifier(instruction, "sync") && !instruction.modifiers.empty() &&
      !(instruction.modifiers.size() == 1 && instruction.modifiers[0] == "cta")) {
    return std::unexpected(t.unsupported(instruction)); // bar.arrive, bar.red
  }
  if (instruction.operands.empty() || instruction.operands.size() > 2) {
    return std::unexpected(t.error(instruction, "bar.sync takes 1 or 2 operands"));
  }
  TRY_ASSIGN(llvm::Value * id, t.read(instruction.operands[0], u32_type()));
  llvm::Value* count = t.i32(0);
  if (instruction.operands.size() == 2) {
    TRY_ASSIGN(count, t.read(instruction.operands[1], u32_type()));
  }
  t.hooks().barrier(t.env(), t.next_site(), id, count);
  return {};
}

// shfl.sync.mode.b32 d{|p}, a, b, c, membermask.
Expected<void> lower_shfl(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(expect_operands(t, instruction, 5));
  if (!has_modifier(instruction, "sync")) {
    return std::unexpected(t.unsupported(instruction));
  }
  uint32_t mode = 0;
  if (has_modifier(instruction, "up")) {
    mode = 1;
  } else if (has_modifier(instruction, "down")) {
    mode = 2;
  } else if (has_modifier(instruction, "bfly")) {
    mode = 3;
  } else if (!has_modifier(instruction, "idx")) {
    return std::unexpected(t.unsupported(instruction));
  }
  Builder& b = t.builder();
  PtxType bits32{PtxType::Kind::bits, 32, false};
  TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[1], bits32));
  TRY_ASSIGN(llvm::Value * lane_arg, t.read(instruction.operands[2], u32_type()));
  TRY_ASSIGN(llvm::Value * clamp, t.read(instruction.operands[3], u32_type()));
  TRY_ASSIGN(llvm::Value * mask, t.read(instruction.operands[4], u32_type()));
  llvm::Value* laneid = t.hooks().special_register(t.env(), "%laneid");
  // The support library takes a generic pointer; the slot may be in the private address space.
  llvm::AllocaInst* in_range_slot = t.entry_alloca(b.getInt32Ty(), 4, "shfl.in_range");
  llvm::Value* in_range_pointer = b.CreatePointerBitCastOrAddrSpaceCast(in_range_slot, b.getPtrTy(0));
  llvm::Value* source = t.call_support("__d4r_ptx_shfl_source", b.getInt32Ty(),
                                       {laneid, t.i32(mode), lane_arg, clamp, in_range_pointer});
  llvm::Value* in_range =
      b.CreateICmpNE(b.CreateLoad(b.getInt32Ty(), in_range_slot), b.getInt32(0));
  source = b.CreateSelect(in_range, source, laneid);
  llvm::Value* result = t.hooks().warp_exchange(t.env(), t.next_site(), mask, value, source);
  const ptx::Operand& target = instruction.operands[0];
  if (target.kind == ptx::OperandKind::pair) {
    TRY(t.write(target.elements[0], result, bits32));
    return t.write(target.elements[1], in_range, pred_type());
  }
  return t.write(target, result, bits32);
}

// vote.sync.mode d, {!}a, membermask (vote without .sync: the converged lanes).
Expected<void> lower_vote(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  bool sync = has_modifier(instruction, "sync");
  TRY(expect_operands(t, instruction, sync ? 3 : 2));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * predicate, t.read(instruction.operands[1], pred_type()));
  llvm::Value* mask = t.i32(0);
  if (sync) {
    TRY_ASSIGN(mask, t.read(instruction.operands[2], u32_type()));
  }
  const ptx::Operand& target = instruction.operands[0];
  if (has_modifier(instruction, "ballot")) {
    llvm::Value* ballot = t.hooks().warp_ballot(t.env(), t.next_site(), mask, predicate);
    return t.write(target, ballot, u32_type());
  }
  llvm::Value* result = nullptr;
  if (has_modifier(instruction, "all")) {
    llvm::Value* against = t.hooks().warp_ballot(t.env(), t.next_site(), mask, b.CreateNot(predicate));
    result = b.CreateICmpEQ(against, b.getInt32(0));
  } else if (has_modifier(instruction, "any")) {
    llvm::Value* ballot = t.hooks().warp_ballot(t.env(), t.next_site(), mask, predicate);
    result = b.CreateICmpNE(ballot, b.getInt32(0));
  } else if (has_modifier(instruction, "uni")) {
    llvm::Value* yes = t.hooks().warp_ballot(t.env(), t.next_site(), mask, predicate);
    llvm::Value* no = t.hooks().warp_ballot(t.env(), t.next_site(), mask, b.CreateNot(predicate));
    result = b.CreateOr(b.CreateICmpEQ(yes, b.getInt32(0)), b.CreateICmpEQ(no, b.getInt32(0)));
  } else {
    return std::unexpected(t.unsupported(instruction));
  }
  return t.write(target, result, pred_type());
}

Expected<void> lower_activemask(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(expect_operands(t, instruction, 1));
  llvm::Value* ballot =
      t.hooks().warp_ballot(t.env(), t.next_site(), t.i32(0), t.builder().getTrue());
  return t.write(instruction.operands[0], ballot, u32_type());
}

} // namespace

void add_warp_lowerings(LoweringTable& table)
{
  table["bar"] = lower_bar;
  table["barrier"] = lower_bar;
  table["shfl"] = lower_shfl;
  table["vote"] = lower_vote;
  table["activemask"] = lower_activemask;
}

} // namespace d4r::compiler::translate
