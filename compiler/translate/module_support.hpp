#pragma once
// The target side of translate_module: the triple, data layout and hooks of the chosen target
// before the lowering, and after it the finishing steps: function attributes, verification, the
// support library (kernels/support/) linked in, everything but the kernels internalised, O2.

#include "compiler/translate/target_hooks.hpp"
#include "compiler/translate/translator.hpp"
#include "util/error.hpp"

#include <memory>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace d4r::compiler::translate {

struct TargetSetup {
  std::unique_ptr<TargetHooks> hooks;
  std::unique_ptr<llvm::TargetMachine> machine; // amdgpu only
  TranslateOptions options;
  TargetSetup();
  ~TargetSetup();
};

// The LDS words of AMDGPU's barriers with a thread count (hooks_amdgpu.cpp): an
// addrspace(3) [16 x i64] that finish_module zeroes at the entry of each kernel that reaches it.
inline constexpr const char* k_named_barriers = "d4r.named_barriers";

[[nodiscard]] Expected<std::unique_ptr<TargetSetup>> make_target_setup(llvm::Module& module,
                                                                       const TranslateOptions& options);
[[nodiscard]] Expected<void> finish_module(Translation& translation, TargetSetup& setup);

} // namespace d4r::compiler::translate
