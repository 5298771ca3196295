// Block and warp collectives: bar.sync / barrier.sync, bar.arrive, bar.red (popc, and, or),
// bar.warp.sync, shfl.sync and shfl (idx, up, down, bfly, with the optional predicate destination),
// vote.sync (all, any, uni, ballot), activemask. The source lane of a shuffle is computed by the
// support library's __d4r_ptx_shfl_source (PTX's clamp and segment-mask rules); the exchange
// itself and the ballot are target hooks (ds_bpermute and ballot on AMDGPU, the SIMT runtime on
// the host). A lane whose source is out of range keeps its own value, as PTX specifies. The
// barriers are target hooks too; bar.red's .and and .or are derived from its count here. A
// barrier without a thread count on an id that the module also uses with one passes the block's
// thread count, so that both meet at the same barrier on every target.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/ptx_values.hpp"

#include <optional>
#include <utility>
#include <variant>
#include <vector>

namespace d4r::compiler::translate {

namespace {

using Builder = llvm::IRBuilder<>;

// What a bar/barrier instruction does, from its modifiers. .cta and .aligned change nothing here
// (one CTA; the targets run a barrier for the threads that reach it); any other modifier, or two
// actions, make the form unknown.
enum class BarKind { sync, arrive, reduce, unknown };

BarKind bar_kind(const ptx::Instruction& instruction)
{
  BarKind kind = BarKind::sync; // bar / barrier alone is bar.sync
  int actions = 0;
  for (const std::string& modifier : instruction.modifiers) {
    if (modifier == "sync" || modifier == "arrive" || modifier == "red") {
      kind = modifier == "sync" ? BarKind::sync
             : modifier == "arrive" ? BarKind::arrive
                                    : BarKind::reduce;
      ++actions;
    } else if (modifier != "cta" && modifier != "aligned" && modifier != "popc" &&
               modifier != "and" && modifier != "or" && modifier != "u32" && modifier != "pred") {
      return BarKind::unknown;
    }
  }
  return actions > 1 ? BarKind::unknown : kind;
}

struct BarrierOperands {
  llvm::Value* id = nullptr;
  llvm::Value* count = nullptr; // i32 0 without one: the whole block
};

// The id and count operands of a bar/barrier instruction (nullptr where there is none).
std::pair<const ptx::Operand*, const ptx::Operand*>
id_and_count(const ptx::Instruction& instruction)
{
  const std::vector<ptx::Operand>& ops = instruction.operands;
  switch (bar_kind(instruction)) {
  case BarKind::sync:
  case BarKind::arrive:
    if (has_modifier(instruction, "warp") || ops.empty()) {
      return {nullptr, nullptr};
    }
    return {&ops[0], ops.size() == 2 ? &ops[1] : nullptr};
  case BarKind::reduce:
    if (ops.size() < 3) {
      return {nullptr, nullptr};
    }
    return {&ops[1], ops.size() == 4 ? &ops[2] : nullptr};
  case BarKind::unknown:
    break;
  }
  return {nullptr, nullptr};
}

void scan_counted(const ptx::Block& block, uint32_t& bits)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      scan_counted(*inner, bits);
      continue;
    }
    const auto* instruction = std::get_if<ptx::Instruction>(&statement.value);
    if (instruction == nullptr ||
        (instruction->opcode != "bar" && instruction->opcode != "barrier")) {
      continue;
    }
    auto [id, count] = id_and_count(*instruction);
    if (id == nullptr || count == nullptr) {
      continue;
    }
    std::optional<uint64_t> value =
        id->kind == ptx::OperandKind::integer ? parse_integer(id->text) : std::nullopt;
    bits |= value && *value < 16 ? uint32_t{1} << *value : uint32_t{1} << 16;
  }
}

// Whether barrier `id_operand` may be one that some bar/barrier of the module uses with a thread
// count. Then a form without a count must meet those at the same barrier, so it counts the whole
// block explicitly (%ntid.x * %ntid.y * %ntid.z): AMDGPU runs counted barriers in LDS and
// count-less ones on s_barrier, which would never meet. An immediate id is matched against the
// counted forms' immediate ids only: libraries keep barrier 0 for __syncthreads and give their
// named barriers (ids in registers, CUTLASS) ids from 1, and counting the whole block would make
// a barrier 0 wait for threads that exited, which a count-less one does not.
bool shares_counted_barrier(FunctionTranslator& t, const ptx::Operand& id_operand)
{
  std::optional<uint32_t>& counted = t.module().counted_barriers;
  if (!counted) {
    uint32_t bits = 0;
    for (const auto& [name, function] : t.module().functions) {
      if (function->body) {
        scan_counted(*function->body, bits);
      }
    }
    counted = bits;
  }
  std::optional<uint64_t> value = id_operand.kind == ptx::OperandKind::integer
                                      ? parse_integer(id_operand.text)
                                      : std::nullopt;
  if (value && *value < 16) {
    return (*counted & (uint32_t{1} << *value)) != 0;
  }
  return *counted != 0;
}

llvm::Value* block_threads(FunctionTranslator& t)
{
  Builder& b = t.builder();
  llvm::Value* x = t.hooks().special_register(t.env(), "%ntid.x");
  llvm::Value* y = t.hooks().special_register(t.env(), "%ntid.y");
  llvm::Value* z = t.hooks().special_register(t.env(), "%ntid.z");
  return b.CreateMul(x, b.CreateMul(y, z));
}

// The barrier id (0-15: an immediate outside is an error) and the thread count; a count is
// "unsupported" where the target has no barrier for part of a block.
Expected<BarrierOperands> barrier_operands(FunctionTranslator& t,
                                           const ptx::Instruction& instruction,
                                           const ptx::Operand& id_operand,
                                           const ptx::Operand* count_operand)
{
  if (id_operand.kind == ptx::OperandKind::integer) {
    std::optional<uint64_t> value = parse_integer(id_operand.text);
    if (!value || *value > 15) {
      return std::unexpected(t.error(instruction, "barrier " + id_operand.text +
                                                      " does not exist (PTX has barriers 0-15)"));
    }
  }
  if (count_operand != nullptr && !t.hooks().supports_partial_barriers()) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(llvm::Value * id, t.read(id_operand, u32_type()));
  llvm::Value* count = t.i32(0);
  if (count_operand != nullptr) {
    TRY_ASSIGN(count, t.read(*count_operand, u32_type()));
  } else if (shares_counted_barrier(t, id_operand)) {
    count = block_threads(t);
  }
  return BarrierOperands{id, count};
}

// bar.red.popc.u32 d, a{, b}, {!}c / bar.red.{and,or}.pred p, a{, b}, {!}c (barrier.red too):
// a barrier that counts the threads with c true. .and is "no thread has c false", .or "some
// thread has c true", so every target implements only the count.
Expected<void> lower_bar_red(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const bool popc = has_modifier(instruction, "popc");
  const bool all = has_modifier(instruction, "and");
  const bool any = has_modifier(instruction, "or");
  if (int{popc} + int{all} + int{any} != 1) {
    return std::unexpected(t.error(instruction, "bar.red needs one of .popc, .and, .or"));
  }
  if (popc ? !has_modifier(instruction, "u32") : !has_modifier(instruction, "pred")) {
    return std::unexpected(
        t.error(instruction, popc ? "bar.red.popc needs .u32" : "bar.red.and/.or need .pred"));
  }
  const size_t operands = instruction.operands.size();
  if (operands != 3 && operands != 4) {
    return std::unexpected(t.error(instruction, "bar.red takes 3 or 4 operands (d, a{, b}, {!}c)"));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  TRY_ASSIGN(BarrierOperands barrier,
             barrier_operands(t, instruction, ops[1], operands == 4 ? &ops[2] : nullptr));
  TRY_ASSIGN(llvm::Value * predicate, t.read(ops.back(), pred_type()));
  Builder& b = t.builder();
  if (all) {
    predicate = b.CreateNot(predicate);
  }
  llvm::Value* total =
      t.hooks().barrier_reduce(t.env(), t.next_site(), barrier.id, barrier.count, predicate);
  if (popc) {
    return t.write(ops[0], total, u32_type());
  }
  llvm::Value* result =
      all ? b.CreateICmpEQ(total, b.getInt32(0)) : b.CreateICmpNE(total, b.getInt32(0));
  return t.write(ops[0], result, pred_type());
}

// bar.arrive a, b / barrier.arrive a, b: the thread count is required.
Expected<void> lower_bar_arrive(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (instruction.operands.size() != 2) {
    return std::unexpected(t.error(instruction, "bar.arrive takes 2 operands (a, b)"));
  }
  TRY_ASSIGN(BarrierOperands barrier,
             barrier_operands(t, instruction, instruction.operands[0], &instruction.operands[1]));
  t.hooks().barrier_arrive(t.env(), t.next_site(), barrier.id, barrier.count);
  return {};
}

// bar.sync a{, b} / barrier.sync{.aligned} a{, b} / bar{.cta}.sync, bar.arrive, bar.red, and
// bar.warp.sync.
Expected<void> lower_bar(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (has_modifier(instruction, "cluster")) {
    return lower_barrier_cluster(t, instruction); // lower_cluster.cpp
  }
  if (has_modifier(instruction, "warp")) {
    TRY(expect_operands(t, instruction, 1));
    TRY_ASSIGN(llvm::Value * mask, t.read(instruction.operands[0], u32_type()));
    t.hooks().warp_sync(t.env(), t.next_site(), mask);
    return {};
  }
  switch (bar_kind(instruction)) {
  case BarKind::reduce:
    return lower_bar_red(t, instruction);
  case BarKind::arrive:
    return lower_bar_arrive(t, instruction);
  case BarKind::unknown:
    return std::unexpected(t.unsupported(instruction));
  case BarKind::sync:
    break;
  }
  if (has_modifier(instruction, "popc") || has_modifier(instruction, "and") ||
      has_modifier(instruction, "or")) {
    return std::unexpected(t.unsupported(instruction));
  }
  if (instruction.operands.empty() || instruction.operands.size() > 2) {
    return std::unexpected(t.error(instruction, "bar.sync takes 1 or 2 operands"));
  }
  const std::vector<ptx::Operand>& ops = instruction.operands;
  TRY_ASSIGN(BarrierOperands barrier,
             barrier_operands(t, instruction, ops[0], ops.size() == 2 ? &ops[1] : nullptr));
  t.hooks().barrier(t.env(), t.next_site(), barrier.id, barrier.count);
  return {};
}

// shfl.sync.mode.b32 d{|p}, a, b, c, membermask, and the sm_50..sm_6x form without .sync and
// membermask, shfl.mode.b32 d{|p}, a, b, c. That one exchanges among the lanes that execute it
// together, which is what a member mask of 0 asks of both targets (as vote without .sync): the host
// runs the lanes of the warp that reach the instruction together; AMDGPU's ds_bpermute exchanges
// among the wave's active lanes. Reading a lane that does not execute it is undefined in PTX
// either way (the H200 cannot run this form: ptxas refuses it from sm_70 and PTX ISA 6.4 on).
Expected<void> lower_shfl(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"sync", "idx", "up", "down", "bfly", "b32"};
  TRY(known_modifiers(t, instruction, k_known));
  const bool sync = has_modifier(instruction, "sync");
  if (instruction.modifiers.size() != (sync ? 3U : 2U) || !has_modifier(instruction, "b32")) {
    return std::unexpected(t.unsupported(instruction)); // two modes, or no .b32
  }
  TRY(expect_operands(t, instruction, sync ? 5 : 4));
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
  llvm::Value* mask = t.i32(0);
  if (sync) {
    TRY_ASSIGN(mask, t.read(instruction.operands[4], u32_type()));
  }
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
  static constexpr std::string_view k_known[] = {"sync", "all", "any", "uni", "ballot", "pred",
                                                 "b32"};
  TRY(known_modifiers(t, instruction, k_known));
  bool sync = has_modifier(instruction, "sync");
  int modes = int{has_modifier(instruction, "all")} + int{has_modifier(instruction, "any")} +
              int{has_modifier(instruction, "uni")} + int{has_modifier(instruction, "ballot")};
  if (modes != 1) {
    return std::unexpected(t.unsupported(instruction));
  }
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
  static constexpr std::string_view k_known[] = {"b32"};
  TRY(known_modifiers(t, instruction, k_known));
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
