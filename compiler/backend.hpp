#pragma once
// A backend turns one compile job (a HIP source, LLVM IR or bitcode, for one GPU target) into an
// AMDGPU code object. Backends run inside the worker process (d4r-kernel-worker), never in the
// daemon: LLVM aborts the process on some bad input ("Cannot select").
//
//   llvm   in-process LLVM 19: IR/bitcode -> AMDGPU relocatable object -> code object linked with
//          lld as a library. Every gfx1100-gfx1103 and gfx1200-gfx1201 target. HIP sources are
//          first turned into bitcode by the clang driver.
//   clang  a clang driver (clang-19 here, or ROCm's clang where the user has it) from a HIP
//          source to bitcode (the front half of the llvm backend's HIP path).
//   comgr  the user's ROCm comgr, loaded at run time, for the ISAs it reports.

#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <cstddef>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler {

// ptx: the game's PTX module, rewritten by `passes` and translated (compiler/translate/); only the
// llvm backend builds it.
enum class SourceLanguage { hip, llvm_ir, llvm_bitcode, ptx };

struct CompileJob {
  std::filesystem::path source;     // the input file
  SourceLanguage language = SourceLanguage::hip;
  std::string target;               // "gfx1101" (never "-fp8": that is a folder, not an ISA)
  std::vector<std::string> flags;   // front-end flags: -O3, -D..., -mcumode, ... (HIP only)
  bool wave64 = false;              // -mwavefrontsize64 / +wavefrontsize64
  std::filesystem::path work_dir;   // a private scratch folder for intermediate files
  // PTX only: the rewrite passes in order with their parameters (compiler/passes/registry.hpp),
  // and the .entry to keep (empty: every entry of the module).
  std::vector<std::string> passes;
  std::map<std::string, std::map<std::string, std::string>> pass_parameters;
  std::string entry;
  // PTX only: the set the object is for; it decides which kernels may run with f32 denormals
  // flushed by the float mode (compiler/translate/denormal_mode.hpp).
  Mode mode = Mode::accuracy;
};

struct CompileOutput {
  std::vector<std::byte> code_object;
  std::string log; // compiler messages, for people
};

class Backend {
public:
  virtual ~Backend() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Everything about the toolchain that changes the output ("llvm 19.1.7; clang 19.1.7"). It goes
  // into every cache key, so an update never serves an object an older toolchain made.
  [[nodiscard]] virtual std::string fingerprint() const = 0;
  [[nodiscard]] virtual bool supports(std::string_view target) const = 0;
  [[nodiscard]] virtual Expected<CompileOutput> compile(const CompileJob& job) = 0;
};

} // namespace d4r::compiler
