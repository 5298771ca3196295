#pragma once
// LLVM IR -> AMDGPU code object, in process: the AMDGPU target machine (optionally LLVM's O3
// pipeline first) emits a relocatable object into memory and lld, linked in as a library, links
// it into a code object (v5, LLVM 19's default), as the clang driver links one (-shared,
// --no-undefined). The llvm backend (llvm_backend.cpp) and the PTX translator's users share it.
//
// lld's lldMain keeps global state and may exit on some errors, and LLVM aborts on some inputs
// ("Cannot select"): callers run it in a worker process (the daemon) or accept that (tests).

#include "util/error.hpp"

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace llvm {
class Module;
} // namespace llvm

namespace d4r::compiler {

struct CodegenOptions {
  std::string target;          // "gfx1201"
  bool wave64 = false;
  bool optimise = true;        // run LLVM's O3 pipeline before code generation
  std::string label = "llvm codegen"; // the object of every error message
  // lld's input and output files go here; empty: a fresh temporary folder, removed afterwards.
  std::filesystem::path work_dir;
};

// The module's triple must be amdgcn (an empty one is set); its data layout is set from the
// target machine. LLVM's diagnostics and lld's messages are appended to `log`. Errors: rejected
// (a codegen diagnostic, lld failed), internal (no AMDGPU target), io (the work folder).
[[nodiscard]] Expected<std::vector<std::byte>>
codegen_code_object(llvm::Module& module, const CodegenOptions& options, std::string& log);

// The same with the defaults: O3 first, a temporary work folder, "llvm codegen" in messages.
[[nodiscard]] Expected<std::vector<std::byte>> codegen_code_object(llvm::Module& module,
                                                                   std::string_view target,
                                                                   bool wave64, std::string& log);

} // namespace d4r::compiler
