// Target hooks for the host CPU (TargetKind::host), after host_abi.hpp: a kernel is
// `void NAME(const uint8_t* params, d4r_host_thread* thread)`, every .func takes the thread pointer
// as its last argument, special registers are loads from the thread struct, a .shared address is
// a 32-bit offset into thread->shared, and collective operations call the d4r_rt_* runtime with
// the instruction's site number. All address spaces are the host's (0).

#include "compiler/translate/hooks_common.hpp"
#include "compiler/translate/host_abi.hpp"
#include "compiler/translate/target_hooks.hpp"

#include <llvm/IR/Module.h>

#include <cstddef>

namespace d4r::compiler::translate {

namespace {

struct Field {
  std::string_view name;
  size_t offset;
};

constexpr Field k_fields[] = {
    {"%tid.x", offsetof(d4r_host_thread, tid)},
    {"%tid.y", offsetof(d4r_host_thread, tid) + 4},
    {"%tid.z", offsetof(d4r_host_thread, tid) + 8},
    {"%ntid.x", offsetof(d4r_host_thread, ntid)},
    {"%ntid.y", offsetof(d4r_host_thread, ntid) + 4},
    {"%ntid.z", offsetof(d4r_host_thread, ntid) + 8},
    {"%ctaid.x", offsetof(d4r_host_thread, ctaid)},
    {"%ctaid.y", offsetof(d4r_host_thread, ctaid) + 4},
    {"%ctaid.z", offsetof(d4r_host_thread, ctaid) + 8},
    {"%nctaid.x", offsetof(d4r_host_thread, nctaid)},
    {"%nctaid.y", offsetof(d4r_host_thread, nctaid) + 4},
    {"%nctaid.z", offsetof(d4r_host_thread, nctaid) + 8},
    {"%laneid", offsetof(d4r_host_thread, laneid)},
    {"%warpid", offsetof(d4r_host_thread, warpid)},
    {"%nwarpid", offsetof(d4r_host_thread, nwarpid)},
    {"%lanemask_eq", offsetof(d4r_host_thread, lanemask_eq)},
};
// %total_smem_size is not the window size: an H200 rounds it to its allocation granularity (256
// for 100 static + 40 dynamic bytes, where the window holds 152) and counts the static part as
// ptxas lays it out, which the host's module-wide layout does not reproduce; so it is
// unsupported, as on AMDGPU. %dynamic_smem_size is dynamic_shared_size.

class HostHooks final : public TargetHooks {
public:
  TargetKind kind() const override { return TargetKind::host; }
  unsigned address_space(Space) const override { return 0; }

  llvm::Function* declare_kernel(llvm::Module& module, const KernelSignature& signature) override
  {
    llvm::LLVMContext& context = module.getContext();
    llvm::Type* pointer = llvm::PointerType::get(context, 0);
    llvm::FunctionType* type =
        llvm::FunctionType::get(llvm::Type::getVoidTy(context), {pointer, pointer}, false);
    return llvm::Function::Create(type, llvm::GlobalValue::ExternalLinkage, signature.name, module);
  }

  llvm::Value* kernel_param_block(HookEnv, llvm::Function& kernel, const KernelSignature&) override
  {
    return kernel.getArg(0);
  }

  llvm::Value* thread_argument(llvm::Function& function, bool) override
  {
    return function.getArg(function.arg_size() - 1);
  }

  bool funcs_take_thread() const override { return true; }

  llvm::Value* load_field(HookEnv env, size_t offset, llvm::Type* type)
  {
    llvm::Value* address = env.builder.CreateConstGEP1_64(env.builder.getInt8Ty(), env.thread,
                                                          static_cast<uint64_t>(offset));
    return env.builder.CreateLoad(type, address);
  }

  llvm::Value* special_register(HookEnv env, std::string_view name) override
  {
    for (const Field& field : k_fields) {
      if (field.name == name) {
        return load_field(env, field.offset, env.builder.getInt32Ty());
      }
    }
    if (name.starts_with("%lanemask_")) {
      llvm::Value* laneid = special_register(env, "%laneid");
      return lane_mask(env.builder, name, laneid);
    }
    if (llvm::Value* fixed = fixed_register(env.builder, name)) {
      return fixed;
    }
    return clock_register(env.builder, name);
  }

  llvm::Value* shared_pointer(HookEnv env, llvm::Value* offset) override
  {
    llvm::Value* base = load_field(env, offsetof(d4r_host_thread, shared), env.builder.getPtrTy());
    return env.builder.CreateGEP(env.builder.getInt8Ty(), base,
                                 env.builder.CreateZExt(offset, env.builder.getInt64Ty()));
  }

  llvm::Value* shared_symbol(HookEnv env, llvm::GlobalVariable*, int64_t offset) override
  {
    return env.builder.getInt32(static_cast<uint32_t>(offset));
  }

  llvm::Value* dynamic_shared_symbol(HookEnv env, int64_t static_bytes) override
  {
    return env.builder.getInt32(static_cast<uint32_t>(static_bytes));
  }

  llvm::Value* dynamic_shared_size(HookEnv env, int64_t static_bytes) override
  {
    llvm::Value* window =
        load_field(env, offsetof(d4r_host_thread, shared_bytes), env.builder.getInt32Ty());
    return env.builder.CreateSub(window, env.builder.getInt32(static_cast<uint32_t>(static_bytes)));
  }

  llvm::Value* convert_address(HookEnv env, Space space, bool to_generic, llvm::Value* address,
                               unsigned bits) override
  {
    llvm::IRBuilder<>& b = env.builder;
    if (space != Space::shared) {
      return b.CreateZExtOrTrunc(address, b.getIntNTy(bits));
    }
    llvm::Value* base = b.CreatePtrToInt(
        load_field(env, offsetof(d4r_host_thread, shared), b.getPtrTy()), b.getInt64Ty());
    if (to_generic) {
      llvm::Value* offset = b.CreateZExt(b.CreateTrunc(address, b.getInt32Ty()), b.getInt64Ty());
      return b.CreateZExtOrTrunc(b.CreateAdd(base, offset), b.getIntNTy(bits));
    }
    llvm::Value* generic = b.CreateZExtOrTrunc(address, b.getInt64Ty());
    llvm::Value* offset = b.CreateTrunc(b.CreateSub(generic, base), b.getInt32Ty());
    return b.CreateZExt(offset, b.getIntNTy(bits));
  }

  // .shared: the block's window [shared, shared + shared_bytes); .local: the fiber stack of the
  // calling thread, which the runtime knows (d4r_rt_is_local).
  llvm::Value* in_window(HookEnv env, Space space, llvm::Value* address) override
  {
    assert((space == Space::shared || space == Space::local) && "isspacep's target windows");
    llvm::IRBuilder<>& b = env.builder;
    if (space == Space::local) {
      llvm::Value* local = b.CreateCall(
          runtime(env, "d4r_rt_is_local", b.getInt32Ty(), {b.getPtrTy(), b.getInt64Ty()}),
          {env.thread, address});
      return b.CreateICmpNE(local, b.getInt32(0));
    }
    llvm::Value* base = b.CreatePtrToInt(
        load_field(env, offsetof(d4r_host_thread, shared), b.getPtrTy()), b.getInt64Ty());
    llvm::Value* bytes = b.CreateZExt(
        load_field(env, offsetof(d4r_host_thread, shared_bytes), b.getInt32Ty()), b.getInt64Ty());
    return b.CreateICmpULT(b.CreateSub(address, base), bytes);
  }

  llvm::FunctionCallee runtime(HookEnv env, const char* name, llvm::Type* result,
                               llvm::ArrayRef<llvm::Type*> params)
  {
    llvm::Module& module = *env.builder.GetInsertBlock()->getModule();
    return module.getOrInsertFunction(name, llvm::FunctionType::get(result, params, false));
  }

  void barrier(HookEnv env, uint32_t site, llvm::Value* id, llvm::Value* count) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    b.CreateCall(runtime(env, "d4r_rt_barrier", b.getVoidTy(), {b.getPtrTy(), i32, i32, i32}),
                 {env.thread, b.getInt32(site), id, count});
  }

  llvm::Value* barrier_reduce(HookEnv env, uint32_t site, llvm::Value* id, llvm::Value* count,
                              llvm::Value* predicate) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    return b.CreateCall(
        runtime(env, "d4r_rt_barrier_reduce", i32, {b.getPtrTy(), i32, i32, i32, i32}),
        {env.thread, b.getInt32(site), id, count, b.CreateZExt(predicate, i32)});
  }

  bool supports_partial_barriers() const override { return true; }

  void barrier_arrive(HookEnv env, uint32_t site, llvm::Value* id, llvm::Value* count) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    b.CreateCall(
        runtime(env, "d4r_rt_barrier_arrive", b.getVoidTy(), {b.getPtrTy(), i32, i32, i32}),
        {env.thread, b.getInt32(site), id, count});
  }

  void warp_sync(HookEnv env, uint32_t site, llvm::Value* member_mask) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    b.CreateCall(runtime(env, "d4r_rt_warp_sync", b.getVoidTy(), {b.getPtrTy(), i32, i32}),
                 {env.thread, b.getInt32(site), member_mask});
  }

  llvm::Value* warp_exchange(HookEnv env, uint32_t site, llvm::Value* member_mask,
                             llvm::Value* value, llvm::Value* source_lane) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    return b.CreateCall(
        runtime(env, "d4r_rt_warp_exchange", i32, {b.getPtrTy(), i32, i32, i32, i32}),
        {env.thread, b.getInt32(site), member_mask, value, source_lane});
  }

  llvm::Value* warp_ballot(HookEnv env, uint32_t site, llvm::Value* member_mask,
                           llvm::Value* predicate) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::Type* i32 = b.getInt32Ty();
    return b.CreateCall(runtime(env, "d4r_rt_warp_ballot", i32, {b.getPtrTy(), i32, i32, i32}),
                        {env.thread, b.getInt32(site), member_mask, b.CreateZExt(predicate, i32)});
  }

  void trap(HookEnv env, uint32_t site) override
  {
    llvm::IRBuilder<>& b = env.builder;
    llvm::FunctionCallee callee =
        runtime(env, "d4r_rt_trap", b.getVoidTy(), {b.getPtrTy(), b.getInt32Ty()});
    llvm::CallInst* call = b.CreateCall(callee, {env.thread, b.getInt32(site)});
    call->setDoesNotReturn();
    b.CreateUnreachable();
  }

  void fence(HookEnv env, std::string_view) override
  {
    env.builder.CreateFence(llvm::AtomicOrdering::SequentiallyConsistent);
  }

  llvm::SyncScope::ID sync_scope(llvm::LLVMContext&, std::string_view) override
  {
    return llvm::SyncScope::System;
  }
};

} // namespace

std::unique_ptr<TargetHooks> make_host_hooks()
{
  return std::make_unique<HostHooks>();
}

} // namespace d4r::compiler::translate
