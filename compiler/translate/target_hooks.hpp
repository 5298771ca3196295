#pragma once
// What differs between the two targets of one lowering (translator.hpp): how a kernel receives its
// parameters, where special registers come from, the address spaces and their conversions, and the
// collective operations (barriers and their reductions, warp exchange and ballot, trap).
// hooks_amdgpu.cpp and hooks_host.cpp implement it; everything else in translate/ is
// target-neutral.

#include "compiler/translate/translator.hpp"

#include <llvm/IR/IRBuilder.h>

#include <cstdint>
#include <memory>
#include <string_view>

namespace d4r::compiler::translate {

// PTX state spaces an address can live in.
enum class Space { generic, global, constant, local, shared, param };

// Per-function state a hook needs: the builder and, on the host, the d4r_host_thread pointer.
struct HookEnv {
  llvm::IRBuilder<>& builder;
  llvm::Value* thread = nullptr; // host only
};

class TargetHooks {
public:
  virtual ~TargetHooks() = default;

  virtual TargetKind kind() const = 0;
  // The LLVM address space of variables and pointers of a state space.
  virtual unsigned address_space(Space space) const = 0;

  // The kernel's LLVM type and attributes; `params` is the PTX .param layout.
  virtual llvm::Function* declare_kernel(llvm::Module& module, const KernelSignature& signature) = 0;
  // At the kernel's entry: a pointer (address space 0 or private) to the .param block.
  virtual llvm::Value* kernel_param_block(HookEnv env, llvm::Function& kernel,
                                          const KernelSignature& signature) = 0;
  // The thread pointer of a kernel or function (host: an argument), or nullptr.
  virtual llvm::Value* thread_argument(llvm::Function& function, bool is_kernel) = 0;
  // Whether .func declarations take the thread pointer as an extra last argument.
  virtual bool funcs_take_thread() const = 0;

  // %tid.x, %ntid.y, %laneid, %lanemask_lt, %clock, ... as i32 (or i64 for %clock64, %globaltimer);
  // nullptr when the name is not a special register this target knows.
  virtual llvm::Value* special_register(HookEnv env, std::string_view name) = 0;

  // A 32-bit .shared address (offset in the block's window) -> a pointer usable by load/store.
  virtual llvm::Value* shared_pointer(HookEnv env, llvm::Value* offset) = 0;
  // The .shared window address of a .shared variable (i32).
  virtual llvm::Value* shared_symbol(HookEnv env, llvm::GlobalVariable* variable,
                                     int64_t offset) = 0;
  // The dynamic .shared array ("extern .shared") as a 32-bit window address.
  virtual llvm::Value* dynamic_shared_symbol(HookEnv env, int64_t static_bytes) = 0;
  // %dynamic_smem_size (i32): the dynamic .shared bytes of the launch, in a kernel whose static
  // .shared part is `static_bytes` (host: the window size minus it; AMDGPU: the dispatch's group
  // segment size minus the backend's static LDS size).
  virtual llvm::Value* dynamic_shared_size(HookEnv env, int64_t static_bytes) = 0;
  // cvta.SPACE (to_generic) and cvta.to.SPACE (!to_generic) on an integer address of `bits`.
  virtual llvm::Value* convert_address(HookEnv env, Space space, bool to_generic,
                                       llvm::Value* address, unsigned bits) = 0;
  // isspacep's target windows (i1): whether the i64 generic `address` is in the block's .shared
  // window (Space::shared) or in the thread's .local memory (Space::local: where its stack
  // variables live); the other spaces are decided by lower_control.cpp.
  virtual llvm::Value* in_window(HookEnv env, Space space, llvm::Value* address) = 0;

  // bar.sync / barrier.sync; `count` is 0 for the whole block.
  virtual void barrier(HookEnv env, uint32_t site, llvm::Value* id, llvm::Value* count) = 0;
  // bar.red: a barrier like bar.sync that also returns (i32) how many of the threads it released
  // had the i1 `predicate` true.
  virtual llvm::Value* barrier_reduce(HookEnv env, uint32_t site, llvm::Value* id,
                                      llvm::Value* count, llvm::Value* predicate) = 0;
  // Whether the target has barriers for part of a block: bar.sync / bar.red with a thread count,
  // and bar.arrive. A target without them (AMDGPU: one workgroup barrier that waits for every
  // wave) rejects those forms as unsupported, so that ZLUDA compiles the kernel: s_barrier in
  // their place could over-synchronise or hang when only some warps take part.
  virtual bool supports_partial_barriers() const = 0;
  // bar.arrive: counts toward barrier `id`'s `count` threads without waiting (only where
  // supports_partial_barriers).
  virtual void barrier_arrive(HookEnv env, uint32_t site, llvm::Value* id, llvm::Value* count) = 0;
  virtual void warp_sync(HookEnv env, uint32_t site, llvm::Value* member_mask) = 0;
  // The i32 `value` of lane `source_lane` (i32) of the converged group.
  virtual llvm::Value* warp_exchange(HookEnv env, uint32_t site, llvm::Value* member_mask,
                                     llvm::Value* value, llvm::Value* source_lane) = 0;
  // The ballot (i32, one bit per lane) of the i1 `predicate`.
  virtual llvm::Value* warp_ballot(HookEnv env, uint32_t site, llvm::Value* member_mask,
                                   llvm::Value* predicate) = 0;
  // trap: the kernel stops with an error; the block is left terminated.
  virtual void trap(HookEnv env, uint32_t site) = 0;
  // Memory fence at a PTX scope ("cta", "gpu", "sys").
  virtual void fence(HookEnv env, std::string_view scope) = 0;
  // LLVM sync scope of an atomic at a PTX scope.
  virtual llvm::SyncScope::ID sync_scope(llvm::LLVMContext& context, std::string_view scope) = 0;
};

// Whether `name` ("%tid.x", "%laneid", ...) is a special register the translator knows.
[[nodiscard]] bool is_special_register(std::string_view name);

[[nodiscard]] std::unique_ptr<TargetHooks> make_amdgpu_hooks(const TranslateOptions& options);
[[nodiscard]] std::unique_ptr<TargetHooks> make_host_hooks();

} // namespace d4r::compiler::translate
