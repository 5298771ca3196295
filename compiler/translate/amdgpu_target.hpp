#pragma once
// The one AMDGPU TargetMachine factory: the translator (its O2 pipeline needs the target's cost
// model) and the code generator (compiler/backends/llvm_codegen.cpp) make their machines here, so
// both see the same triple, features, relocation model and optimisation level.

#include "util/error.hpp"

#include <memory>
#include <string>

namespace llvm {
class TargetMachine;
} // namespace llvm

namespace d4r::compiler::translate {

inline constexpr const char* k_amdgpu_triple = "amdgcn-amd-amdhsa";

// A machine for `processor` ("gfx1201"), wave32 unless `wave64`. Initialises only the AMDGPU
// target, once per process. Errors (internal) start with `label`.
[[nodiscard]] Expected<std::unique_ptr<llvm::TargetMachine>>
make_amdgpu_target_machine(const std::string& processor, bool wave64, const std::string& label);

} // namespace d4r::compiler::translate
