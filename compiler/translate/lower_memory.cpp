// Memory: ld/st (scalars and .v2/.v4, every state space, ld.global.nc, .volatile, .relaxed and
// .acquire/.release with a scope), atom/red (add, min, max, inc, dec, exch, cas, and, or, xor;
// f32/f64 add; add.noftz on f16, bf16, f16x2, bf16x2) on global, shared and generic addresses,
// membar/fence (with the proxy fences), prefetch.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lower_mbarrier.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/store_source.hpp"

#include <llvm/ADT/STLFunctionalExtras.h>
#include <llvm/IR/Module.h>

#include <optional>
#include <vector>

namespace d4r::compiler::translate {

namespace {

Space space_of(const ptx::Instruction& instruction)
{
  static constexpr std::pair<std::string_view, Space> k_spaces[] = {
      {"global", Space::global}, {"const", Space::constant}, {"local", Space::local},
      {"shared", Space::shared}, {"shared::cta", Space::shared}, {"param", Space::param},
      {"param::entry", Space::param}, {"param::func", Space::param}};
  for (const std::string& modifier : instruction.modifiers) {
    for (const auto& [name, space] : k_spaces) {
      if (modifier == name) {
        return space;
      }
    }
  }
  return Space::generic;
}

int vector_width(const ptx::Instruction& instruction)
{
  if (has_modifier(instruction, "v2")) {
    return 2;
  }
  if (has_modifier(instruction, "v4")) {
    return 4;
  }
  if (has_modifier(instruction, "v8")) {
    return 8;
  }
  return 1;
}

std::string_view scope_of(const ptx::Instruction& instruction)
{
  for (std::string_view scope : {"cta", "gpu", "sys", "cluster"}) {
    if (has_modifier(instruction, scope)) {
      return scope == "cluster" ? "gpu" : scope;
    }
  }
  return "gpu";
}

// The ordering of .relaxed/.acquire/.release/.acq_rel; NotAtomic for plain (weak) accesses.
llvm::AtomicOrdering ordering_of(const ptx::Instruction& instruction, bool atomic_default)
{
  if (has_modifier(instruction, "acquire")) {
    return llvm::AtomicOrdering::Acquire;
  }
  if (has_modifier(instruction, "release")) {
    return llvm::AtomicOrdering::Release;
  }
  if (has_modifier(instruction, "acq_rel")) {
    return llvm::AtomicOrdering::AcquireRelease;
  }
  if (has_modifier(instruction, "relaxed") || atomic_default) {
    return llvm::AtomicOrdering::Monotonic;
  }
  return llvm::AtomicOrdering::NotAtomic;
}

// The elements of a destination or source operand: a vector's, or the operand itself.
std::vector<ptx::Operand> elements_of(const ptx::Operand& operand)
{
  if (operand.kind == ptx::OperandKind::vector) {
    return operand.elements;
  }
  return {operand};
}

// The modifiers ld, ldu and st implement or may ignore, besides one type:
//   - the state spaces (.shared::cta is .shared; .param::entry and .param::func are .param, the
//     kernel's or the function's parameters as the plain form means in each; .shared::cluster and
//     the other qualified spaces are not listed, so they are "unsupported" rather than generic);
//   - .v2/.v4/.v8, .volatile, .weak, .relaxed/.acquire (ld) and .release (st) with a scope, .mmio
//     not included (one access to an I/O location: no target here has one);
//   - ld.global.nc and ldu: a plain load; PTX requires the data to be read-only for the kernel, so
//     the non-coherent path cannot give another value;
//   - cache operators and eviction priorities (.ca .cg .cs .lu .cv .wb .wt, .L1::evict_*,
//     .L1::no_allocate, .L2::evict_*, .L2::64B/128B/256B, .L2::cache_hint with its extra
//     cache-policy operand): performance hints that never change the value read or written;
//   - .shared::cluster, the CTA's own .shared where clusters are one CTA (access_space);
//   - .b128 (sm_90), one 16-byte access without an ordering (check_access).
constexpr std::string_view k_access_modifiers[] = {
    "global", "const", "local", "shared", "shared::cta", "shared::cluster", "param",
    "param::entry", "param::func", "L2::cache_hint", "b128",
    "v2", "v4", "v8", "volatile", "weak", "relaxed", "acquire", "release", "cta", "gpu", "sys",
    "cluster", "nc", "ca", "cg",
    "cs", "lu", "cv", "wb", "wt", "L1::evict_normal", "L1::evict_unchanged", "L1::evict_first",
    "L1::evict_last", "L1::no_allocate", "L2::evict_normal", "L2::evict_first", "L2::evict_last",
    "L2::64B", "L2::128B", "L2::256B", "b8", "b16", "b32", "b64", "u8", "u16", "u32", "u64", "s8",
    "s16", "s32", "s64", "f16", "bf16", "f16x2", "bf16x2", "f32", "f64"};

Expected<void> access_modifiers(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, k_access_modifiers));
  TRY(one_type(t, instruction));
  bool load = instruction.opcode != "st";
  if ((load && has_modifier(instruction, "release")) ||
      (!load && (has_modifier(instruction, "acquire") || has_modifier(instruction, "nc")))) {
    return std::unexpected(t.unsupported(instruction));
  }
  return {};
}

// The state space of ld/st: space_of's, and .shared::cluster as the CTA's own .shared where every
// cluster is one CTA (lower_cluster.cpp); where clusters may be bigger, "unsupported".
Expected<Space> access_space(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (!has_modifier(instruction, "shared::cluster")) {
    return space_of(instruction);
  }
  if (!one_cta_clusters(t)) {
    return std::unexpected(t.unsupported(instruction));
  }
  return Space::shared;
}

// ld/st take two operands, and .L2::cache_hint a third: the 64-bit cache policy (createpolicy's),
// read so that a malformed one is an error, then ignored with the hint.
Expected<void> access_operands(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  bool hint = has_modifier(instruction, "L2::cache_hint");
  TRY(expect_operands(t, instruction, hint ? 3 : 2));
  if (hint) {
    TRY(t.read(instruction.operands[2], PtxType{PtxType::Kind::bits, 64, false}));
  }
  return {};
}

// Whether `operand` is a register declared .b128 (the only thing a .b128 access moves).
bool is_b128_register(FunctionTranslator& t, const ptx::Operand& operand)
{
  if (operand.kind != ptx::OperandKind::reg && !t.is_register(operand.text)) {
    return false;
  }
  Expected<std::pair<llvm::AllocaInst*, PtxType>> slot = t.reg(operand.text);
  return slot.has_value() && slot->second.bits == 128;
}

// .b128 is one scalar access of a .b128 register, as a .v2/.v4 element unsupported, and without
// an ordering (a 16-byte atomic would need a libatomic call on either target).
Expected<void> check_access(FunctionTranslator& t, const ptx::Instruction& instruction,
                            const ptx::Operand& values, int width, PtxType type)
{
  if (static_cast<int>(elements_of(values).size()) != width) {
    return std::unexpected(t.error(instruction, "the vector operand needs " +
                                                    std::to_string(width) + " elements"));
  }
  bool ordered = ordering_of(instruction, false) != llvm::AtomicOrdering::NotAtomic;
  bool wide_ok = width == 1 && !ordered && is_b128_register(t, values);
  if (type.kind == PtxType::Kind::pred || (type.bits == 128 && !wide_ok)) {
    return std::unexpected(t.unsupported(instruction));
  }
  return {};
}

void set_ordering(FunctionTranslator& t, const ptx::Instruction& instruction,
                  llvm::Instruction* access, llvm::AtomicOrdering ordering)
{
  llvm::SyncScope::ID scope = t.hooks().sync_scope(t.context(), scope_of(instruction));
  if (auto* load = llvm::dyn_cast<llvm::LoadInst>(access)) {
    load->setAtomic(ordering, scope);
  } else if (auto* store = llvm::dyn_cast<llvm::StoreInst>(access)) {
    store->setAtomic(ordering, scope);
  }
}

Expected<void> lower_ld(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(access_modifiers(t, instruction));
  TRY(access_operands(t, instruction));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  int width = vector_width(instruction);
  TRY(check_access(t, instruction, instruction.operands[0], width, type));
  TRY_ASSIGN(Space space, access_space(t, instruction));
  TRY_ASSIGN(llvm::Value * pointer, t.address(instruction.operands[1], space));
  llvm::IRBuilder<>& b = t.builder();
  llvm::Type* element = llvm_type(t.context(), type);
  uint64_t size = static_cast<uint64_t>(type.bits / 8);
  llvm::AtomicOrdering ordering = ordering_of(instruction, false);
  std::vector<ptx::Operand> targets = elements_of(instruction.operands[0]);
  if (width == 1) {
    bool atomic = ordering != llvm::AtomicOrdering::NotAtomic;
    llvm::Type* access = atomic ? b.getIntNTy(static_cast<unsigned>(type.bits)) : element;
    llvm::LoadInst* load = b.CreateAlignedLoad(access, pointer, llvm::Align(size));
    load->setVolatile(has_modifier(instruction, "volatile"));
    if (atomic) {
      set_ordering(t, instruction, load, ordering);
    }
    llvm::Value* value = atomic ? b.CreateBitCast(load, element) : load;
    return t.write(targets[0], value, type);
  }
  if (ordering != llvm::AtomicOrdering::NotAtomic) {
    return std::unexpected(t.unsupported(instruction));
  }
  llvm::Type* vector = llvm::FixedVectorType::get(element, static_cast<unsigned>(width));
  llvm::LoadInst* load = b.CreateAlignedLoad(vector, pointer, llvm::Align(size * width));
  load->setVolatile(has_modifier(instruction, "volatile"));
  for (int i = 0; i < width; ++i) {
    TRY(t.write(targets[static_cast<size_t>(i)], b.CreateExtractElement(load, i), type));
  }
  return {};
}

Expected<void> lower_st(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (has_modifier(instruction, "async")) {
    return lower_st_async(t, instruction); // lower_async_copy.cpp (H4b)
  }
  TRY(access_modifiers(t, instruction));
  TRY(access_operands(t, instruction));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  int width = vector_width(instruction);
  TRY(check_access(t, instruction, instruction.operands[1], width, type));
  TRY_ASSIGN(Space space, access_space(t, instruction));
  TRY_ASSIGN(llvm::Value * pointer, t.address(instruction.operands[0], space));
  llvm::IRBuilder<>& b = t.builder();
  llvm::Type* element = llvm_type(t.context(), type);
  uint64_t size = static_cast<uint64_t>(type.bits / 8);
  llvm::AtomicOrdering ordering = ordering_of(instruction, false);
  std::vector<ptx::Operand> sources = elements_of(instruction.operands[1]);
  llvm::Value* value = llvm::PoisonValue::get(
      width == 1 ? element : llvm::FixedVectorType::get(element, static_cast<unsigned>(width)));
  for (int i = 0; i < width; ++i) {
    // A register wider than `type`: what ptxas stores (store_source.hpp).
    TRY_ASSIGN(llvm::Value * part,
               read_store_source(t, instruction, sources[static_cast<size_t>(i)], type));
    value = width == 1 ? part : b.CreateInsertElement(value, part, i);
  }
  bool atomic = ordering != llvm::AtomicOrdering::NotAtomic;
  if (atomic && width != 1) {
    return std::unexpected(t.unsupported(instruction));
  }
  if (atomic) {
    value = b.CreateBitCast(value, b.getIntNTy(static_cast<unsigned>(type.bits)));
  }
  llvm::StoreInst* store = b.CreateAlignedStore(value, pointer, llvm::Align(size * width));
  store->setVolatile(has_modifier(instruction, "volatile"));
  if (atomic) {
    set_ordering(t, instruction, store, ordering);
  }
  return {};
}

std::optional<llvm::AtomicRMWInst::BinOp> rmw_operation(const ptx::Instruction& instruction,
                                                        PtxType type)
{
  using Op = llvm::AtomicRMWInst::BinOp;
  bool is_signed = type.is_signed();
  if (type.is_float()) {
    return has_modifier(instruction, "add") && type.bits == 64 ? std::optional(Op::FAdd)
                                                               : std::nullopt;
  }
  static constexpr std::pair<std::string_view, Op> k_ops[] = {
      {"add", Op::Add},       {"inc", Op::UIncWrap}, {"dec", Op::UDecWrap}, {"exch", Op::Xchg},
      {"and", Op::And},       {"or", Op::Or},        {"xor", Op::Xor}};
  for (const auto& [name, op] : k_ops) {
    if (has_modifier(instruction, name)) {
      return op;
    }
  }
  if (has_modifier(instruction, "min")) {
    return is_signed ? Op::Min : Op::UMin;
  }
  if (has_modifier(instruction, "max")) {
    return is_signed ? Op::Max : Op::UMax;
  }
  return std::nullopt;
}

struct AtomicOrder {
  llvm::AtomicOrdering ordering;
  llvm::SyncScope::ID scope;
};

// A compare-and-swap loop that stores update(old) into the `bits`-wide integer at `pointer` until
// no other thread wrote in between; returns the old value. The first read is an atomic load: a
// plain load racing with other threads' atomics would be undefined in LLVM's memory model.
llvm::Value* cas_loop(FunctionTranslator& t, llvm::Value* pointer, unsigned bits, AtomicOrder order,
                      llvm::function_ref<llvm::Value*(llvm::Value*)> update)
{
  llvm::IRBuilder<>& b = t.builder();
  llvm::Type* type = b.getIntNTy(bits);
  llvm::Align align(bits / 8);
  llvm::LoadInst* initial = b.CreateAlignedLoad(type, pointer, align);
  initial->setAtomic(llvm::AtomicOrdering::Monotonic, order.scope);
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(t.context(), "atom.cas", &t.llvm_function());
  llvm::BasicBlock* done = llvm::BasicBlock::Create(t.context(), "atom.done", &t.llvm_function());
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* old = b.CreatePHI(type, 2);
  old->addIncoming(initial, before);
  llvm::Value* exchange = b.CreateAtomicCmpXchg(pointer, old, update(old), align, order.ordering,
                                                llvm::AtomicOrdering::Monotonic, order.scope);
  llvm::Value* seen = b.CreateExtractValue(exchange, 0);
  old->addIncoming(seen, loop);
  b.CreateCondBr(b.CreateExtractValue(exchange, 1), done, loop);
  b.SetInsertPoint(done);
  return seen;
}

// atom.add.f32 flushes subnormal inputs and results (PTX ISA): the loop computes the flushed,
// rounded-to-nearest sum with NVIDIA's NaN. Returns the old value.
llvm::Value* atomic_add_f32(FunctionTranslator& t, llvm::Value* pointer, llvm::Value* addend,
                            AtomicOrder order)
{
  llvm::IRBuilder<>& b = t.builder();
  llvm::Value* old = cas_loop(t, pointer, 32, order, [&](llvm::Value* bits) {
    llvm::Value* old_float = flush_subnormal(b, b.CreateBitCast(bits, b.getFloatTy()));
    llvm::Value* sum = b.CreateFAdd(old_float, flush_subnormal(b, addend));
    return b.CreateBitCast(canonical_nan(b, flush_subnormal(b, sum)), b.getInt32Ty());
  });
  return b.CreateBitCast(old, b.getFloatTy());
}

// The half-precision type of atom/red .add.noftz: .f16, .bf16, or the packed .f16x2, .bf16x2.
struct HalfType {
  bool bf16 = false;
  bool packed = false;
};

std::optional<HalfType> half_type(const ptx::Instruction& instruction)
{
  for (auto it = instruction.modifiers.rbegin(); it != instruction.modifiers.rend(); ++it) {
    if (*it == "f16" || *it == "bf16" || *it == "f16x2" || *it == "bf16x2") {
      return HalfType{it->starts_with("bf"), it->ends_with("x2")};
    }
  }
  return std::nullopt;
}

// atom/red .add/.min/.max.noftz on f16/bf16 halves (one, or two packed in 32 bits): a
// compare-and-swap loop combining each half with the support library's round-to-nearest add or
// its min/max (subnormals kept, NVIDIA's NaN on both targets). Native `atomicrmw fadd` on
// half/bfloat would need __truncsfbf2 and friends on x86 hosts without F16C/AVX512-BF16 (not in
// every process the JIT resolves against) and leaves NaN bits and subnormal handling to the AMDGPU
// hardware.
enum class HalfOp { add, min, max };

llvm::Value* atomic_half(FunctionTranslator& t, llvm::Value* pointer, llvm::Value* operand,
                         HalfType half, HalfOp op, AtomicOrder order)
{
  llvm::IRBuilder<>& b = t.builder();
  const unsigned bits = half.packed ? 32 : 16;
  return cas_loop(t, pointer, bits, order, [&](llvm::Value* old) {
    llvm::Value* result = b.getIntN(bits, 0);
    for (unsigned shift = 0; shift < bits; shift += 16) {
      llvm::Value* x = b.CreateTrunc(b.CreateLShr(old, shift), b.getInt16Ty());
      llvm::Value* y = b.CreateTrunc(b.CreateLShr(operand, shift), b.getInt16Ty());
      llvm::Value* part = nullptr;
      if (op == HalfOp::add) {
        std::vector<llvm::Value*> args = {x, y, t.i32(0)}; // mode 0: .rn
        if (!half.bf16) {
          args.insert(args.end(), {t.i32(0), t.i32(0)}); // no .ftz, no .sat
        }
        part = t.call_support(half.bf16 ? "__d4r_ptx_add_bf16" : "__d4r_ptx_add_f16",
                              b.getInt16Ty(), args);
      } else {
        const uint32_t is_max = op == HalfOp::max ? 1 : 0;
        std::vector<llvm::Value*> args = {x, y, t.i32(is_max)};
        if (!half.bf16) {
          args.push_back(t.i32(0)); // no .ftz
        }
        args.insert(args.end(), {t.i32(0), t.i32(0)}); // no .NaN, no .xorsign.abs
        part = t.call_support(half.bf16 ? "__d4r_ptx_minmax_bf16" : "__d4r_ptx_minmax_f16",
                              b.getInt16Ty(), args);
      }
      result = b.CreateOr(result, b.CreateShl(b.CreateZExt(part, b.getIntNTy(bits)), shift));
    }
    return result;
  });
}

// atom/red .add/.min/.max.noftz.{f16,bf16,f16x2,bf16x2} (PTX requires .noftz on these types;
// min/max exist only as vector forms in PTX, which are element-wise scalar atomics).
Expected<llvm::Value*> lower_half_atomic(FunctionTranslator& t, const ptx::Instruction& instruction,
                                         llvm::Value* pointer, llvm::Value* operand,
                                         HalfType half, AtomicOrder order)
{
  const bool add = has_modifier(instruction, "add");
  const bool minmax = has_modifier(instruction, "min") || has_modifier(instruction, "max");
  if (!add && (!minmax || vector_width(instruction) == 1)) { // as ptxas: min/max need a vector
    return std::unexpected(t.unsupported(instruction));
  }
  if (!has_modifier(instruction, "noftz")) {
    return std::unexpected(
        t.error(instruction, instruction.opcode + "." + (add ? "add" : "min/max") +
                                 " on a half type needs .noftz"));
  }
  const HalfOp op = add                                ? HalfOp::add
                    : has_modifier(instruction, "min") ? HalfOp::min
                                                       : HalfOp::max;
  return atomic_half(t, pointer, operand, half, op, order);
}

// atom/red: the spaces (generic without one), the orderings and scopes (a .cluster scope is
// widened to .gpu, which is stronger), the operations, .noftz (half types), one type, the vector
// forms (.v2/.v4/.v8, sm_90: element-wise), .b16 (cas) and .b128 (exch, cas),
// .L2::cache_hint (a hint: its policy operand is read and ignored) and .shared::cluster (the own
// CTA's .shared where clusters are one CTA, access_space). Anything else is "unsupported".
Expected<void> atomic_modifiers(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "global", "shared", "shared::cta", "relaxed", "acquire", "release", "acq_rel", "cta",
      "gpu", "sys", "cluster", "shared::cluster", "add", "inc", "dec", "exch", "cas", "and", "or",
      "xor", "min", "max", "noftz", "b16", "b32", "b64", "b128", "u32", "u64", "s32", "s64",
      "f32", "f64",
      "f16", "bf16", "f16x2", "bf16x2", "v2", "v4", "v8", "L2::cache_hint"};
  static constexpr std::string_view k_operations[] = {"add", "inc", "dec", "exch", "cas",
                                                      "and", "or",  "xor", "min",  "max"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(one_type(t, instruction));
  int operations = 0;
  for (std::string_view operation : k_operations) {
    operations += has_modifier(instruction, operation) ? 1 : 0;
  }
  if (operations != 1 || (has_modifier(instruction, "noftz") && !half_type(instruction))) {
    return std::unexpected(t.unsupported(instruction));
  }
  return {};
}

// atom.exch/cas.b128 where the target has no 16-byte atomic (AMDGPU gfx11/gfx12): the 16 bytes
// are read and written under one of 256 spin locks in global memory, chosen by the address, so
// every 16-byte atomic on a location is atomic with respect to the others (the only accesses PTX
// orders with them: ld/st.b128 take no ordering). The lock is taken inside the loop body and the
// loop ends per lane when its lane held the lock once, so lanes of one wave that want the same
// lock never wait for each other across a divergent branch (the structurizer keeps the critical
// section inside the loop).
llvm::Value* locked_b128(FunctionTranslator& t, llvm::Value* pointer, llvm::Value* operand,
                         llvm::Value* desired, AtomicOrder order)
{
  llvm::IRBuilder<>& b = t.builder();
  llvm::Module& module = *b.GetInsertBlock()->getModule();
  const unsigned global = t.hooks().address_space(Space::global);
  llvm::ArrayType* table_type = llvm::ArrayType::get(b.getInt32Ty(), 256);
  llvm::GlobalVariable* locks = module.getGlobalVariable("__d4r_b128_locks", true);
  if (locks == nullptr) {
    locks = new llvm::GlobalVariable(module, table_type, false, llvm::GlobalValue::InternalLinkage,
                                     llvm::ConstantAggregateZero::get(table_type),
                                     "__d4r_b128_locks", nullptr,
                                     llvm::GlobalValue::NotThreadLocal, global);
    locks->setAlignment(llvm::Align(4));
  }
  llvm::Value* address = b.CreatePtrToInt(pointer, b.getInt64Ty());
  llvm::Value* index = b.CreateAnd(b.CreateLShr(address, 4), b.getInt64(255));
  llvm::Value* lock = b.CreateGEP(b.getInt32Ty(), locks, index);
  llvm::Function& function = t.llvm_function();
  llvm::BasicBlock* before = b.GetInsertBlock();
  llvm::BasicBlock* loop = llvm::BasicBlock::Create(t.context(), "b128.try", &function);
  llvm::BasicBlock* held = llvm::BasicBlock::Create(t.context(), "b128.held", &function);
  llvm::BasicBlock* latch = llvm::BasicBlock::Create(t.context(), "b128.latch", &function);
  llvm::BasicBlock* done = llvm::BasicBlock::Create(t.context(), "b128.done", &function);
  b.CreateBr(loop);
  b.SetInsertPoint(loop);
  llvm::PHINode* carried = b.CreatePHI(b.getInt128Ty(), 2);
  carried->addIncoming(llvm::PoisonValue::get(b.getInt128Ty()), before);
  llvm::Value* taken = b.CreateExtractValue(
      b.CreateAtomicCmpXchg(lock, b.getInt32(0), b.getInt32(1), llvm::Align(4),
                            llvm::AtomicOrdering::Acquire, llvm::AtomicOrdering::Monotonic,
                            order.scope),
      1);
  b.CreateCondBr(taken, held, latch);
  b.SetInsertPoint(held);
  llvm::Value* old = b.CreateAlignedLoad(b.getInt128Ty(), pointer, llvm::Align(16));
  llvm::Value* matches = b.CreateICmpEQ(old, operand);
  llvm::Value* store = desired == nullptr ? operand : b.CreateSelect(matches, desired, old);
  b.CreateAlignedStore(store, pointer, llvm::Align(16));
  b.CreateAlignedStore(b.getInt32(0), lock, llvm::Align(4))
      ->setAtomic(llvm::AtomicOrdering::Release, order.scope);
  b.CreateBr(latch);
  b.SetInsertPoint(latch);
  llvm::PHINode* result = b.CreatePHI(b.getInt128Ty(), 2);
  result->addIncoming(old, held);
  result->addIncoming(carried, loop);
  carried->addIncoming(result, latch);
  llvm::PHINode* finished = b.CreatePHI(b.getInt1Ty(), 2);
  finished->addIncoming(b.getTrue(), held);
  finished->addIncoming(b.getFalse(), loop);
  b.CreateCondBr(finished, done, loop);
  b.SetInsertPoint(done);
  return result;
}

// The old value of one scalar atomic of `type` at `pointer` with `operand` (and `desired` for
// cas); nullptr (with `unsupported` set) for a combination no target implements.
struct ScalarAtomic {
  PtxType type;
  AtomicOrder order;
  bool cas = false;
  llvm::Value* desired = nullptr;
};

Expected<llvm::Value*> scalar_atomic(FunctionTranslator& t, const ptx::Instruction& instruction,
                                     llvm::Value* pointer, llvm::Value* operand,
                                     const ScalarAtomic& a)
{
  llvm::IRBuilder<>& b = t.builder();
  const PtxType type = a.type;
  llvm::Align align(static_cast<uint64_t>(type.bits / 8));
  if (std::optional<HalfType> half = half_type(instruction)) {
    return lower_half_atomic(t, instruction, pointer, operand, *half, a.order);
  }
  if (type.bits == 128 && t.hooks().kind() != TargetKind::host) {
    return locked_b128(t, pointer, operand, a.cas ? a.desired : nullptr, a.order);
  }
  if (a.cas) {
    const bool width_ok = type.bits >= 32 || (type.bits == 16 && type.kind == PtxType::Kind::bits);
    if (type.is_float() || !width_ok) {
      return std::unexpected(t.unsupported(instruction));
    }
    const llvm::AtomicOrdering ordering = a.order.ordering;
    llvm::AtomicOrdering failure = ordering == llvm::AtomicOrdering::Release ||
                                           ordering == llvm::AtomicOrdering::AcquireRelease
                                       ? llvm::AtomicOrdering::Monotonic
                                       : ordering;
    return b.CreateExtractValue(b.CreateAtomicCmpXchg(pointer, operand, a.desired, align, ordering,
                                                      failure, a.order.scope),
                                0);
  }
  if (type.is_float() && type.bits == 32 && has_modifier(instruction, "add")) {
    return atomic_add_f32(t, pointer, operand, a.order);
  }
  std::optional<llvm::AtomicRMWInst::BinOp> op = rmw_operation(instruction, type);
  const bool b128_exch = type.bits == 128 && op == llvm::AtomicRMWInst::Xchg;
  if (!op || (type.bits < 32 || has_packed_type(instruction)) || (type.bits == 128 && !b128_exch)) {
    return std::unexpected(t.unsupported(instruction));
  }
  return b.CreateAtomicRMW(*op, pointer, operand, align, a.order.ordering, a.order.scope);
}

Expected<void> lower_atomic(FunctionTranslator& t, const ptx::Instruction& instruction,
                            bool returns)
{
  TRY(atomic_modifiers(t, instruction));
  TRY_ASSIGN(PtxType type, last_type(t, instruction));
  const bool cas = has_modifier(instruction, "cas");
  const bool hint = has_modifier(instruction, "L2::cache_hint");
  const int width = vector_width(instruction);
  const size_t at = returns ? 1 : 0;
  TRY(expect_operands(t, instruction, at + (cas ? 3 : 2) + (hint ? 1 : 0)));
  TRY_ASSIGN(Space space, access_space(t, instruction)); // .shared::cluster: clusters of one CTA
  if (space != Space::global && space != Space::shared && space != Space::generic) {
    return std::unexpected(t.unsupported(instruction));
  }
  if (type.bits == 128) { // .b128 moves .b128 registers only, never a narrower one extended
    for (size_t i = 0; i < instruction.operands.size(); ++i) {
      if (i != at && !is_b128_register(t, instruction.operands[i])) {
        return std::unexpected(t.unsupported(instruction));
      }
    }
  }
  if (width > 1 && (cas || space == Space::shared || type.bits == 128)) {
    return std::unexpected(t.unsupported(instruction)); // vector forms: .global only, no cas
  }
  if (hint) {
    TRY_ASSIGN(llvm::Value * policy,
               t.read(instruction.operands.back(), PtxType{PtxType::Kind::bits, 64, false}));
    (void)policy; // a cache policy: no observable effect
  }
  TRY_ASSIGN(llvm::Value * pointer, t.address(instruction.operands[at], space));
  std::vector<ptx::Operand> values = elements_of(instruction.operands[at + 1]);
  std::vector<ptx::Operand> results =
      returns ? elements_of(instruction.operands[0]) : std::vector<ptx::Operand>{};
  const bool results_fit = !returns || static_cast<int>(results.size()) == width;
  if (static_cast<int>(values.size()) != width || !results_fit) {
    return std::unexpected(t.error(instruction, "the vector operands need " +
                                                    std::to_string(width) + " elements"));
  }
  llvm::IRBuilder<>& b = t.builder();
  ScalarAtomic atomic{type, AtomicOrder{ordering_of(instruction, true),
                                        t.hooks().sync_scope(t.context(), scope_of(instruction))}};
  atomic.cas = cas;
  if (cas) {
    TRY_ASSIGN(atomic.desired, t.read(instruction.operands[at + 2], type));
  }
  llvm::Type* element = b.getIntNTy(static_cast<unsigned>(type.bits));
  for (int i = 0; i < width; ++i) {
    llvm::Value* slot = b.CreateConstGEP1_32(element, pointer, static_cast<unsigned>(i));
    TRY_ASSIGN(llvm::Value * operand, t.read(values[static_cast<size_t>(i)], type));
    TRY_ASSIGN(llvm::Value * old, scalar_atomic(t, instruction, slot, operand, atomic));
    if (returns) {
      TRY(t.write(results[static_cast<size_t>(i)], old, type));
    }
  }
  return {};
}

Expected<void> lower_atom(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  return lower_atomic(t, instruction, true);
}

Expected<void> lower_red(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (has_modifier(instruction, "async")) {
    return lower_red_async(t, instruction); // lower_async_copy.cpp
  }
  return lower_atomic(t, instruction, false);
}

// fence.proxy.alias, fence.proxy.async{.global,.shared::cta,.shared::cluster},
// fence.proxy.tensormap::generic.release.scope, fence.proxy.tensormap::generic.acquire.scope
// [a], 128, membar.proxy.alias and fence.mbarrier_init.release.cluster order memory accesses
// between proxies (the generic one, the async copies', the tensor-map reads', a virtual alias of
// the same memory) or after mbarrier.init. AMD has one proxy for all accesses this translator
// makes, so a sequentially consistent fence at the scope (.gpu without one, .cluster widened to
// .gpu) is at least as strong.
Expected<void> lower_proxy_fence(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {
      "proxy",   "alias",   "async",   "global", "shared::cta", "shared::cluster",
      "tensormap::generic", "release", "acquire", "cta", "cluster", "gpu", "sys",
      "mbarrier_init"};
  TRY(known_modifiers(t, instruction, k_known));
  bool tensormap = has_modifier(instruction, "tensormap::generic");
  bool acquire = has_modifier(instruction, "acquire");
  int kinds = int{has_modifier(instruction, "alias")} + int{has_modifier(instruction, "async")} +
              int{tensormap} + int{has_modifier(instruction, "mbarrier_init")};
  bool proxy = has_modifier(instruction, "proxy");
  bool release = has_modifier(instruction, "release");
  // Only the tensor-map proxy fence has an ordering (one of the two); mbarrier_init is .release.
  bool well_formed = proxy ? tensormap == (acquire != release) : release && !acquire;
  if (kinds != 1 || proxy == has_modifier(instruction, "mbarrier_init") || !well_formed) {
    return std::unexpected(t.unsupported(instruction));
  }
  if (tensormap && acquire) {
    TRY(expect_operands(t, instruction, 2));
    TRY(t.address(instruction.operands[0], Space::generic));
    const ptx::Operand& size = instruction.operands[1];
    if (size.kind != ptx::OperandKind::integer || size.text != "128") {
      return std::unexpected(t.error(instruction, "the tensor-map fence takes a size of 128"));
    }
  } else {
    TRY(expect_operands(t, instruction, 0));
  }
  t.hooks().fence(t.env(), scope_of(instruction));
  return {};
}

// PTX 8.6: fence.acquire.sync_restrict::shared::cluster.cluster,
// fence.release.sync_restrict::shared::cta.cluster and their fence.proxy.async::generic forms
// order only some accesses (those to .shared of the cluster or the CTA, between the generic and
// the async proxy); a sequentially consistent fence at .gpu orders every access, so it is at least
// as strong. ptxas pairs .acquire with ::shared::cluster and .release with ::shared::cta.
Expected<void> lower_restricted_fence(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"proxy",   "async::generic",
                                                 "acquire", "release",
                                                 "cluster", "sync_restrict::shared::cluster",
                                                 "sync_restrict::shared::cta"};
  TRY(known_modifiers(t, instruction, k_known));
  bool acquire = has_modifier(instruction, "acquire");
  bool paired = acquire ? has_modifier(instruction, "sync_restrict::shared::cluster")
                        : has_modifier(instruction, "release") &&
                              has_modifier(instruction, "sync_restrict::shared::cta");
  bool proxy = has_modifier(instruction, "proxy");
  if (!paired || !has_modifier(instruction, "cluster") ||
      proxy != has_modifier(instruction, "async::generic")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 0));
  t.hooks().fence(t.env(), "gpu");
  return {};
}

Expected<void> lower_membar(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  if (has_modifier(instruction, "sync_restrict::shared::cluster") ||
      has_modifier(instruction, "sync_restrict::shared::cta")) {
    return lower_restricted_fence(t, instruction);
  }
  if (has_modifier(instruction, "proxy") || has_modifier(instruction, "mbarrier_init")) {
    return lower_proxy_fence(t, instruction);
  }
  TRY(expect_operands(t, instruction, 0));
  // membar.{cta,gl,sys} and fence.{sc,acq_rel}.scope: a sequentially consistent fence at the scope
  // (.cluster widened to .gpu), as strong as either. fence.proxy.* and fence.mbarrier_init are
  // lower_proxy_fence's, the .sync_restrict forms lower_restricted_fence's.
  static constexpr std::string_view k_known[] = {"cta", "gl", "sys", "gpu", "cluster", "sc",
                                                 "acq_rel"};
  TRY(known_modifiers(t, instruction, k_known));
  if (instruction.modifiers.size() > (instruction.opcode == "fence" ? 2U : 1U)) {
    return std::unexpected(t.unsupported(instruction));
  }
  std::string_view scope = has_modifier(instruction, "gl") ? "gpu" : scope_of(instruction);
  t.hooks().fence(t.env(), scope);
  return {};
}

// prefetch/prefetchu{.space}.level [a]: a cache hint with no effect on any value, whatever its
// modifiers (.L1, .L2, .L2::evict_*, .tensormap), so every form is a no-op.
Expected<void> lower_prefetch(FunctionTranslator&, const ptx::Instruction&)
{
  return {};
}

} // namespace

Expected<llvm::Value*> reduce_float_element(FunctionTranslator& t,
                                            const ptx::Instruction& instruction,
                                            std::string_view op, PtxType type,
                                            llvm::Value* pointer, llvm::Value* value,
                                            llvm::SyncScope::ID scope)
{
  const AtomicOrder order{llvm::AtomicOrdering::Monotonic, scope};
  if (type.bits == 16) {
    const HalfOp half_op = op == "add" ? HalfOp::add : op == "min" ? HalfOp::min : HalfOp::max;
    return atomic_half(t, pointer, value, HalfType{type.bf16, false}, half_op, order);
  }
  if (op == "add" && type.bits == 32) { // subnormals kept (unlike atom.add.f32): the H200 in
    llvm::IRBuilder<>& b = t.builder();   // mbar_bulk_reduce_float
    llvm::Value* old = cas_loop(t, pointer, 32, order, [&](llvm::Value* bits) {
      llvm::Value* sum = b.CreateFAdd(b.CreateBitCast(bits, b.getFloatTy()), value);
      return b.CreateBitCast(canonical_nan(b, sum), b.getInt32Ty());
    });
    return b.CreateBitCast(old, b.getFloatTy());
  }
  if (op == "add" && type.bits == 64) { // f64 arithmetic's NaN rule, the memory operand first
    llvm::IRBuilder<>& b = t.builder();
    llvm::Value* old = cas_loop(t, pointer, 64, order, [&](llvm::Value* bits) {
      llvm::Value* current = b.CreateBitCast(bits, b.getDoubleTy());
      llvm::Value* operands[] = {current, value};
      llvm::Value* sum = nan_result(b, b.CreateFAdd(current, value), operands);
      return b.CreateBitCast(sum, b.getInt64Ty());
    });
    return b.CreateBitCast(old, b.getDoubleTy());
  }
  return std::unexpected(t.unsupported(instruction));
}

void add_memory_lowerings(LoweringTable& table)
{
  table["ld"] = lower_ld;
  table["ldu"] = lower_ld;
  table["st"] = lower_st;
  table["atom"] = lower_atom;
  table["red"] = lower_red;
  table["membar"] = lower_membar;
  table["fence"] = lower_membar;
  table["prefetch"] = lower_prefetch;
  table["prefetchu"] = lower_prefetch;
}

} // namespace d4r::compiler::translate
