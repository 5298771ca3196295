#pragma once
// "Rewrite, then translate": the build of a game's PTX module for one target, as a ptx recipe
// (recipe.hpp, language = ptx) asks. Parse the module, run the recipe's passes in order on the
// entry being built, keep that entry (and every .func: unused ones are dropped by LLVM), translate
// to LLVM IR (translate/translator.hpp) and, for an AMDGPU target, generate and link the code
// object. The worker (llvm backend) and `d4r-kernel ptx translate` both build through here, so a
// kernel the CLI translates is the kernel the daemon serves.

#include "compiler/translate/translator.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <cstddef>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler {

struct PtxBuild {
  std::string target;  // "gfx1201"; ignored for the host
  std::vector<std::string> passes;
  std::map<std::string, std::map<std::string, std::string>> pass_parameters;
  std::string entry;   // the .entry to keep; empty: every entry
  std::filesystem::path work_dir; // lld's files; empty: a temporary folder
  translate::FloatPolicy float_policy = translate::FloatPolicy::accuracy;
};

// The float policy of the set `mode` names.
[[nodiscard]] translate::FloatPolicy float_policy_for(Mode mode);

// The parsed, rewritten module with only `build.entry` left among the entries. `log` gets one line
// per pass ("sust: 12 rewrites", "roundf: unchanged"). Errors: PTX that does not parse, an unknown
// entry, an unknown pass or a failing one.
[[nodiscard]] Expected<ptx::Module> rewrite_ptx(std::string_view text, const PtxBuild& build,
                                                std::string& log);

// rewrite_ptx, then the translation for `kind` (gfx12 targets convert FP8 in hardware). With an
// entry, the module-scope .global/.const variables it does not reach are left out, so that the
// code object's host variables are the kernel's own.
[[nodiscard]] Expected<translate::Translation> translate_ptx(std::string_view text,
                                                             const PtxBuild& build,
                                                             translate::TargetKind kind,
                                                             std::string& log);

// translate_ptx for build.target, then code generation and the link: an AMDGPU code object.
[[nodiscard]] Expected<std::vector<std::byte>> build_ptx_code_object(std::string_view text,
                                                                     const PtxBuild& build,
                                                                     std::string& log);

// The translation's LLVM IR as text (`ptx translate --emit-llvm`).
[[nodiscard]] std::string llvm_ir_text(const translate::Translation& translation);

} // namespace d4r::compiler
