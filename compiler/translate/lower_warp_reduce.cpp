// Warp reductions and matches: redux.sync (.add/.min/.max on .u32/.s32, .and/.or/.xor on .b32)
// and match.any.sync / match.all.sync (.b32/.b64, match.all with the optional predicate).
// Both read every member lane's value with the existing warp exchange hook, one lane per
// iteration of a 32-step loop, and fold only the lanes that are in the member mask and have not
// exited (the member mask ANDed with a ballot of true): that is what the ISA defines for any mask,
// partial ones included, and it needs no lane outside the mask to take part (a lane outside the
// mask may be at another instruction; its exchanged value is read but never used).
// The f32 forms of redux.sync (.abs, .NaN; sm_100a) are unsupported.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-redux-sync
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-match-sync

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"

#include <llvm/IR/Intrinsics.h>

#include <functional>
#include <optional>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

// Calls `fold(lane, values)` once for each lane 0..31 of the warp, in an IR loop; `values` are
// that lane's `mine` (each i32) as the warp exchange returned them. `fold` runs inside the loop
// body and must only emit code there.
void for_each_lane(FunctionTranslator& t, llvm::Value* mask, const std::vector<llvm::Value*>& mine,
                   const std::function<void(llvm::Value*, const std::vector<llvm::Value*>&)>& fold)
{
  Builder& b = t.builder();
  llvm::AllocaInst* lane_slot = t.entry_alloca(b.getInt32Ty(), 4, "lanes.k");
  b.CreateStore(b.getInt32(0), lane_slot);
  std::vector<uint32_t> sites;
  for (size_t i = 0; i < mine.size(); ++i) {
    sites.push_back(t.next_site());
  }
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(t.context(), "lanes.loop", &t.llvm_function());
  llvm::BasicBlock* done = llvm::BasicBlock::Create(t.context(), "lanes.done", &t.llvm_function());
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::Value* lane = b.CreateLoad(b.getInt32Ty(), lane_slot);
  std::vector<llvm::Value*> values;
  for (size_t i = 0; i < mine.size(); ++i) {
    values.push_back(t.hooks().warp_exchange(t.env(), sites[i], mask, mine[i], lane));
  }
  fold(lane, values);
  llvm::Value* next = b.CreateAdd(lane, b.getInt32(1));
  b.CreateStore(next, lane_slot);
  b.CreateCondBr(b.CreateICmpULT(next, b.getInt32(32)), loop, done);
  b.SetInsertPoint(done);
}

// The lanes that take part: the member mask without the lanes that exited.
llvm::Value* present_lanes(FunctionTranslator& t, llvm::Value* mask)
{
  llvm::Value* ballot = t.hooks().warp_ballot(t.env(), t.next_site(), mask, t.builder().getTrue());
  return t.builder().CreateAnd(ballot, mask);
}

llvm::Value* lane_bit(Builder& b, llvm::Value* set, llvm::Value* lane)
{
  return b.CreateICmpNE(b.CreateAnd(b.CreateLShr(set, lane), b.getInt32(1)), b.getInt32(0));
}

enum class ReduxOp { add, umin, umax, smin, smax, bit_and, bit_or, bit_xor };

// The operation of redux.sync's modifiers, exactly as the ISA lists them, or nullopt.
std::optional<ReduxOp> redux_op(const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.size() != 3 || m[0] != "sync") {
    return std::nullopt;
  }
  const std::string& op = m[1];
  const std::string& type = m[2];
  if (type == "u32" || type == "s32") {
    const bool s = type == "s32";
    if (op == "add") {
      return ReduxOp::add;
    }
    if (op == "min") {
      return s ? ReduxOp::smin : ReduxOp::umin;
    }
    if (op == "max") {
      return s ? ReduxOp::smax : ReduxOp::umax;
    }
    return std::nullopt;
  }
  if (type == "b32") {
    if (op == "and") {
      return ReduxOp::bit_and;
    }
    if (op == "or") {
      return ReduxOp::bit_or;
    }
    if (op == "xor") {
      return ReduxOp::bit_xor;
    }
  }
  return std::nullopt;
}

uint32_t redux_identity(ReduxOp op)
{
  switch (op) {
  case ReduxOp::add:
  case ReduxOp::umax:
  case ReduxOp::bit_or:
  case ReduxOp::bit_xor:
    return 0;
  case ReduxOp::umin:
  case ReduxOp::bit_and:
    return 0xffffffffU;
  case ReduxOp::smin:
    return 0x7fffffffU;
  case ReduxOp::smax:
    return 0x80000000U;
  }
  return 0;
}

llvm::Value* redux_combine(Builder& b, ReduxOp op, llvm::Value* x, llvm::Value* y)
{
  switch (op) {
  case ReduxOp::add:
    return b.CreateAdd(x, y); // the ISA: "truncated to 32 bits"
  case ReduxOp::umin:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::umin, x, y);
  case ReduxOp::umax:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::umax, x, y);
  case ReduxOp::smin:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::smin, x, y);
  case ReduxOp::smax:
    return b.CreateBinaryIntrinsic(llvm::Intrinsic::smax, x, y);
  case ReduxOp::bit_and:
    return b.CreateAnd(x, y);
  case ReduxOp::bit_or:
    return b.CreateOr(x, y);
  case ReduxOp::bit_xor:
    return b.CreateXor(x, y);
  }
  return x;
}

// redux.sync.op.type d, a, membermask.
Expected<void> lower_redux(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  std::optional<ReduxOp> op = redux_op(instruction);
  if (!op) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 3));
  Builder& b = t.builder();
  TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[1], u32_type()));
  TRY_ASSIGN(llvm::Value * mask, t.read(instruction.operands[2], u32_type()));
  llvm::Value* present = present_lanes(t, mask);
  llvm::AllocaInst* acc = t.entry_alloca(b.getInt32Ty(), 4, "redux.acc");
  b.CreateStore(b.getInt32(redux_identity(*op)), acc);
  for_each_lane(t, mask, {value}, [&](llvm::Value* lane, const std::vector<llvm::Value*>& values) {
    llvm::Value* old = b.CreateLoad(b.getInt32Ty(), acc);
    llvm::Value* folded = redux_combine(b, *op, old, values[0]);
    b.CreateStore(b.CreateSelect(lane_bit(b, present, lane), folded, old), acc);
  });
  return t.write(instruction.operands[0], b.CreateLoad(b.getInt32Ty(), acc), u32_type());
}

// match.any.sync.type d, a, membermask / match.all.sync.type d{|p}, a, membermask.
Expected<void> lower_match(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"any", "all", "sync", "b32", "b64"};
  TRY(known_modifiers(t, instruction, k_known));
  const bool any = has_modifier(instruction, "any");
  const bool all = has_modifier(instruction, "all");
  const bool wide = has_modifier(instruction, "b64");
  if (instruction.modifiers.size() != 3 || any == all || !has_modifier(instruction, "sync") ||
      wide == has_modifier(instruction, "b32")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 3));
  const ptx::Operand& target = instruction.operands[0];
  if (any && target.kind == ptx::OperandKind::pair) {
    return std::unexpected(t.unsupported(instruction)); // only match.all has a predicate
  }
  Builder& b = t.builder();
  PtxType type{PtxType::Kind::bits, wide ? 64 : 32, false};
  TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[1], type));
  TRY_ASSIGN(llvm::Value * mask, t.read(instruction.operands[2], u32_type()));
  std::vector<llvm::Value*> mine = {b.CreateTrunc(value, b.getInt32Ty())};
  if (wide) {
    mine.push_back(b.CreateTrunc(b.CreateLShr(value, 32), b.getInt32Ty()));
  }
  llvm::Value* present = present_lanes(t, mask);
  llvm::AllocaInst* equal = t.entry_alloca(b.getInt32Ty(), 4, "match.equal");
  b.CreateStore(b.getInt32(0), equal);
  for_each_lane(t, mask, mine, [&](llvm::Value* lane, const std::vector<llvm::Value*>& values) {
    llvm::Value* same = b.CreateICmpEQ(values[0], mine[0]);
    if (wide) {
      same = b.CreateAnd(same, b.CreateICmpEQ(values[1], mine[1]));
    }
    llvm::Value* bit = b.CreateShl(b.getInt32(1), lane);
    llvm::Value* old = b.CreateLoad(b.getInt32Ty(), equal);
    llvm::Value* take = b.CreateAnd(same, lane_bit(b, present, lane));
    b.CreateStore(b.CreateSelect(take, b.CreateOr(old, bit), old), equal);
  });
  llvm::Value* matched = b.CreateLoad(b.getInt32Ty(), equal);
  if (any) {
    return t.write(target, matched, u32_type());
  }
  llvm::Value* uniform = b.CreateICmpEQ(matched, present);
  llvm::Value* result = b.CreateSelect(uniform, present, b.getInt32(0));
  if (target.kind == ptx::OperandKind::pair) {
    TRY(t.write(target.elements[0], result, u32_type()));
    return t.write(target.elements[1], uniform, pred_type());
  }
  return t.write(target, result, u32_type());
}

} // namespace

void add_warp_reduce_lowerings(LoweringTable& table)
{
  table["redux"] = lower_redux;
  table["match"] = lower_match;
}

} // namespace d4r::compiler::translate
