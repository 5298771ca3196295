#pragma once
// PTX -> LLVM IR. One parsed module (ptx/ast.hpp, usually after the rewrite passes) becomes one
// llvm::Module for one of two targets built from the same lowering: an AMDGPU processor
// (gfx1100-gfx1103, gfx1200, gfx1201; wave32) or the host CPU, whose IR the CPU executor
// (compiler/cpu/) runs. Only target_hooks.hpp differs between the two.
//
// An instruction the translator does not know is an error "unsupported: <opcode> at line L", never
// a guess: the daemon turns it into NOT_FOUND and ZLUDA compiles that kernel as it always did.
// https://docs.nvidia.com/cuda/parallel-thread-execution/

#include "compiler/ptx/ast.hpp"
#include "util/error.hpp"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace llvm {
class LLVMContext;
class Module;
} // namespace llvm

namespace d4r::compiler::translate {

enum class TargetKind { amdgpu, host };

// The set a translation is for (DESIGN.md: accuracy mode). Both give NVIDIA's results; they differ
// only in the f32 denormals of a matrix product in an otherwise .ftz kernel (denormal_mode.hpp).
enum class FloatPolicy { accuracy, fast };

struct TranslateOptions {
  TargetKind kind = TargetKind::host;
  std::string processor; // "gfx1201" for amdgpu; empty for host
  // gfx12 has hardware FP8 conversions; gfx11 (and the host) convert exactly in software.
  bool fp8_native = false;
  // mma.sync on gfx11/gfx12: WMMA with lane remaps where the types allow (true), or the portable
  // ds_bpermute lowering that every target has (false). The host always takes the portable one.
  bool mma_native = true;
  FloatPolicy float_policy = FloatPolicy::accuracy;
  // Link the PTX support library (kernels/support/) and run LLVM's O2 pipeline. Off only in
  // tests that read the raw lowering.
  bool optimise = true;
};

// One .entry parameter as the launch sees it: offsets follow PTX's .param layout (natural
// alignment or .align, in declaration order), which is also the AMDGPU kernarg layout.
struct KernelParam {
  std::string name;
  std::string type;  // ".u64", ".f32", ".b8" (arrays: element type)
  int64_t offset = 0;
  int64_t size = 0;
  int64_t align = 0;
};

struct KernelSignature {
  std::string name;
  std::vector<KernelParam> params;
  int64_t param_bytes = 0;          // the .param block's size (aligned end of the last one)
  int64_t static_shared_bytes = 0;  // .shared variables of the module and the kernel
  bool uses_dynamic_shared = false; // an "extern .shared" array
  // The kernel runs with f32 denormals flushed by the float mode (denormal_mode.hpp): the AMDGPU
  // kernel descriptor says so; the CPU executor sets MXCSR's FTZ and DAZ for its launches.
  bool flushes_f32_denormals = false;
};

struct Translation {
  std::unique_ptr<llvm::LLVMContext> context; // owns everything module refers to
  std::unique_ptr<llvm::Module> module;
  std::vector<KernelSignature> kernels;       // one per .entry, in module order
  Translation();
  Translation(Translation&&) noexcept;
  Translation& operator=(Translation&&) noexcept;
  ~Translation();
};

[[nodiscard]] Expected<Translation> translate_module(const ptx::Module& module,
                                                     const TranslateOptions& options);

} // namespace d4r::compiler::translate
