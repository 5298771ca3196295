// Target hooks for AMDGPU (gfx11/gfx12, wave32, code object v5).
// - Kernels use the amdgpu_kernel calling convention with one LLVM argument per PTX parameter:
//   scalars by value, arrays and over-aligned parameters as byref(align) pointers into the kernarg
//   segment, so the amdhsa.kernels kernarg layout equals the PTX .param layout. ld.param reads a
//   private copy of the parameter block that SROA dissolves.
// - %tid/%ctaid from llvm.amdgcn.workitem.id / workgroup.id; %ntid/%nctaid from code object v5's
//   hidden kernel arguments after the explicit ones (hidden_block_count_* at 0/4/8,
//   hidden_group_size_* at 12/14/16), which the runtime fills for every launch as it does for
//   clang's HIP kernels and ZLUDA's own (ockl reads them); %laneid from mbcnt (wave32, so a wave is
//   a PTX warp: both number threads x-fastest).
// - .shared variables are addrspace(3) globals (the backend lays them out per kernel) and the
//   dynamic array an external [0 x i8] addrspace(3) global; .local is addrspace(5), .const
//   addrspace(4), .global addrspace(1).
// - bar.sync without a thread count is s_barrier between workgroup release/acquire fences,
//   whatever its barrier id (one workgroup barrier); bar.red without one adds the predicates in
//   an LDS counter between s_barriers. A thread count (a barrier for part of the block: bar.sync
//   a, b; bar.red with b) and bar.arrive count arrivals in one 64-bit LDS word per barrier id,
//   which the kernel zeroes at entry (module_support.cpp); see counted_barrier. shfl is
//   ds_bpermute; ballot is llvm.amdgcn.ballot.i32.
// https://llvm.org/docs/AMDGPUUsage.html

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/hooks_common.hpp"
#include "compiler/translate/module_support.hpp"
#include "compiler/translate/target_hooks.hpp"

#include <llvm/IR/Attributes.h>
#include <llvm/IR/IntrinsicsAMDGPU.h>
#include <llvm/IR/Module.h>

namespace d4r::compiler::translate {

namespace {

constexpr unsigned k_global = 1;
constexpr unsigned k_shared = 3;
constexpr unsigned k_constant = 4;
constexpr unsigned k_private = 5;

// A parameter passed by value: a scalar of natural alignment.
llvm::Type* by_value_type(llvm::LLVMContext& context, const KernelParam& param)
{
  std::optional<PtxType> type = parse_type(param.type);
  if (!type || type->kind == PtxType::Kind::pred || type->bits / 8 != param.size ||
      param.align > param.size) {
    return nullptr;
  }
  return llvm_type(context, *type);
}

class AmdgpuHooks final : public TargetHooks {
public:
  TargetKind kind() const override { return TargetKind::amdgpu; }

  unsigned address_space(Space space) const override
  {
    switch (space) {
    case Space::generic: return 0;
    case Space::global: return k_global;
    case Space::constant: return k_constant;
    case Space::local: return k_private;
    case Space::shared: return k_shared;
    case Space::param: return k_private;
    }
    D4R_UNREACHABLE("every space is covered");
  }

  llvm::Function* declare_kernel(llvm::Module& module, const KernelSignature& signature) override
  {
    llvm::LLVMContext& context = module.getContext();
    std::vector<llvm::Type*> types;
    for (const KernelParam& param : signature.params) {
      llvm::Type* type = by_value_type(context, param);
      types.push_back(type != nullptr ? type : llvm::PointerType::get(context, k_constant));
    }
    llvm::FunctionType* type =
        llvm::FunctionType::get(llvm::Type::getVoidTy(context), types, false);
    llvm::Function* kernel = llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage,
                                                    signature.name, module);
    kernel->setCallingConv(llvm::CallingConv::AMDGPU_KERNEL);
    for (size_t i = 0; i < signature.params.size(); ++i) {
      const KernelParam& param = signature.params[i];
      if (by_value_type(context, param) != nullptr) {
        continue;
      }
      llvm::Type* bytes = llvm::ArrayType::get(llvm::Type::getInt8Ty(context),
                                               static_cast<uint64_t>(param.size));
      llvm::Argument* argument = kernel->getArg(static_cast<unsigned>(i));
      argument->addAttr(llvm::Attribute::getWithByRefType(context, bytes));
      argument->addAttr(llvm::Attribute::getWithAlignment(
          context, llvm::Align(static_cast<uint64_t>(std::max<int64_t>(param.align, 1)))));
    }
    return kernel;
  }

  llvm::Value* kernel_param_block(HookEnv env, llvm::Function& kernel,
                                  const KernelSignature& signature) override
  {
    llvm::IRBuilder<> entry(&kernel.getEntryBlock(), kernel.getEntryBlock().begin());
    llvm::AllocaInst* block = entry.CreateAlloca(
        llvm::ArrayType::get(entry.getInt8Ty(),
                             static_cast<uint64_t>(std::max<int64_t>(signature.param_bytes, 1))),
        k_private, nullptr, "params");
    block->setAlignment(llvm::Align(16));
    llvm::IRBuilder<>& b = env.builder;
    for (size_t i = 0; i < signature.params.size(); ++i) {
      const KernelParam& param = signature.params[i];
      llvm::Value* slot = b.CreateConstGEP1_64(b.getInt8Ty(), block,
                                               static_cast<uint64_t>(param.offset));
      llvm::Argument* argument = kernel.getArg(static_cast<unsigned>(i));
      if (by_value_type(b.getContext(), param) != nullptr) {
        b.CreateStore(argument, slot);
      } else {
        b.CreateMemCpy(slot, llvm::Align(1), argument,
                       llvm::Align(static_cast<uint64_t>(std::max<int64_t>(param.align, 1))),
                       static_cast<uint64_t>(param.size));
      }
    }
    return block;
  }

  llvm::Value* thread_argument(llvm::Function&, bool) override { return nullptr; }
  bool funcs_take_thread() const override { return false; }

  llvm::Value* dispatch_field(HookEnv env, uint64_t offset, llvm::Type* type)
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Value* packet = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_dispatch_ptr, {}, {});
    llvm::Value* field = b.CreateConstGEP1_64(b.getInt8Ty(), packet, offset);
    return b.CreateZExt(b.CreateLoad(type, field), b.getInt32Ty());
  }

  llvm::Value* hidden_argument(HookEnv env, uint64_t offset, llvm::Type* type)
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Value* hidden = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_implicitarg_ptr, {}, {});
    llvm::Value* field = b.CreateConstGEP1_64(b.getInt8Ty(), hidden, offset);
    return b.CreateZExt(b.CreateLoad(type, field), b.getInt32Ty());
  }

  llvm::Value* dimension(HookEnv env, std::string_view name, std::string_view prefix,
                         int& axis)
  {
    if (!name.starts_with(prefix) || name.size() != prefix.size() + 1) {
      return nullptr;
    }
    axis = name.back() - 'x';
    return env.builder.getInt32(0);
  }

  llvm::Value* block_size(HookEnv env, int axis)
  {
    return hidden_argument(env, 12 + 2 * static_cast<uint64_t>(axis), env.builder.getInt16Ty());
  }

  llvm::Value* linear_tid(HookEnv env)
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Value* x = special_register(env, "%tid.x");
    llvm::Value* y = special_register(env, "%tid.y");
    llvm::Value* z = special_register(env, "%tid.z");
    llvm::Value* yz = b.CreateAdd(y, b.CreateMul(z, block_size(env, 1)));
    return b.CreateAdd(x, b.CreateMul(yz, block_size(env, 0)));
  }

  llvm::Value* grid_register(HookEnv env, std::string_view name)
  {
    llvm::IRBuilder<>& b = env.builder;
    int axis = 0;
    static constexpr llvm::Intrinsic::ID k_tid[] = {llvm::Intrinsic::amdgcn_workitem_id_x,
                                                     llvm::Intrinsic::amdgcn_workitem_id_y,
                                                     llvm::Intrinsic::amdgcn_workitem_id_z};
    static constexpr llvm::Intrinsic::ID k_ctaid[] = {llvm::Intrinsic::amdgcn_workgroup_id_x,
                                                       llvm::Intrinsic::amdgcn_workgroup_id_y,
                                                       llvm::Intrinsic::amdgcn_workgroup_id_z};
    if (dimension(env, name, "%tid.", axis) != nullptr) {
      return b.CreateIntrinsic(k_tid[axis], {}, {});
    }
    if (dimension(env, name, "%ctaid.", axis) != nullptr) {
      return b.CreateIntrinsic(k_ctaid[axis], {}, {});
    }
    if (dimension(env, name, "%ntid.", axis) != nullptr) {
      return block_size(env, axis);
    }
    if (dimension(env, name, "%nctaid.", axis) != nullptr) {
      return hidden_argument(env, 4 * static_cast<uint64_t>(axis), b.getInt32Ty());
    }
    return nullptr;
  }

  llvm::Value* special_register(HookEnv env, std::string_view name) override
  {
    llvm::IRBuilder<>& b = env.builder;
    if (llvm::Value* value = grid_register(env, name)) {
      return value;
    }
    if (name == "%laneid") {
      return b.CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_lo, {},
                               {b.getInt32(0xffffffffU), b.getInt32(0)});
    }
    if (name.starts_with("%lanemask_")) {
      return lane_mask(b, name, special_register(env, "%laneid"));
    }
    if (name == "%warpid") {
      return b.CreateLShr(linear_tid(env), 5);
    }
    if (name == "%nwarpid") {
      llvm::Value* threads = b.CreateMul(block_size(env, 0),
                                         b.CreateMul(block_size(env, 1), block_size(env, 2)));
      return b.CreateLShr(b.CreateAdd(threads, b.getInt32(31)), 5);
    }
    if (llvm::Value* fixed = fixed_register(b, name)) {
      return fixed;
    }
    return clock_register(b, name);
  }

  llvm::Value* shared_pointer(HookEnv env, llvm::Value* offset) override
  {
    return env.builder.CreateIntToPtr(offset, env.builder.getPtrTy(k_shared));
  }

  llvm::Value* shared_symbol(HookEnv env, llvm::GlobalVariable* variable, int64_t) override
  {
    return env.builder.CreatePtrToInt(variable, env.builder.getInt32Ty());
  }

  llvm::Value* dynamic_shared_symbol(HookEnv env, int64_t) override
  {
    llvm::Module& module = *env.builder.GetInsertBlock()->getModule();
    const char* name = "d4r.dynamic_shared";
    llvm::GlobalVariable* array = module.getNamedGlobal(name);
    if (array == nullptr) {
      llvm::Type* type = llvm::ArrayType::get(env.builder.getInt8Ty(), 0);
      array = new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::ExternalLinkage,
                                       nullptr, name, nullptr,
                                       llvm::GlobalValue::NotThreadLocal, k_shared);
      array->setAlignment(llvm::Align(16));
    }
    return env.builder.CreatePtrToInt(array, env.builder.getInt32Ty());
  }

  // HIP's runtime (ROCclr's VirtualGPU::submitKernelInternal: `group_segment_size = ldsUsage +
  // sharedMemBytes`, ldsUsage the kernel's .group_segment_fixed_size) sets the packet's
  // group_segment_size (offset 28) to the static LDS plus the launch's dynamic bytes, and
  // llvm.amdgcn.groupstaticsize is that static size (aligned for the dynamic array, as the
  // metadata states it). HSA only requires group_segment_size to be at least the sum: another
  // runtime that rounds it up would make %dynamic_smem_size larger.
  llvm::Value* dynamic_shared_size(HookEnv env, int64_t) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Value* group = dispatch_field(env, 28, b.getInt32Ty());
    llvm::Value* fixed = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_groupstaticsize, {}, {});
    return b.CreateSub(group, fixed);
  }

  // .param addresses (cvta.param) are private ones: the kernel's parameter block is a private
  // copy (kernel_param_block), a .func's parameters private allocas.
  llvm::Value* convert_address(HookEnv env, Space space, bool to_generic, llvm::Value* address,
                               unsigned bits) override
  {
    llvm::IRBuilder<>& b = env.builder;
    if (space != Space::shared && space != Space::local && space != Space::param) {
      return b.CreateZExtOrTrunc(address, b.getIntNTy(bits));
    }
    unsigned narrow = space == Space::shared ? k_shared : k_private;
    if (to_generic) {
      llvm::Value* pointer =
          b.CreateIntToPtr(b.CreateZExtOrTrunc(address, b.getInt32Ty()), b.getPtrTy(narrow));
      llvm::Value* flat = b.CreateAddrSpaceCast(pointer, b.getPtrTy(0));
      return b.CreateZExtOrTrunc(b.CreatePtrToInt(flat, b.getInt64Ty()), b.getIntNTy(bits));
    }
    llvm::Value* flat =
        b.CreateIntToPtr(b.CreateZExtOrTrunc(address, b.getInt64Ty()), b.getPtrTy(0));
    llvm::Value* pointer = b.CreateAddrSpaceCast(flat, b.getPtrTy(narrow));
    return b.CreateZExtOrTrunc(b.CreatePtrToInt(pointer, b.getInt32Ty()), b.getIntNTy(bits));
  }

  // The flat apertures: a generic address is LDS or scratch when it falls in the shared or
  // private aperture (what the backend's is.shared / is.private test); anything else is global.
  llvm::Value* in_window(HookEnv env, Space space, llvm::Value* address) override
  {
    assert((space == Space::shared || space == Space::local) && "isspacep's target windows");
    llvm::IRBuilder<>& b = env.builder;
    llvm::Value* flat = b.CreateIntToPtr(address, b.getPtrTy(0));
    return b.CreateIntrinsic(space == Space::shared ? llvm::Intrinsic::amdgcn_is_shared
                                                    : llvm::Intrinsic::amdgcn_is_private,
                             {}, {flat});
  }

  // bar.sync: with a thread count, the LDS word of its id; without one, the workgroup barrier.
  void barrier(HookEnv env, uint32_t, llvm::Value* id, llvm::Value* count) override
  {
    if (!is_zero(count)) {
      counted_barrier(env, id, count, nullptr, true);
      return;
    }
    llvm::IRBuilder<>& b = env.builder;
    llvm::SyncScope::ID workgroup = b.getContext().getOrInsertSyncScopeID("workgroup");
    b.CreateFence(llvm::AtomicOrdering::Release, workgroup);
    b.CreateIntrinsic(llvm::Intrinsic::amdgcn_s_barrier, {}, {});
    b.CreateFence(llvm::AtomicOrdering::Acquire, workgroup);
  }

  // bar.red without a thread count: one LDS counter (a module-level addrspace(3) i32) between
  // three s_barriers: every wave zeroes it, s_barrier, every thread adds its predicate, s_barrier,
  // every thread reads the total, s_barrier (no wave may zero it for a later bar.red before all
  // have read). LDS is not initialised at dispatch, and waves may have exited, so nothing older
  // than this bar.red is trusted. With a count, the count travels in the barrier's LDS word.
  llvm::Value* barrier_reduce(HookEnv env, uint32_t site, llvm::Value* id, llvm::Value* count,
                              llvm::Value* predicate) override
  {
    if (!is_zero(count)) {
      return counted_barrier(env, id, count, predicate, true);
    }
    llvm::IRBuilder<>& b = env.builder;
    llvm::GlobalVariable* counter = reduction_counter(*b.GetInsertBlock()->getModule());
    llvm::SyncScope::ID workgroup = b.getContext().getOrInsertSyncScopeID("workgroup");
    llvm::StoreInst* zero = b.CreateAlignedStore(b.getInt32(0), counter, llvm::Align(4));
    zero->setAtomic(llvm::AtomicOrdering::Monotonic, workgroup);
    barrier(env, site, id, count);
    b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, counter, b.CreateZExt(predicate, b.getInt32Ty()),
                      llvm::Align(4), llvm::AtomicOrdering::Monotonic, workgroup);
    barrier(env, site, id, count);
    llvm::LoadInst* total = b.CreateAlignedLoad(b.getInt32Ty(), counter, llvm::Align(4));
    total->setAtomic(llvm::AtomicOrdering::Monotonic, workgroup);
    barrier(env, site, id, count);
    return total;
  }

  // gfx11/gfx12's s_barrier waits for every wave of the workgroup, so barriers for part of the
  // block count in LDS (counted_barrier): waves of one workgroup are resident on one WGP
  // together, so a wave that spins there does not keep the others it waits for from running.
  bool supports_partial_barriers() const override { return true; }

  void barrier_arrive(HookEnv env, uint32_t, llvm::Value* id, llvm::Value* count) override
  {
    counted_barrier(env, id, count, nullptr, false);
  }

  static bool is_zero(llvm::Value* value)
  {
    auto* constant = llvm::dyn_cast<llvm::ConstantInt>(value);
    return constant != nullptr && constant->isZero();
  }

  static llvm::GlobalVariable* reduction_counter(llvm::Module& module)
  {
    const char* name = "d4r.bar_red";
    if (llvm::GlobalVariable* counter = module.getNamedGlobal(name)) {
      return counter;
    }
    llvm::Type* i32 = llvm::Type::getInt32Ty(module.getContext());
    auto* counter = new llvm::GlobalVariable(module, i32, false, llvm::GlobalValue::InternalLinkage,
                                             llvm::UndefValue::get(i32), name, nullptr,
                                             llvm::GlobalValue::NotThreadLocal, k_shared);
    counter->setAlignment(llvm::Align(4));
    return counter;
  }

  // The 16 LDS words of the counted barriers, one per barrier id (module_support.cpp zeroes
  // them at the entry of every kernel that reaches them).
  static llvm::GlobalVariable* named_barrier_words(llvm::Module& module)
  {
    if (llvm::GlobalVariable* words = module.getNamedGlobal(k_named_barriers)) {
      return words;
    }
    llvm::Type* type = llvm::ArrayType::get(llvm::Type::getInt64Ty(module.getContext()), 16);
    auto* words = new llvm::GlobalVariable(module, type, false, llvm::GlobalValue::InternalLinkage,
                                           llvm::UndefValue::get(type), k_named_barriers, nullptr,
                                           llvm::GlobalValue::NotThreadLocal, k_shared);
    words->setAlignment(llvm::Align(8));
    return words;
  }

  // A 64-bit value made uniform across the wave: the first active lane's.
  static llvm::Value* first_lane(llvm::IRBuilder<>& b, llvm::Value* value)
  {
    return b.CreateIntrinsic(llvm::Intrinsic::amdgcn_readfirstlane, {value->getType()}, {value});
  }

  // A new block of the current function, and the builder moved into it.
  static llvm::BasicBlock* new_block(llvm::IRBuilder<>& b, const char* name)
  {
    return llvm::BasicBlock::Create(b.getContext(), name, b.GetInsertBlock()->getParent());
  }

  // A barrier for `count` threads on barrier `id`'s LDS word, whose fields are (low to high,
  // 16 bits each) the threads arrived in the current phase, the phase number, the sum of the
  // bar.red predicates arrived, and the last completed phase's sum. Each wave arrives once, by
  // its first active lane, with its active lanes (a PTX warp's threads that execute the
  // instruction) and their predicates in one atomic add; the wave whose arrival reaches `count`
  // completes the phase in one more add (arrived - count, phase + 1, sum - total, result =
  // total); arrivals of the next phase may already be in the word, and adds commute. With
  // `wait`, the other waves spin (s_sleep) until the phase number moves. The value: the phase's
  // predicate sum (bar.red), read before another phase of this barrier can complete, since every
  // participant of that one would have to arrive first.
  llvm::Value* counted_barrier(HookEnv env, llvm::Value* id, llvm::Value* count,
                               llvm::Value* predicate, bool wait)
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::SyncScope::ID workgroup = b.getContext().getOrInsertSyncScopeID("workgroup");
    llvm::GlobalVariable* words = named_barrier_words(*b.GetInsertBlock()->getModule());
    llvm::Value* word = b.CreateInBoundsGEP(words->getValueType(), words,
                                            {b.getInt32(0), b.CreateAnd(id, b.getInt32(15))});
    llvm::Type* i64 = b.getInt64Ty();
    llvm::Value* needed = b.CreateZExt(first_lane(b, count), i64);
    llvm::Value* active = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_ballot, {b.getInt32Ty()},
                                            {b.getTrue()});
    llvm::Value* lanes = b.CreateZExt(b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, active), i64);
    llvm::Value* popc = b.getInt64(0);
    if (predicate != nullptr) {
      llvm::Value* yes = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_ballot, {b.getInt32Ty()},
                                           {predicate});
      popc = b.CreateZExt(b.CreateUnaryIntrinsic(llvm::Intrinsic::ctpop, yes), i64);
    }
    llvm::Value* below = b.CreateIntrinsic(llvm::Intrinsic::amdgcn_mbcnt_lo, {},
                                           {active, b.getInt32(0)});
    llvm::Value* leader = b.CreateICmpEQ(below, b.getInt32(0));
    b.CreateFence(llvm::AtomicOrdering::Release, workgroup);
    llvm::Value* old = leader_add(b, leader, word, b.CreateOr(lanes, b.CreateShl(popc, 32)));
    old = first_lane(b, old);
    auto field = [&](llvm::Value* value, int index) {
      return b.CreateAnd(b.CreateLShr(value, static_cast<uint64_t>(16 * index)), 0xffff);
    };
    llvm::Value* phase = field(old, 1);
    llvm::Value* last = b.CreateICmpUGE(b.CreateAdd(field(old, 0), lanes), needed);
    llvm::Value* total = b.CreateAnd(b.CreateAdd(field(old, 2), popc), 0xffff);
    // Phase + 1 in its 16 bits: 0xffff wraps to 0 without carrying into the sum.
    llvm::Value* step = b.CreateSelect(b.CreateICmpEQ(phase, b.getInt64(0xffff)),
                                       b.getInt64(0 - (uint64_t{0xffff} << 16)),
                                       b.getInt64(uint64_t{1} << 16));
    llvm::Value* delta = b.CreateAdd(b.CreateSub(step, needed),
                                     b.CreateSub(b.CreateShl(b.CreateSub(total, field(old, 3)), 48),
                                                 b.CreateShl(total, 32)));
    leader_add(b, b.CreateAnd(last, leader), word, delta);
    if (!wait) {
      return nullptr;
    }
    llvm::BasicBlock* before = b.GetInsertBlock();
    llvm::BasicBlock* spin = new_block(b, "bar.wait");
    llvm::BasicBlock* done = new_block(b, "bar.done");
    b.CreateCondBr(last, done, spin);
    b.SetInsertPoint(spin);
    b.CreateIntrinsic(llvm::Intrinsic::amdgcn_s_sleep, {}, {b.getInt32(1)});
    llvm::LoadInst* seen = b.CreateAlignedLoad(i64, word, llvm::Align(8));
    seen->setAtomic(llvm::AtomicOrdering::Monotonic, workgroup);
    llvm::Value* now = first_lane(b, seen);
    llvm::Value* finished = field(now, 3);
    b.CreateCondBr(b.CreateICmpNE(field(now, 1), phase), done, spin);
    b.SetInsertPoint(done);
    llvm::PHINode* result = b.CreatePHI(i64, 2);
    result->addIncoming(total, before);
    result->addIncoming(finished, spin);
    b.CreateFence(llvm::AtomicOrdering::Acquire, workgroup);
    return b.CreateTrunc(result, b.getInt32Ty());
  }

  // `word` += `value` by the lanes where `leader` holds (one per wave): the word's old value
  // there, 0 in the others.
  static llvm::Value* leader_add(llvm::IRBuilder<>& b, llvm::Value* leader, llvm::Value* word,
                                 llvm::Value* value)
  {
    llvm::SyncScope::ID workgroup = b.getContext().getOrInsertSyncScopeID("workgroup");
    llvm::BasicBlock* before = b.GetInsertBlock();
    llvm::BasicBlock* add = new_block(b, "bar.arrive");
    llvm::BasicBlock* after = new_block(b, "bar.arrived");
    b.CreateCondBr(leader, add, after);
    b.SetInsertPoint(add);
    llvm::Value* old = b.CreateAtomicRMW(llvm::AtomicRMWInst::Add, word, value, llvm::Align(8),
                                         llvm::AtomicOrdering::Monotonic, workgroup);
    b.CreateBr(after);
    b.SetInsertPoint(after);
    llvm::PHINode* merged = b.CreatePHI(value->getType(), 2);
    merged->addIncoming(old, add);
    merged->addIncoming(b.getInt64(0), before);
    return merged;
  }

  void warp_sync(HookEnv env, uint32_t, llvm::Value*) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::SyncScope::ID wave = b.getContext().getOrInsertSyncScopeID("wavefront");
    b.CreateFence(llvm::AtomicOrdering::Release, wave);
    b.CreateIntrinsic(llvm::Intrinsic::amdgcn_wave_barrier, {}, {});
    b.CreateFence(llvm::AtomicOrdering::Acquire, wave);
  }

  llvm::Value* warp_exchange(HookEnv env, uint32_t, llvm::Value*, llvm::Value* value,
                             llvm::Value* source_lane) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Value* byte_address = b.CreateShl(source_lane, 2);
    return b.CreateIntrinsic(llvm::Intrinsic::amdgcn_ds_bpermute, {}, {byte_address, value});
  }

  llvm::Value* warp_ballot(HookEnv env, uint32_t, llvm::Value* member_mask,
                           llvm::Value* predicate) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Value* ballot =
        b.CreateIntrinsic(llvm::Intrinsic::amdgcn_ballot, {b.getInt32Ty()}, {predicate});
    auto* constant = llvm::dyn_cast<llvm::ConstantInt>(member_mask);
    if (constant != nullptr && constant->isZero()) {
      return ballot;
    }
    return b.CreateAnd(ballot, member_mask);
  }

  void trap(HookEnv env, uint32_t) override
  {
    env.builder.CreateIntrinsic(llvm::Intrinsic::trap, {}, {});
    env.builder.CreateUnreachable();
  }

  void fence(HookEnv env, std::string_view scope) override
  {
    env.builder.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent,
                            sync_scope(env.builder.getContext(), scope));
  }

  llvm::SyncScope::ID sync_scope(llvm::LLVMContext& context, std::string_view scope) override
  {
    if (scope == "cta") {
      return context.getOrInsertSyncScopeID("workgroup");
    }
    if (scope == "sys") {
      return llvm::SyncScope::System;
    }
    return context.getOrInsertSyncScopeID("agent");
  }
};

} // namespace

std::unique_ptr<TargetHooks> make_amdgpu_hooks(const TranslateOptions&)
{
  return std::make_unique<AmdgpuHooks>();
}

} // namespace d4r::compiler::translate
