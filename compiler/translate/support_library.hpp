#pragma once
// The PTX support library (kernels/support/, d4r_ptx_support.h) as LLVM bitcode, one module per
// target, embedded into this library at build time (support_library.cmake): the translator links
// the module of its target (llvm::Linker, LinkOnlyNeeded), internalises it and runs O2.
//
// amdgpu: built for amdgcn-amd-amdhsa without -mcpu, and without target-cpu / target-features
// attributes, so it links into a module for any gfx11/gfx12 processor. host: built for the host
// triple, also without CPU attributes (the JIT's target machine picks them).
// Both assume the default FP environment: round to nearest even, f32 and f64 subnormals kept.

#include "compiler/translate/translator.hpp"

#include <cstddef>
#include <span>

namespace d4r::compiler::translate {

// The raw bitcode bytes (static storage, never empty).
[[nodiscard]] std::span<const std::byte> support_bitcode(TargetKind kind);

} // namespace d4r::compiler::translate
