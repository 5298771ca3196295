#pragma once
// The compile backends (compiler/backend.hpp) are made here; their classes hide in their .cpp
// files. Which backend builds a target depends on what the machine has: the user's ROCm comgr for
// the ISAs it reports, else in-process LLVM 19.

#include "compiler/backend.hpp"
#include "util/error.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler {

inline constexpr std::string_view k_default_clang = "/usr/lib/llvm-19/bin/clang++";

struct BackendOptions {
  // The clang driver that turns HIP into LLVM 19 bitcode for the llvm backend. The clang backend
  // prefers ROCm's clang ($ROCM_PATH/llvm/bin/clang++, /opt/rocm/llvm/bin/clang++) while this is
  // left at its default.
  std::filesystem::path clang = std::string(k_default_clang);
  // Tried in order with dlopen.
  std::vector<std::string> comgr_libraries = {"libamd_comgr.so.3", "libamd_comgr.so.2"};
};

// HIP via the clang driver -> bitcode -> in-process codegen + lld; LLVM IR and bitcode directly.
[[nodiscard]] std::unique_ptr<Backend> make_llvm_backend(const BackendOptions& options);
// HIP -> code object by the clang driver alone.
[[nodiscard]] std::unique_ptr<Backend> make_clang_backend(const BackendOptions& options);
// not_found when no library of options.comgr_libraries loads (or lacks the functions we call).
[[nodiscard]] Expected<std::unique_ptr<Backend>> make_comgr_backend(const BackendOptions& options);
// "llvm" | "clang" | "comgr"; invalid_argument for any other name.
[[nodiscard]] Expected<std::unique_ptr<Backend>> make_backend(std::string_view name,
                                                              const BackendOptions& options);
// comgr when it reports the target's ISA, else llvm.
[[nodiscard]] std::unique_ptr<Backend> choose_backend(std::string_view target,
                                                      const BackendOptions& options);

} // namespace d4r::compiler
