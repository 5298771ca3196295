// Thread-block clusters (sm_90) where each cluster is one CTA, and elect.sync.
//
// AMD GPUs have no clusters and no distributed shared memory: a workgroup sees only its own LDS.
// A kernel whose clusters are one CTA still means something exact there: its cluster is its CTA,
// so %cluster_ctaid is 0, %cluster_nctaid 1, %cluster_ctarank 0, %cluster_nctarank 1, %clusterid
// is %ctaid and %nclusterid %nctaid; mapa to the own rank is the identity, getctarank 0,
// .shared::cluster addresses are the CTA's own .shared addresses, and barrier.cluster.arrive +
// .wait is a barrier of the block (one_cta_clusters below says when a kernel's clusters are one
// CTA). A kernel declaring bigger clusters keeps every cluster form rejected: ZLUDA compiles it.
//
// What the launch means for a client: the hook launches through HIP, which has no cluster
// dimensions, so every CTA it launches is a cluster of one, which is what the translation
// assumes. A kernel without a cluster directive can still be given cluster dimensions by a CUDA
// launch (cuLaunchKernelEx, CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION); no AMD launch can honour that
// (ZLUDA's neither), so a hook must not serve such a launch a translated object of a kernel that
// reads the cluster registers. Launch metadata carries no cluster field: the protocol has no
// launch-time cluster shape to compare with, and for kernels that never look at their cluster
// the shape changes nothing.
//
// elect.sync d|p, membermask: the leader is the lowest lane of the member mask that executes the
// instruction (PTX: "deterministically, the same leader for the same membermask"; the H200
// elects the lowest, cluster_regs golden); d is its lane number on every member, p is true on the
// leader only.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#cluster-of-cooperative-thread-arrays
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-mapa
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-elect-sync

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/ptx_values.hpp"

#include <llvm/IR/Intrinsics.h>

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace d4r::compiler::translate {

namespace {

// The integer arguments of a directive (".reqnctapercluster 2, 1, 1" -> 2 1 1), or nullopt when
// one is not a number.
std::optional<std::vector<uint64_t>> directive_numbers(const ptx::Directive& directive)
{
  std::vector<uint64_t> numbers;
  for (const std::string& arg : directive.args) {
    if (arg == ",") {
      continue;
    }
    std::optional<uint64_t> number = parse_integer(arg);
    if (!number) {
      return std::nullopt;
    }
    numbers.push_back(*number);
  }
  return numbers;
}

const ptx::Directive* find_directive(const ptx::Function& kernel, std::string_view name)
{
  for (const ptx::Directive& directive : kernel.performance) {
    if (directive.name == name) {
      return &directive;
    }
  }
  return nullptr;
}

// Whether the directive's numbers multiply to 1 (a cluster of one CTA).
bool is_one(const ptx::Directive& directive)
{
  std::optional<std::vector<uint64_t>> numbers = directive_numbers(directive);
  if (!numbers || numbers->empty()) {
    return false;
  }
  return std::ranges::all_of(*numbers, [](uint64_t n) { return n == 1; });
}

// A kernel's clusters are one CTA when it fixes them so (.reqnctapercluster 1, 1, 1, or
// .maxclusterrank 1) or says nothing of clusters (no .explicitcluster either: see the file
// comment for what a launch may still ask). .explicitcluster alone leaves the shape to the launch.
bool kernel_has_one_cta_clusters(const ptx::Function& kernel)
{
  if (const ptx::Directive* required = find_directive(kernel, ".reqnctapercluster")) {
    return is_one(*required);
  }
  if (const ptx::Directive* most = find_directive(kernel, ".maxclusterrank")) {
    return is_one(*most);
  }
  return find_directive(kernel, ".explicitcluster") == nullptr;
}

// A kernel that requires clusters of one CTA (.reqnctapercluster 1, 1, 1, as __cluster_dims__(1,
// 1, 1) writes it): the driver launches it as a cluster launch whatever the launch call says.
bool kernel_requires_one_cta_clusters(const ptx::Function& kernel)
{
  const ptx::Directive* required = find_directive(kernel, ".reqnctapercluster");
  return required != nullptr && is_one(*required);
}

Expected<void> require_one_cta(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (!one_cta_clusters(t)) {
    return std::unexpected(t.unsupported(instruction));
  }
  return {};
}

// mapa{.shared::cluster}.{u32,u64} d, a, b: the address of a in CTA b, which can only be the own
// CTA (rank 0): a itself.
Expected<void> lower_mapa(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"shared::cluster", "u32", "u64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY(expect_operands(t, instruction, 3));
  TRY(require_one_cta(t, instruction));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  if (type.kind != PtxType::Kind::unsigned_int) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(llvm::Value * address, t.read(instruction.operands[1], type));
  TRY(t.read(instruction.operands[2], u32_type())); // the rank: 0, the only one there is
  return t.write(instruction.operands[0], address, type);
}

// getctarank{.shared::cluster}.{u32,u64} d, a: the rank of the CTA holding a: 0.
Expected<void> lower_getctarank(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"shared::cluster", "u32", "u64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  TRY(expect_operands(t, instruction, 2));
  TRY(require_one_cta(t, instruction));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  if (type.kind != PtxType::Kind::unsigned_int) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(t.read(instruction.operands[1], type));
  return t.write(instruction.operands[0], t.i32(0), u32_type());
}

// elect.sync d|p, membermask (file comment).
Expected<void> lower_elect(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"sync"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(expect_operands(t, instruction, 2));
  const ptx::Operand& target = instruction.operands[0];
  if (!has_modifier(instruction, "sync") || target.kind != ptx::OperandKind::pair ||
      target.elements.size() != 2) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY_ASSIGN(llvm::Value * mask, t.read(instruction.operands[1], u32_type()));
  llvm::IRBuilder<>& b = t.builder();
  llvm::Value* members = t.hooks().warp_ballot(t.env(), t.next_site(), mask, b.getTrue());
  members = b.CreateAnd(members, mask);
  llvm::Value* leader =
      b.CreateIntrinsic(llvm::Intrinsic::cttz, {b.getInt32Ty()}, {members, b.getFalse()});
  llvm::Value* lane = t.hooks().special_register(t.env(), "%laneid");
  TRY(t.write(target.elements[0], leader, u32_type()));
  return t.write(target.elements[1], b.CreateICmpEQ(lane, leader), pred_type());
}

} // namespace

bool one_cta_clusters(FunctionTranslator& t)
{
  if (t.is_kernel()) {
    return kernel_has_one_cta_clusters(t.function());
  }
  // A .func runs for whichever kernel calls it: every kernel of the module must qualify.
  return std::ranges::all_of(t.module().functions, [](const auto& entry) {
    return !entry.second->is_entry || kernel_has_one_cta_clusters(*entry.second);
  });
}

bool cluster_launched_one_cta(FunctionTranslator& t)
{
  if (t.is_kernel()) {
    return kernel_requires_one_cta_clusters(t.function());
  }
  return std::ranges::all_of(t.module().functions, [](const auto& entry) {
    return !entry.second->is_entry || kernel_requires_one_cta_clusters(*entry.second);
  });
}

bool is_cluster_register(std::string_view name)
{
  static constexpr std::array<std::string_view, 4> k_prefixes = {
      "%clusterid.", "%nclusterid.", "%cluster_ctaid.", "%cluster_nctaid."};
  for (std::string_view prefix : k_prefixes) {
    if (name.size() == prefix.size() + 1 && name.starts_with(prefix) &&
        name.back() >= 'x' && name.back() <= 'z') {
      return true;
    }
  }
  return name == "%cluster_ctarank" || name == "%cluster_nctarank";
}

Expected<llvm::Value*> cluster_register(FunctionTranslator& t, const ptx::Instruction& instruction,
                                        std::string_view name)
{
  TRY(require_one_cta(t, instruction));
  llvm::IRBuilder<>& b = t.builder();
  if (name == "%cluster_ctarank") {
    return b.getInt32(0);
  }
  if (name == "%cluster_nctarank") {
    return b.getInt32(1);
  }
  std::string axis(1, name.back());
  if (name.starts_with("%clusterid.")) {
    return t.hooks().special_register(t.env(), "%ctaid." + axis);
  }
  if (name.starts_with("%nclusterid.")) {
    return t.hooks().special_register(t.env(), "%nctaid." + axis);
  }
  return b.getInt32(name.starts_with("%cluster_ctaid.") ? 0 : 1);
}

// barrier.cluster.arrive{.release,.relaxed}{.aligned} / barrier.cluster.wait{.acquire}{.aligned}
// in a cluster of one CTA: wait is a barrier of the block, with the release before it and the
// acquire after it that the hook's barrier has; arrive does nothing of its own, since the wait
// that must follow it in the same thread (PTX requires arrive, then wait) is where the thread is
// counted. That waits for more than PTX asks (for the other threads' waits, not their arrives),
// never for less.
Expected<void> lower_barrier_cluster(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"cluster", "arrive", "wait",   "release",
                                                 "relaxed", "acquire", "aligned"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(expect_operands(t, instruction, 0));
  bool arrive = has_modifier(instruction, "arrive");
  bool wait = has_modifier(instruction, "wait");
  bool arrive_only = has_modifier(instruction, "release") || has_modifier(instruction, "relaxed");
  if (arrive == wait || (wait && arrive_only) || (arrive && has_modifier(instruction, "acquire"))) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(require_one_cta(t, instruction));
  if (wait) {
    t.hooks().barrier(t.env(), t.next_site(), t.i32(0), t.i32(0));
  }
  return {};
}

void add_cluster_lowerings(LoweringTable& table)
{
  table["mapa"] = lower_mapa;
  table["getctarank"] = lower_getctarank;
  table["elect"] = lower_elect;
}

} // namespace d4r::compiler::translate
