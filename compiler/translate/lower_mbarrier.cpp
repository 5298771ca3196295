// mbarrier (sm_80/sm_90): .init .inval .arrive .arrive_drop (each with .expect_tx or .noComplete,
// a count, a state or the sink), .expect_tx .complete_tx, .test_wait .try_wait (with .parity, a
// suspend-time hint), .pending_count; .shared, .shared::cta, generic addresses and .shared::cluster
// where clusters are one CTA (one_cta_clusters); .release/.relaxed on arrivals, .acquire/.relaxed
// on waits, .cta or .cluster scope (.cluster widened to .gpu, which is stronger).
//
// The barrier object is its own 8 bytes of shared memory, one 64-bit word updated by one atomic
// compare-and-swap per operation, so every operation is atomic as the ISA requires:
//   bits  0-20  pending arrival count     bits 21-41  expected arrival count
//   bits 42-62  tx-count (two's complement, the ISA's range is +-(2^20 - 1))
//   bit  63     the current phase's parity
// An operation that leaves the pending count and the tx-count both zero completes the phase: the
// parity flips and the pending count is reloaded with the expected count (PTX ISA "Phase
// Completion of the mbarrier object"). The state an arrival returns is the word before it, so
// test_wait(state) is "the parity differs from the state's", which is exact for the states the ISA
// gives a meaning (of the current or the immediately preceding phase), and pending_count(state) is
// the pending count before the arrival. .noComplete only promises that the arrival does not
// complete the phase (completing it is undefined), so it is an arrival like any other.
// mbarrier.inval ends the object's life and changes nothing observable; it is a no-op.
//
// Waits. test_wait never blocks; try_wait may block up to a system-dependent time limit and then
// report false, so returning at once is one of its allowed behaviours. Both read the word with
// acquire ordering (.relaxed: monotonic). On the host a failed wait calls d4r_rt_yield, because a
// fiber only stops in a runtime call: without it a spin loop would never let the threads it waits
// for run (host_abi.hpp). AMDGPU waves run concurrently, so a failed wait just returns.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-mbarrier

#include "compiler/translate/lower_mbarrier.hpp"

#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/ptx_values.hpp"

#include <llvm/IR/Module.h>

#include <string>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

constexpr uint64_t k_field_mask = (uint64_t{1} << 21) - 1;
constexpr unsigned k_expected_shift = 21;
constexpr unsigned k_tx_shift = 42;
constexpr unsigned k_phase_shift = 63;

// One update of the word: arrivals, a lower expected count (arrive_drop), a tx-count change.
struct Change {
  llvm::Value* arrivals = nullptr; // i64
  llvm::Value* dropped = nullptr;  // i64
  llvm::Value* tx = nullptr;       // i64, signed
};

struct Order {
  llvm::AtomicOrdering ordering = llvm::AtomicOrdering::Release;
  llvm::SyncScope::ID scope;
};

llvm::Value* field(Builder& b, llvm::Value* word, unsigned shift)
{
  return b.CreateAnd(b.CreateLShr(word, shift), b.getInt64(k_field_mask));
}

// The word after `change`, with the phase completed when both counts reach zero.
llvm::Value* changed_word(Builder& b, llvm::Value* word, const Change& change)
{
  llvm::Value* mask = b.getInt64(k_field_mask);
  llvm::Value* pending = b.CreateAnd(b.CreateSub(field(b, word, 0), change.arrivals), mask);
  llvm::Value* expected =
      b.CreateAnd(b.CreateSub(field(b, word, k_expected_shift), change.dropped), mask);
  llvm::Value* tx = b.CreateAnd(b.CreateAdd(field(b, word, k_tx_shift), change.tx), mask);
  llvm::Value* phase = b.CreateLShr(word, k_phase_shift);
  llvm::Value* complete =
      b.CreateAnd(b.CreateICmpEQ(pending, b.getInt64(0)), b.CreateICmpEQ(tx, b.getInt64(0)));
  pending = b.CreateSelect(complete, expected, pending);
  phase = b.CreateXor(phase, b.CreateZExt(complete, b.getInt64Ty()));
  llvm::Value* result = b.CreateOr(pending, b.CreateShl(expected, k_expected_shift));
  result = b.CreateOr(result, b.CreateShl(tx, k_tx_shift));
  return b.CreateOr(result, b.CreateShl(phase, k_phase_shift));
}

// A compare-and-swap loop applying `change`; returns the word before it.
llvm::Value* update(FunctionTranslator& t, llvm::Value* pointer, const Change& change, Order order)
{
  Builder& b = t.builder();
  const llvm::Align align(8);
  llvm::LoadInst* initial = b.CreateAlignedLoad(b.getInt64Ty(), pointer, align);
  initial->setAtomic(llvm::AtomicOrdering::Monotonic, order.scope);
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(t.context(), "mbar.cas", &t.llvm_function());
  llvm::BasicBlock* done = llvm::BasicBlock::Create(t.context(), "mbar.done", &t.llvm_function());
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* old = b.CreatePHI(b.getInt64Ty(), 2);
  old->addIncoming(initial, before);
  llvm::Value* exchange =
      b.CreateAtomicCmpXchg(pointer, old, changed_word(b, old, change), align, order.ordering,
                            llvm::AtomicOrdering::Monotonic, order.scope);
  llvm::Value* seen = b.CreateExtractValue(exchange, 0);
  old->addIncoming(seen, loop);
  b.CreateCondBr(b.CreateExtractValue(exchange, 1), done, loop);
  b.SetInsertPoint(done);
  return seen;
}

// The space modifier of an mbarrier instruction ("" for a generic address).
std::string_view space_of(const ptx::Instruction& instruction)
{
  for (std::string_view space : {"shared", "shared::cta", "shared::cluster"}) {
    if (has_modifier(instruction, space)) {
      return space;
    }
  }
  return "";
}

Order order_of(FunctionTranslator& t, const ptx::Instruction& instruction, bool wait)
{
  const bool relaxed = has_modifier(instruction, "relaxed");
  llvm::AtomicOrdering ordering =
      wait ? llvm::AtomicOrdering::Acquire : llvm::AtomicOrdering::Release;
  if (relaxed) {
    ordering = llvm::AtomicOrdering::Monotonic;
  }
  const std::string_view scope = has_modifier(instruction, "cluster") ? "gpu" : "cta";
  return Order{ordering, t.hooks().sync_scope(t.context(), scope)};
}

Expected<llvm::Value*> read_u64(FunctionTranslator& t, const ptx::Operand& operand)
{
  TRY_ASSIGN(llvm::Value * value, t.read(operand, u32_type()));
  return t.builder().CreateZExt(value, t.builder().getInt64Ty());
}

// init [addr], count: phase 0, pending = expected = count, tx-count 0.
Expected<void> lower_init(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(expect_operands(t, instruction, 2));
  TRY_ASSIGN(llvm::Value * pointer,
             mbarrier_pointer(t, instruction, instruction.operands[0], space_of(instruction)));
  TRY_ASSIGN(llvm::Value * count, read_u64(t, instruction.operands[1]));
  Builder& b = t.builder();
  count = b.CreateAnd(count, b.getInt64(k_field_mask));
  llvm::Value* word = b.CreateOr(count, b.CreateShl(count, k_expected_shift));
  llvm::StoreInst* store = b.CreateAlignedStore(word, pointer, llvm::Align(8));
  store->setAtomic(llvm::AtomicOrdering::Monotonic, order_of(t, instruction, false).scope);
  return {};
}

// arrive / arrive_drop {.expect_tx | .noComplete} state, [addr] {, count | txCount}.
Expected<void> lower_arrive(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<ptx::Operand>& ops = instruction.operands;
  const bool expect_tx = has_modifier(instruction, "expect_tx");
  const bool no_complete = has_modifier(instruction, "noComplete");
  if (has_modifier(instruction, "acquire") || (expect_tx && no_complete)) {
    return std::unexpected(t.unsupported(instruction));
  }
  if (ops.size() < 2 || ops.size() > 3 || ((expect_tx || no_complete) && ops.size() != 3)) {
    return std::unexpected(t.error(instruction, "mbarrier." + instruction.modifiers[0] +
                                                    " takes state, [addr]{, count}"));
  }
  TRY_ASSIGN(llvm::Value * pointer,
             mbarrier_pointer(t, instruction, ops[1], space_of(instruction)));
  Builder& b = t.builder();
  Change change{b.getInt64(1), b.getInt64(0), b.getInt64(0)};
  if (ops.size() == 3) {
    TRY_ASSIGN(llvm::Value * operand, read_u64(t, ops[2]));
    (expect_tx ? change.tx : change.arrivals) = operand;
  }
  if (instruction.modifiers[0] == "arrive_drop") {
    change.dropped = change.arrivals;
  }
  llvm::Value* old = update(t, pointer, change, order_of(t, instruction, false));
  return t.write(ops[0], old, PtxType{PtxType::Kind::bits, 64, false});
}

// expect_tx / complete_tx [addr], txCount.
Expected<void> lower_tx(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(expect_operands(t, instruction, 2));
  if (has_modifier(instruction, "acquire") || has_modifier(instruction, "release")) {
    return std::unexpected(t.unsupported(instruction)); // PTX gives these only .relaxed
  }
  TRY_ASSIGN(llvm::Value * pointer,
             mbarrier_pointer(t, instruction, instruction.operands[0], space_of(instruction)));
  TRY_ASSIGN(llvm::Value * bytes, read_u64(t, instruction.operands[1]));
  Builder& b = t.builder();
  const bool complete = instruction.modifiers[0] == "complete_tx";
  Change change{b.getInt64(0), b.getInt64(0), complete ? b.CreateNeg(bytes) : bytes};
  (void)update(t, pointer, change, order_of(t, instruction, false));
  return {};
}

// The host's yield after a failed wait (host_abi.hpp's d4r_rt_yield).
void yield_if_not(FunctionTranslator& t, llvm::Value* done, llvm::Value* word)
{
  if (t.hooks().kind() != TargetKind::host) {
    return;
  }
  Builder& b = t.builder();
  llvm::BasicBlock* spin = llvm::BasicBlock::Create(t.context(), "mbar.yield", &t.llvm_function());
  llvm::BasicBlock* next = llvm::BasicBlock::Create(t.context(), "mbar.waited", &t.llvm_function());
  b.CreateCondBr(done, next, spin);
  b.SetInsertPoint(spin);
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  llvm::FunctionCallee callee = module.getOrInsertFunction(
      "d4r_rt_yield", llvm::FunctionType::get(
                          b.getVoidTy(), {b.getPtrTy(), b.getInt32Ty(), b.getInt64Ty()}, false));
  b.CreateCall(callee, {t.env().thread, b.getInt32(t.next_site()), word});
  b.CreateBr(next);
  b.SetInsertPoint(next);
}

// test_wait / try_wait {.parity} waitComplete, [addr], state | phaseParity {, suspendTimeHint}.
Expected<void> lower_wait(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const std::vector<ptx::Operand>& ops = instruction.operands;
  const bool try_wait = instruction.modifiers[0] == "try_wait";
  const bool parity = has_modifier(instruction, "parity");
  if (has_modifier(instruction, "release") || has_modifier(instruction, "expect_tx") ||
      has_modifier(instruction, "noComplete")) {
    return std::unexpected(t.unsupported(instruction));
  }
  if (ops.size() != 3 && !(try_wait && ops.size() == 4)) {
    return std::unexpected(t.error(instruction, "mbarrier." + instruction.modifiers[0] +
                                                    " takes waitComplete, [addr], state"));
  }
  TRY_ASSIGN(llvm::Value * pointer,
             mbarrier_pointer(t, instruction, ops[1], space_of(instruction)));
  Builder& b = t.builder();
  llvm::Value* expected_phase = nullptr;
  if (parity) {
    TRY_ASSIGN(llvm::Value * bit, t.read(ops[2], u32_type()));
    expected_phase = b.CreateAnd(b.CreateZExt(bit, b.getInt64Ty()), b.getInt64(1));
  } else {
    TRY_ASSIGN(llvm::Value * state, t.read(ops[2], PtxType{PtxType::Kind::bits, 64, false}));
    expected_phase = b.CreateLShr(state, k_phase_shift);
  }
  if (ops.size() == 4) {
    TRY_ASSIGN(llvm::Value * hint, t.read(ops[3], u32_type()));
    (void)hint; // how long the thread may be suspended: returning at once is allowed
  }
  const Order order = order_of(t, instruction, true);
  llvm::LoadInst* word = b.CreateAlignedLoad(b.getInt64Ty(), pointer, llvm::Align(8));
  word->setAtomic(order.ordering, order.scope);
  llvm::Value* done = b.CreateICmpNE(b.CreateLShr(word, k_phase_shift), expected_phase);
  yield_if_not(t, done, word);
  return t.write(ops[0], done, pred_type());
}

// pending_count.b64 count, state.
Expected<void> lower_pending_count(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(expect_operands(t, instruction, 2));
  TRY_ASSIGN(llvm::Value * state,
             t.read(instruction.operands[1], PtxType{PtxType::Kind::bits, 64, false}));
  Builder& b = t.builder();
  llvm::Value* count = b.CreateTrunc(field(b, state, 0), b.getInt32Ty());
  return t.write(instruction.operands[0], count, u32_type());
}

Expected<void> lower_mbarrier(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "init",        "inval",     "arrive",      "arrive_drop",     "expect_tx",
      "complete_tx", "test_wait", "try_wait",    "pending_count",   "parity",
      "noComplete",  "release",   "relaxed",     "acquire",         "cta",
      "cluster",     "shared",    "shared::cta", "shared::cluster", "b64"};
  TRY(known_modifiers(t, instruction, k_known));
  const std::vector<std::string>& m = instruction.modifiers;
  if (m.empty() || m.back() != "b64") {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::string& what = m[0];
  const bool parity = has_modifier(instruction, "parity");
  if (parity && what != "test_wait" && what != "try_wait") {
    return std::unexpected(t.unsupported(instruction));
  }
  if (what == "init") {
    return lower_init(t, instruction);
  }
  if (what == "inval") {
    TRY(expect_operands(t, instruction, 1));
    TRY_ASSIGN(llvm::Value * pointer,
               mbarrier_pointer(t, instruction, instruction.operands[0], space_of(instruction)));
    (void)pointer; // the object's end: nothing observable changes
    return {};
  }
  if (what == "arrive" || what == "arrive_drop") {
    return lower_arrive(t, instruction);
  }
  if (what == "expect_tx" || what == "complete_tx") {
    return lower_tx(t, instruction);
  }
  if (what == "test_wait" || what == "try_wait") {
    return lower_wait(t, instruction);
  }
  if (what == "pending_count" && m.size() == 2) {
    return lower_pending_count(t, instruction);
  }
  return std::unexpected(t.unsupported(instruction));
}

} // namespace

Expected<llvm::Value*> mbarrier_pointer(FunctionTranslator& t, const ptx::Instruction& instruction,
                                        const ptx::Operand& operand, std::string_view space)
{
  if (space == "shared::cluster" && !one_cta_clusters(t)) {
    return std::unexpected(t.unsupported(instruction));
  }
  return t.address(operand, space.empty() ? Space::generic : Space::shared);
}

void mbarrier_complete_tx(FunctionTranslator& t, llvm::Value* pointer, llvm::Value* bytes)
{
  Builder& b = t.builder();
  llvm::Value* amount = b.CreateNeg(b.CreateZExt(bytes, b.getInt64Ty()));
  const Order order{llvm::AtomicOrdering::Release, t.hooks().sync_scope(t.context(), "cta")};
  (void)update(t, pointer, Change{b.getInt64(0), b.getInt64(0), amount}, order);
}

void mbarrier_arrive_one(FunctionTranslator& t, llvm::Value* pointer)
{
  Builder& b = t.builder();
  const Order order{llvm::AtomicOrdering::Release, t.hooks().sync_scope(t.context(), "cta")};
  (void)update(t, pointer, Change{b.getInt64(1), b.getInt64(0), b.getInt64(0)}, order);
}

void add_mbarrier_lowerings(LoweringTable& table)
{
  table["mbarrier"] = lower_mbarrier;
}

} // namespace d4r::compiler::translate
