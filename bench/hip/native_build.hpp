#pragma once
// The native side of the translator benchmarks: a corpus kernel compiled from its CUDA source as
// HIP by clang-19 with cuda_shim.h (beside this file), one kernel per code object, and the static
// instruction count of a code object (llvm-objdump). The corpus sources choose inline PTX or a
// C++ fallback by D4R_CORPUS_PTX; clang takes the fallback. Inline PTX that the sources use
// without a fallback (the ISA test kernels) cannot build for AMDGPU: the copy given to clang has
// each asm statement replaced by a call to an undefined function, so the kernels that reach one
// are reported as needing inline PTX and the others still build.

#include "util/error.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace d4r::bench {

struct NativeSource {
  std::filesystem::path cu;   // the CUDA source of a corpus .ptx
  int cuda_arch = 0;          // __CUDA_ARCH__ of the PTX (890 for sm_89); 0: unknown
  bool flush_denormals = false; // nvcc -ftz=true
};

// The source a corpus module was compiled from ("tex_filter.sm_86.ptx" -> tex_filter.cu, the
// d4r-isa-ptx lines of tests/ptx/isa/*.cu), with the flags that matter for clang.
[[nodiscard]] Expected<NativeSource> native_source_of(const std::filesystem::path& ptx);

// The instruction counts of one code object: every instruction of .text (s_code_end padding not
// counted), the kernel's own symbol, and how many function symbols the object holds.
struct InstructionCount {
  int64_t total = 0;
  int64_t kernel = 0;
  int64_t functions = 0;
  // Of total, the cross-lane moves (ds_bpermute, ds_permute, v_permlane*): what an MMA lowering
  // spends remapping operands between the PTX and the WMMA layouts.
  int64_t shuffles = 0;
  int64_t wmma = 0; // v_wmma_*: matrix products
};
[[nodiscard]] Expected<InstructionCount> count_instructions(const std::filesystem::path& code_object,
                                                            const std::string& target,
                                                            const std::string& kernel);

// What one native kernel came to: a count, or why not.
struct NativeKernel {
  bool built = false;
  InstructionCount count;
  std::string why_not; // "needs inline PTX", "shim: no __fadd_rz", ...
};

// Compiles `source` for `target` with clang (to bitcode, -O3), then each kernel on its own through
// the same in-process codegen and link as the translator's output. `work_dir` receives the files.
// The key of the result is the kernel's (mangled) name. Errors: clang failed (the message holds its
// first lines).
[[nodiscard]] Expected<std::map<std::string, NativeKernel>>
build_native(const NativeSource& source, const std::string& target,
             const std::filesystem::path& work_dir);

// Only the clang step, to a code object (the HIP compile-time baseline): seconds, or an error.
[[nodiscard]] Expected<double> time_native_compile(const NativeSource& source,
                                                   const std::string& target,
                                                   const std::filesystem::path& work_dir);

// Runs `work` in a child process (LLVM aborts on some inputs, lld may exit): its return value, the
// text it wrote to the pipe, or "crashed (signal N)".
[[nodiscard]] Expected<std::string> run_isolated(const std::function<Expected<std::string>()>& work);

} // namespace d4r::bench
