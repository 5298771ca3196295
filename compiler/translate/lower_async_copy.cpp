// cp.async (.ca/.cg .shared{::cta}.global, sizes 4/8/16, src-size zero fill or the ignore-src
// predicate, the L2 hints) and cp.async.commit_group / wait_group N / wait_all. Both targets copy
// synchronously: the copy is done when the instruction is, which is one of the orders the ISA
// allows (the copy "may" overlap later instructions; nothing may rely on that), so the waits have
// nothing left to wait for. The copying thread sees its data after the wait, as the ISA promises;
// other threads see it after bar.sync, as with any shared store. The .L2::cache_hint operand and
// .L2::64B/128B/256B prefetch sizes are cache hints with no observable effect and are read and
// ignored. cp.async.mbarrier.arrive, cp.async.bulk and the other cp forms are unsupported.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/ptx_values.hpp"

#include <optional>
#include <string>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

// `bytes` bytes from `source` to `target`, the ones from `valid` (i32) on zero: when valid >= bytes
// one wide copy, else a byte loop that never reads the source past `valid` (a zero-fill copy's
// source may point nowhere).
void copy_with_fill(FunctionTranslator& t, llvm::Value* target, llvm::Value* source, int bytes,
                    llvm::Value* valid)
{
  Builder& b = t.builder();
  llvm::Function& function = t.llvm_function();
  llvm::BasicBlock* whole = llvm::BasicBlock::Create(t.context(), "cp.whole", &function);
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(t.context(), "cp.bytes", &function);
  llvm::BasicBlock* read = llvm::BasicBlock::Create(t.context(), "cp.read", &function);
  llvm::BasicBlock* write = llvm::BasicBlock::Create(t.context(), "cp.write", &function);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(t.context(), "cp.done", &function);
  llvm::Type* wide = b.getIntNTy(static_cast<unsigned>(bytes * 8));
  const llvm::Align align(static_cast<uint64_t>(bytes));
  llvm::AllocaInst* index_slot = t.entry_alloca(b.getInt32Ty(), 4, "cp.i");
  llvm::AllocaInst* byte_slot = t.entry_alloca(b.getInt8Ty(), 1, "cp.byte");
  b.CreateStore(b.getInt32(0), index_slot);
  b.CreateCondBr(b.CreateICmpUGE(valid, b.getInt32(static_cast<uint32_t>(bytes))), whole, loop);

  b.SetInsertPoint(whole);
  b.CreateAlignedStore(b.CreateAlignedLoad(wide, source, align), target, align);
  b.CreateBr(done);

  b.SetInsertPoint(loop);
  llvm::Value* index = b.CreateLoad(b.getInt32Ty(), index_slot);
  b.CreateStore(b.getInt8(0), byte_slot);
  b.CreateCondBr(b.CreateICmpULT(index, valid), read, write);

  b.SetInsertPoint(read);
  b.CreateStore(b.CreateLoad(b.getInt8Ty(), b.CreateGEP(b.getInt8Ty(), source, index)), byte_slot);
  b.CreateBr(write);

  b.SetInsertPoint(write);
  b.CreateStore(b.CreateLoad(b.getInt8Ty(), byte_slot), b.CreateGEP(b.getInt8Ty(), target, index));
  llvm::Value* next = b.CreateAdd(index, b.getInt32(1));
  b.CreateStore(next, index_slot);
  b.CreateCondBr(b.CreateICmpULT(next, b.getInt32(static_cast<uint32_t>(bytes))), loop, done);

  b.SetInsertPoint(done);
}

// Whether an operand is a predicate (the ignore-src form) rather than src-size.
bool is_predicate(FunctionTranslator& t, const ptx::Operand& operand)
{
  if (operand.kind != ptx::OperandKind::reg && operand.kind != ptx::OperandKind::symbol) {
    return false;
  }
  auto slot = t.reg(operand.text);
  return slot && slot->second.kind == PtxType::Kind::pred;
}

// cp.async.{ca,cg}.shared{::cta}.global{.L2::cache_hint}{.L2::NB} [dst], [src], cp-size
//   {, src-size | ignore-src}{, cache-policy}.
Expected<void> lower_cp_async_copy(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "async",          "ca",      "cg",       "shared",  "shared::cta", "global",
      "L2::cache_hint", "L2::64B", "L2::128B", "L2::256B"};
  TRY(known_modifiers(t, instruction, k_known));
  const bool cg = has_modifier(instruction, "cg");
  const bool hint = has_modifier(instruction, "L2::cache_hint");
  const int prefetch = int{has_modifier(instruction, "L2::64B")} +
                       int{has_modifier(instruction, "L2::128B")} +
                       int{has_modifier(instruction, "L2::256B")};
  // The direction is in the order: .shared{::cta} (destination) before .global (source).
  const std::vector<std::string>& m = instruction.modifiers;
  const bool shared =
      m.size() >= 4 && (m[2] == "shared" || m[2] == "shared::cta") && m[3] == "global";
  const size_t expected = 4 + size_t{hint} + (prefetch > 0 ? 1U : 0U);
  if (cg == has_modifier(instruction, "ca") || !shared || prefetch > 1 || m.size() != expected) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  if (ops.size() < 3 || ops.size() > 5 || (!hint && ops.size() == 5)) {
    return std::unexpected(t.error(instruction, "cp.async takes [dst], [src], cp-size"
                                                "{, src-size}{, cache-policy}"));
  }
  std::optional<uint64_t> size =
      ops[2].kind == ptx::OperandKind::integer ? parse_integer(ops[2].text) : std::nullopt;
  if (!size || (*size != 4 && *size != 8 && *size != 16) || (cg && *size != 16)) {
    return std::unexpected(t.error(instruction, "cp.async's cp-size is 4, 8 or 16 (.cg: 16)"));
  }
  const int bytes = static_cast<int>(*size);
  Builder& b = t.builder();
  // The optional 4th operand: src-size or ignore-src; with a cache hint the last one is the policy.
  const size_t extra = ops.size() - 3 - (hint ? 1U : 0U);
  llvm::Value* valid = b.getInt32(static_cast<uint32_t>(bytes));
  if (hint) {
    TRY_ASSIGN(llvm::Value * policy, t.read(ops.back(), PtxType{PtxType::Kind::bits, 64, false}));
    (void)policy; // a cache policy: no observable effect
  }
  if (extra == 1) {
    if (is_predicate(t, ops[3])) {
      TRY_ASSIGN(llvm::Value * ignore, t.read(ops[3], pred_type()));
      valid = b.CreateSelect(ignore, b.getInt32(0), valid);
    } else {
      TRY_ASSIGN(valid, t.read(ops[3], u32_type()));
    }
  } else if (extra > 1) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(llvm::Value * target, t.address(ops[0], Space::shared));
  TRY_ASSIGN(llvm::Value * source, t.address(ops[1], Space::global));
  copy_with_fill(t, target, source, bytes, valid);
  return {};
}

// cp.async.commit_group, cp.async.wait_group N, cp.async.wait_all: no copy is ever pending.
Expected<void> lower_cp_async_group(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::string& what = instruction.modifiers[1];
  if (what == "wait_group") {
    TRY(expect_operands(t, instruction, 1));
    if (instruction.operands[0].kind != ptx::OperandKind::integer) {
      return std::unexpected(t.error(instruction, "cp.async.wait_group takes an integer constant"));
    }
    return {};
  }
  return expect_operands(t, instruction, 0);
}

Expected<void> lower_cp(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.size() < 2 || m[0] != "async") {
    return std::unexpected(t.unsupported(instruction)); // cp.reduce.async.bulk, ...
  }
  if (m.size() == 2 && (m[1] == "commit_group" || m[1] == "wait_group" || m[1] == "wait_all")) {
    return lower_cp_async_group(t, instruction);
  }
  if (m[1] == "ca" || m[1] == "cg") {
    return lower_cp_async_copy(t, instruction);
  }
  return std::unexpected(t.unsupported(instruction)); // .mbarrier.arrive, .bulk, ...
}

} // namespace

void add_async_copy_lowerings(LoweringTable& table)
{
  table["cp"] = lower_cp;
}

} // namespace d4r::compiler::translate
