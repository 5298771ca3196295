#include "compiler/translate/amdgpu_target.hpp"

#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <mutex>
#include <optional>

namespace d4r::compiler::translate {

namespace {

// Only the AMDGPU target: nothing here generates code for another GPU.
void initialise_amdgpu()
{
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
}

} // namespace

Expected<std::unique_ptr<llvm::TargetMachine>>
make_amdgpu_target_machine(const std::string& processor, bool wave64, const std::string& label)
{
  initialise_amdgpu();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(k_amdgpu_triple, error);
  if (target == nullptr) {
    return make_error(ErrorCode::internal, label + ": " + error);
  }
  const char* features = wave64 ? "+wavefrontsize64" : "+wavefrontsize32";
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      k_amdgpu_triple, processor, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (machine == nullptr) {
    return make_error(ErrorCode::internal,
                      label + ": cannot create the AMDGPU target machine for " + processor);
  }
  return machine;
}

} // namespace d4r::compiler::translate
