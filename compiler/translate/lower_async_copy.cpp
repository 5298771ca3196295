// cp.async (.ca/.cg .shared{::cta}.global, sizes 4/8/16, src-size zero fill or the ignore-src
// predicate, the L2 hints) and cp.async.commit_group / wait_group N / wait_all. Both targets copy
// synchronously: the copy is done when the instruction is, which is one of the orders the ISA
// allows (the copy "may" overlap later instructions; nothing may rely on that), so the waits have
// nothing left to wait for. The copying thread sees its data after the wait, as the ISA promises;
// other threads see it after bar.sync, as with any shared store. The .L2::cache_hint operand and
// .L2::64B/128B/256B prefetch sizes are cache hints with no observable effect and are read and
// ignored.
//
// The sm_90 bulk forms are synchronous too, and their completion is what the ISA says happens
// when the asynchronous operation completes, done right after the copy:
//   - cp.async.mbarrier.arrive: an arrive-on operation on the barrier once the thread's earlier
//     cp.async copies completed (they have). Without .noinc the pending count is first raised by
//     one, so the two cancel: nothing changes (a phase waiting only for its tx-count cannot
//     complete through it either, the tx-count is not zero). .noinc: one arrival.
//   - cp.async.bulk global -> .shared::cta/.shared::cluster with .mbarrier::complete_tx::bytes
//     (and .multicast::cluster: ctaMask bit 0 is the own CTA): the copy, then complete-tx of
//     `size` bytes on the barrier (release, so a waiter that acquires the phase sees the data).
//   - cp.async.bulk .shared::cta -> global with .bulk_group: the copy; cp.async.bulk.commit_group
//     and wait_group(.read) N are then no-ops, as for cp.async.
//   - cp.reduce.async.bulk .global from .shared::cta (.bulk_group): each element of the
//     destination combined with the source's by an atomic read-modify-write (.add .min .max .inc
//     .dec .and .or .xor on the integer types; .add on .f32/.f64 and .add/.min/.max on
//     .f16/.bf16 as lower_bulk_reduce_float says).
//   - cp.async.bulk.prefetch{.tensor}: a cache hint, a no-op.
//   - st.async / red.async (lower_memory.cpp's st and red delegate): the store or the atomic,
//     then complete-tx of its bytes. The H200 stops them in a launch without clusters (illegal
//     instruction), so they translate only in kernels that require clusters of one CTA
//     (.reqnctapercluster 1, 1, 1: every launch is a cluster launch; require_cluster_launch).
//   - the .shared::cta -> .shared::cluster copy and reduction write a peer CTA: the H200 refuses
//     them in a launch without clusters, so they are "unsupported".
// .shared::cluster addresses are the CTA's own shared addresses where every cluster is one CTA
// (one_cta_clusters, lower_cluster.cpp); elsewhere those forms are "unsupported". The tensor copies
// (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor) and tensormap.* are lower_tensor_copy.cpp's.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cp-async-bulk

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lower_mbarrier.hpp"
#include "compiler/translate/lower_tensor_copy.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/ptx_values.hpp"
#include "compiler/translate/store_source.hpp"

#include <llvm/ADT/STLFunctionalExtras.h>

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

// A loop over `count` (i32) elements: body(index) for each index below it.
void element_loop(FunctionTranslator& t, llvm::Value* count,
                  llvm::function_ref<void(llvm::Value*)> body)
{
  Builder& b = t.builder();
  llvm::Function& function = t.llvm_function();
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(t.context(), "bulk.loop", &function);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(t.context(), "bulk.done", &function);
  b.CreateCondBr(b.CreateICmpEQ(count, b.getInt32(0)), done, loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* index = b.CreatePHI(b.getInt32Ty(), 2);
  index->addIncoming(b.getInt32(0), before);
  body(index);
  llvm::Value* next = b.CreateAdd(index, b.getInt32(1));
  index->addIncoming(next, b.GetInsertBlock());
  b.CreateCondBr(b.CreateICmpULT(next, count), loop, done);
  b.SetInsertPoint(done);
}

// The pointer of a bulk operand in `space` ("global", "shared::cta", "shared::cluster").
Expected<llvm::Value*> bulk_address(FunctionTranslator& t, const ptx::Instruction& instruction,
                                    const ptx::Operand& operand, std::string_view space)
{
  if (space == "global") {
    return t.address(operand, Space::global);
  }
  return mbarrier_pointer(t, instruction, operand, space);
}

// The operand layout of a bulk copy or reduction: which spaces, whether a barrier completes it.
struct BulkForm {
  std::string_view destination;
  std::string_view source;
  bool mbarrier = false; // .mbarrier::complete_tx::bytes (else .bulk_group)
};

// After `first` (the modifier index of the destination): dst.src.completion, one of the forms the
// ISA lists; nullopt for any other.
std::optional<BulkForm> bulk_form(const std::vector<std::string>& m, size_t first)
{
  if (m.size() < first + 3) {
    return std::nullopt;
  }
  const std::string& dst = m[first];
  const std::string& src = m[first + 1];
  const std::string& completion = m[first + 2];
  const bool to_shared = dst == "shared::cluster" || dst == "shared::cta";
  if (to_shared && src == "global" && completion == "mbarrier::complete_tx::bytes") {
    return BulkForm{dst, src, true};
  }
  // .shared::cluster from .shared::cta (copy or reduction) writes a peer CTA's shared memory: in a
  // launch without clusters the H200 stops such a kernel with an illegal instruction
  // (mbar_bulk_shared), so a cluster of one CTA cannot run it either: unsupported.
  if (dst == "global" && src == "shared::cta" && completion == "bulk_group") {
    return BulkForm{dst, src, false};
  }
  return std::nullopt;
}

// The operands after [dst], [src], size: [mbar] for a barrier form, then the cache policy when
// .L2::cache_hint is given (read and ignored). Returns the barrier's pointer or nullptr.
Expected<llvm::Value*> bulk_tail(FunctionTranslator& t, const ptx::Instruction& instruction,
                                 const BulkForm& form, bool hint, bool multicast = false)
{
  const std::vector<ptx::Operand>& ops = instruction.operands;
  const size_t expected = 3 + (form.mbarrier ? 1U : 0U) + (multicast ? 1U : 0U) + (hint ? 1U : 0U);
  if (ops.size() != expected) {
    return std::unexpected(t.error(
        instruction, "takes [dst], [src], size" + std::string(form.mbarrier ? ", [mbar]" : "") +
                         (multicast ? ", ctaMask" : "") + (hint ? ", cache-policy" : "")));
  }
  if (hint) {
    TRY_ASSIGN(llvm::Value * policy, t.read(ops.back(), PtxType{PtxType::Kind::bits, 64, false}));
    (void)policy; // a cache policy: no observable effect
  }
  if (!form.mbarrier) {
    return nullptr;
  }
  const std::string_view space = form.destination == "global" ? "shared::cta" : form.destination;
  return mbarrier_pointer(t, instruction, ops[3], space);
}

// cp.async.bulk.dst.src.completion{.multicast::cluster}{.L2::cache_hint} [dst], [src], size
// {, [mbar]}{, ctaMask}{, policy}: `size` bytes (a multiple of 16) copied as words, then
// complete-tx on the barrier. .multicast::cluster writes the data (and signals the barrier) in
// every CTA of ctaMask; in a cluster of one CTA that is bit 0, the own CTA (other bits name CTAs
// that do not exist: undefined), so the copy happens when bit 0 is set.
Expected<void> lower_bulk_copy(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"async",           "bulk",
                                                 "shared::cluster", "shared::cta",
                                                 "global",          "mbarrier::complete_tx::bytes",
                                                 "bulk_group",      "multicast::cluster",
                                                 "L2::cache_hint"};
  TRY(known_modifiers(t, instruction, k_known));
  const std::vector<std::string>& m = instruction.modifiers;
  const bool hint = has_modifier(instruction, "L2::cache_hint");
  const bool multicast = has_modifier(instruction, "multicast::cluster");
  std::optional<BulkForm> form = bulk_form(m, 2);
  const size_t count = 5 + (hint ? 1U : 0U) + (multicast ? 1U : 0U);
  if (!form || m.size() != count || (hint && m.back() != "L2::cache_hint") ||
      (hint && form->source == "shared::cta" && form->destination != "global") ||
      (multicast && (m[5] != "multicast::cluster" || form->destination != "shared::cluster" ||
                     form->source != "global"))) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  TRY_ASSIGN(llvm::Value * barrier, bulk_tail(t, instruction, *form, hint, multicast));
  TRY_ASSIGN(llvm::Value * target, bulk_address(t, instruction, ops[0], form->destination));
  TRY_ASSIGN(llvm::Value * source, bulk_address(t, instruction, ops[1], form->source));
  TRY_ASSIGN(llvm::Value * size, t.read(ops[2], u32_type()));
  Builder& b = t.builder();
  llvm::BasicBlock* after = nullptr;
  if (multicast) {
    TRY_ASSIGN(llvm::Value * mask, t.read(ops[4], PtxType{PtxType::Kind::bits, 16, false}));
    llvm::BasicBlock* own = llvm::BasicBlock::Create(t.context(), "bulk.own", &t.llvm_function());
    after = llvm::BasicBlock::Create(t.context(), "bulk.after", &t.llvm_function());
    b.CreateCondBr(b.CreateTrunc(mask, b.getInt1Ty()), own, after);
    b.SetInsertPoint(own);
  }
  element_loop(t, b.CreateLShr(size, 2), [&](llvm::Value* index) {
    llvm::Value* word = b.CreateAlignedLoad(
        b.getInt32Ty(), b.CreateGEP(b.getInt32Ty(), source, index), llvm::Align(4));
    b.CreateAlignedStore(word, b.CreateGEP(b.getInt32Ty(), target, index), llvm::Align(4));
  });
  if (barrier != nullptr) {
    mbarrier_complete_tx(t, barrier, size);
  }
  if (after != nullptr) {
    b.CreateBr(after);
    b.SetInsertPoint(after);
  }
  return {};
}

// The atomic operation of cp.reduce.async.bulk's .redOp on an integer type.
std::optional<llvm::AtomicRMWInst::BinOp> reduce_operation(std::string_view op, PtxType type)
{
  using Op = llvm::AtomicRMWInst::BinOp;
  const bool is_signed = type.is_signed();
  if (op == "add") {
    return Op::Add;
  }
  if (op == "min") {
    return is_signed ? Op::Min : Op::UMin;
  }
  if (op == "max") {
    return is_signed ? Op::Max : Op::UMax;
  }
  if (op == "inc" && type.bits == 32 && type.kind == PtxType::Kind::unsigned_int) {
    return Op::UIncWrap;
  }
  if (op == "dec" && type.bits == 32 && type.kind == PtxType::Kind::unsigned_int) {
    return Op::UDecWrap;
  }
  if ((op == "and" || op == "or" || op == "xor") && type.kind == PtxType::Kind::bits) {
    return op == "and" ? Op::And : op == "or" ? Op::Or : Op::Xor;
  }
  return std::nullopt;
}

// The float forms of cp.reduce.async.bulk into global memory: each element as atom's float
// atomics (reduce_float_element, lower_memory.cpp): .add.f32 keeping subnormals (unlike
// atom.add.f32: the H200 in mbar_bulk_reduce_float),
// .add/.min/.max on .f16/.bf16 like atom's .noftz forms, which keep them, .add.f64 with f64
// arithmetic's NaN rule.
Expected<void> lower_bulk_reduce_float(FunctionTranslator& t, const ptx::Instruction& instruction,
                                       const BulkForm& form, bool hint, std::string_view op,
                                       PtxType type)
{
  const bool half = type.bits == 16;
  const bool known = op == "add" || ((op == "min" || op == "max") && half);
  if (!known || (type.bits == 64 && op != "add") || form.destination != "global") {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  TRY_ASSIGN(llvm::Value * barrier, bulk_tail(t, instruction, form, hint));
  (void)barrier; // the global form completes through bulk groups
  TRY_ASSIGN(llvm::Value * target, bulk_address(t, instruction, ops[0], form.destination));
  TRY_ASSIGN(llvm::Value * source, bulk_address(t, instruction, ops[1], form.source));
  TRY_ASSIGN(llvm::Value * size, t.read(ops[2], u32_type()));
  Builder& b = t.builder();
  llvm::Type* element = half ? b.getInt16Ty() : llvm_type(t.context(), type);
  const llvm::Align align(static_cast<uint64_t>(type.bits / 8));
  llvm::SyncScope::ID sync = t.hooks().sync_scope(t.context(), "gpu");
  Expected<void> result;
  const int shift = type.bits == 16 ? 1 : type.bits == 32 ? 2 : 3;
  element_loop(t, b.CreateLShr(size, shift), [&](llvm::Value* index) {
    llvm::Value* value = b.CreateAlignedLoad(element, b.CreateGEP(element, source, index), align);
    Expected<llvm::Value*> old = reduce_float_element(
        t, instruction, op, type, b.CreateGEP(element, target, index), value, sync);
    if (!old) {
      result = std::unexpected(old.error());
    }
  });
  return result;
}

// cp.reduce.async.bulk.dst.src.completion{.L2::cache_hint}.redOp.type [dst], [src], size
// {, [mbar]}{, policy}: one atomic per element, then complete-tx for the barrier forms.
Expected<void> lower_bulk_reduce(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  const bool hint = has_modifier(instruction, "L2::cache_hint");
  std::optional<BulkForm> form = bulk_form(m, 3); // after reduce.async.bulk
  const size_t op_at = 6 + (hint ? 1U : 0U);
  const bool noftz = m.size() == op_at + 3 && m[op_at + 1] == "noftz";
  if (!form || m.size() != op_at + 2 + (noftz ? 1U : 0U) || (hint && m[6] != "L2::cache_hint") ||
      (form->destination != "global" && form->source != "shared::cta")) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::optional<PtxType> type = parse_type(m.back());
  if (type && type->is_float()) {
    return lower_bulk_reduce_float(t, instruction, *form, hint, m[op_at], *type);
  }
  if (!type || noftz || (type->bits != 32 && type->bits != 64) ||
      (form->destination == "shared::cluster" && form->source == "global")) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::optional<llvm::AtomicRMWInst::BinOp> op = reduce_operation(m[op_at], *type);
  if (!op) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  TRY_ASSIGN(llvm::Value * barrier, bulk_tail(t, instruction, *form, hint));
  TRY_ASSIGN(llvm::Value * target, bulk_address(t, instruction, ops[0], form->destination));
  TRY_ASSIGN(llvm::Value * source, bulk_address(t, instruction, ops[1], form->source));
  TRY_ASSIGN(llvm::Value * size, t.read(ops[2], u32_type()));
  Builder& b = t.builder();
  llvm::Type* element = b.getIntNTy(static_cast<unsigned>(type->bits));
  const llvm::Align align(static_cast<uint64_t>(type->bits / 8));
  const std::string_view scope = form->destination == "global" ? "gpu" : "cta";
  llvm::SyncScope::ID sync = t.hooks().sync_scope(t.context(), scope);
  llvm::Value* count = b.CreateLShr(size, type->bits == 32 ? 2 : 3);
  element_loop(t, count, [&](llvm::Value* index) {
    llvm::Value* value = b.CreateAlignedLoad(element, b.CreateGEP(element, source, index), align);
    b.CreateAtomicRMW(*op, b.CreateGEP(element, target, index), value, align,
                      llvm::AtomicOrdering::Monotonic, sync);
  });
  if (barrier != nullptr) {
    mbarrier_complete_tx(t, barrier, size);
  }
  return {};
}

// cp.async.mbarrier.arrive{.noinc}{.shared{::cta}}.b64 [addr].
Expected<void> lower_cp_async_arrive(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"async",  "mbarrier",    "arrive", "noinc",
                                                 "shared", "shared::cta", "b64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(expect_operands(t, instruction, 1));
  if (instruction.modifiers.back() != "b64") {
    return std::unexpected(t.unsupported(instruction));
  }
  const bool shared =
      has_modifier(instruction, "shared") || has_modifier(instruction, "shared::cta");
  TRY_ASSIGN(llvm::Value * pointer,
             mbarrier_pointer(t, instruction, instruction.operands[0], shared ? "shared" : ""));
  if (has_modifier(instruction, "noinc")) {
    mbarrier_arrive_one(t, pointer);
  }
  return {}; // without .noinc: +1 pending, then the arrival: no change
}

// cp.async.bulk.commit_group, cp.async.bulk.wait_group{.read} N: no bulk copy is ever pending.
Expected<void> lower_bulk_group(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m[2] == "commit_group" && m.size() == 3) {
    return expect_operands(t, instruction, 0);
  }
  if (m[2] != "wait_group" || m.size() > 4 || (m.size() == 4 && m[3] != "read")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 1));
  if (instruction.operands[0].kind != ptx::OperandKind::integer) {
    return std::unexpected(
        t.error(instruction, "cp.async.bulk.wait_group takes an integer constant"));
  }
  return {};
}

// cp.async.bulk.prefetch.L2.global{.L2::cache_hint} [src], size {, policy} and
// cp.async.bulk.prefetch.tensor.{1d..5d}.L2.global{.tile|.im2col}{.L2::cache_hint} [map, coords]
// {, offsets}{, policy}: hints with no observable effect.
Expected<void> lower_bulk_prefetch(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "async", "bulk", "prefetch", "tensor", "1d",   "2d",     "3d",
      "4d",    "5d",   "L2",       "global", "tile", "im2col", "L2::cache_hint"};
  TRY(known_modifiers(t, instruction, k_known));
  if (!has_modifier(instruction, "L2") || !has_modifier(instruction, "global")) {
    return std::unexpected(t.unsupported(instruction));
  }
  if (!has_modifier(instruction, "tensor")) {
    const size_t expected = 2 + (has_modifier(instruction, "L2::cache_hint") ? 1U : 0U);
    TRY(expect_operands(t, instruction, expected));
    TRY_ASSIGN(llvm::Value * source, t.address(instruction.operands[0], Space::global));
    (void)source;
  }
  return {};
}

Expected<void> lower_cp(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.size() >= 3 && m[0] == "reduce" && m[1] == "async" && m[2] == "bulk") {
    if (m.size() >= 4 && m[3] == "tensor") {
      return lower_tensor_copy(t, instruction);
    }
    return lower_bulk_reduce(t, instruction);
  }
  if (m.size() < 2 || m[0] != "async") {
    return std::unexpected(t.unsupported(instruction));
  }
  if (m.size() == 2 && (m[1] == "commit_group" || m[1] == "wait_group" || m[1] == "wait_all")) {
    return lower_cp_async_group(t, instruction);
  }
  if (m[1] == "ca" || m[1] == "cg") {
    return lower_cp_async_copy(t, instruction);
  }
  if (m[1] == "mbarrier" && m.size() >= 3 && m[2] == "arrive") {
    return lower_cp_async_arrive(t, instruction);
  }
  if (m[1] == "bulk" && m.size() >= 3) {
    if (m[2] == "commit_group" || m[2] == "wait_group") {
      return lower_bulk_group(t, instruction);
    }
    if (m[2] == "prefetch") {
      return lower_bulk_prefetch(t, instruction);
    }
    if (m[2] == "tensor") {
      return lower_tensor_copy(t, instruction);
    }
    return lower_bulk_copy(t, instruction);
  }
  return std::unexpected(t.unsupported(instruction));
}

// The space of an st.async / red.async address operand: .shared::cluster, or generic without one.
std::string_view async_space(const ptx::Instruction& instruction)
{
  return has_modifier(instruction, "shared::cluster") ? "shared::cluster" : "";
}

// st.async and red.async need a cluster launch: the H200 stops them with an illegal instruction
// in a launch without clusters even when they aim at the own CTA (mbar_st_async, mbar_red_async),
// and runs them in a kernel declared with clusters of one CTA (st_async_forms, red_async_forms).
Expected<void> require_cluster_launch(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (!cluster_launched_one_cta(t)) {
    return std::unexpected(t.unsupported(instruction));
  }
  return {};
}

} // namespace

// st.async{.weak|.cluster}{.shared::cluster}.mbarrier::complete_tx::bytes{.v2|.v4}.type [a], b,
// [mbar]: in a cluster of one CTA, a is the own CTA's shared memory and mbar its barrier. The
// store is synchronous, then complete-tx of its bytes (4 or 8 per element) on the barrier, which
// releases it to a thread that acquires the phase (file comment). The .cluster form (a release at
// cluster scope in PTX 8.7+) gets a release fence before the store, widened to .gpu. .v4 takes
// 32-bit types only (ptxas: "exceeds 128 bit limit"); the sm_100 .release.{gpu,sys}.global form
// is not listed and stays unsupported.
Expected<void> lower_st_async(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "async", "weak", "cluster", "shared::cluster", "mbarrier::complete_tx::bytes", "v2", "v4",
      "b32",   "b64",  "u32",     "u64",             "s32",                          "s64", "f32",
      "f64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  const int width = has_modifier(instruction, "v4") ? 4 : has_modifier(instruction, "v2") ? 2 : 1;
  const bool weak = has_modifier(instruction, "weak");
  const bool release = has_modifier(instruction, "cluster");
  if (!has_modifier(instruction, "mbarrier::complete_tx::bytes") || (weak && release) ||
      (has_modifier(instruction, "v2") && width == 4) || (width == 4 && type.bits != 32)) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 3));
  TRY(require_cluster_launch(t, instruction));
  const std::vector<ptx::Operand>& ops = instruction.operands;
  const std::vector<ptx::Operand> values =
      ops[1].kind == ptx::OperandKind::vector ? ops[1].elements : std::vector<ptx::Operand>{ops[1]};
  if (static_cast<int>(values.size()) != width) {
    return std::unexpected(t.error(instruction, "the vector operand needs " +
                                                    std::to_string(width) + " elements"));
  }
  const std::string_view space = async_space(instruction);
  TRY_ASSIGN(llvm::Value * target, mbarrier_pointer(t, instruction, ops[0], space));
  TRY_ASSIGN(llvm::Value * barrier, mbarrier_pointer(t, instruction, ops[2], space));
  Builder& b = t.builder();
  llvm::Type* element = llvm_type(t.context(), type);
  llvm::Value* value = width == 1 ? nullptr
                                  : llvm::PoisonValue::get(llvm::FixedVectorType::get(
                                        element, static_cast<unsigned>(width)));
  for (int i = 0; i < width; ++i) {
    TRY_ASSIGN(llvm::Value * part,
               read_store_source(t, instruction, values[static_cast<size_t>(i)], type));
    value = width == 1 ? part : b.CreateInsertElement(value, part, i);
  }
  if (release) {
    b.CreateFence(llvm::AtomicOrdering::Release, t.hooks().sync_scope(t.context(), "gpu"));
  }
  const int bytes = width * type.bits / 8;
  b.CreateAlignedStore(value, target, llvm::Align(static_cast<uint64_t>(bytes)));
  mbarrier_complete_tx(t, barrier, b.getInt32(static_cast<uint32_t>(bytes)));
  return {};
}

// red.async.relaxed.cluster{.shared::cluster}.mbarrier::complete_tx::bytes.op.type [a], b, [mbar]:
// a relaxed atomic read-modify-write of the own CTA's word (.inc .dec on .u32; .min .max on .u32
// .s32; .add on .u32 .s32 .u64 .s64, the last accepted by ptxas though the ISA lists .u64 only;
// .and .or .xor on .b32), then complete-tx of the type's bytes. The scope .cluster is widened to
// .gpu, as elsewhere.
Expected<void> lower_red_async(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "async", "relaxed", "cluster", "shared::cluster", "mbarrier::complete_tx::bytes",
      "inc",   "dec",     "min",     "max",             "add",
      "and",   "or",      "xor",     "u32",             "s32",
      "u64",   "s64",     "b32"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  std::string_view op;
  int ops_named = 0;
  for (std::string_view name : {"inc", "dec", "min", "max", "add", "and", "or", "xor"}) {
    if (has_modifier(instruction, name)) {
      op = name;
      ++ops_named;
    }
  }
  // reduce_operation checks .inc/.dec (.u32) and the bit operations (.b32 there, .b64 below);
  // .add and .min/.max take no .b type, and only .add a 64-bit one.
  const bool bits = type.kind == PtxType::Kind::bits;
  const bool arithmetic = op == "add" || op == "min" || op == "max";
  std::optional<llvm::AtomicRMWInst::BinOp> operation = reduce_operation(op, type);
  if (ops_named != 1 || !operation || (arithmetic && bits) ||
      (type.bits == 64 && op != "add") || !has_modifier(instruction, "relaxed") ||
      !has_modifier(instruction, "cluster") ||
      !has_modifier(instruction, "mbarrier::complete_tx::bytes")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 3));
  TRY(require_cluster_launch(t, instruction));
  const std::vector<ptx::Operand>& ops = instruction.operands;
  const std::string_view space = async_space(instruction);
  TRY_ASSIGN(llvm::Value * target, mbarrier_pointer(t, instruction, ops[0], space));
  TRY_ASSIGN(llvm::Value * barrier, mbarrier_pointer(t, instruction, ops[2], space));
  TRY_ASSIGN(llvm::Value * value, t.read(ops[1], type));
  Builder& b = t.builder();
  const llvm::Align align(static_cast<uint64_t>(type.bits / 8));
  b.CreateAtomicRMW(*operation, target, b.CreateBitCast(value, b.getIntNTy(type.bits)), align,
                    llvm::AtomicOrdering::Monotonic, t.hooks().sync_scope(t.context(), "gpu"));
  mbarrier_complete_tx(t, barrier, b.getInt32(static_cast<uint32_t>(type.bits / 8)));
  return {};
}

void add_async_copy_lowerings(LoweringTable& table)
{
  table["cp"] = lower_cp;
  add_tensor_copy_lowerings(table); // tensormap.*, beside the copies that read the maps
}

} // namespace d4r::compiler::translate
