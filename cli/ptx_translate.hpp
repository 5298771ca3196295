#pragma once
// `d4r-kernel ptx translate` and `d4r-kernel ptx run`: the translator and the CPU executor, run
// locally on one PTX module of a FILE (text, fatbin or DLL). translate builds what the daemon's
// ptx recipes build (compiler/ptx_build.hpp); run executes one kernel on the CPU with a launch
// case (compiler/cpu/launch_case.hpp, tests/golden/README.md) and compares its outputs with the
// expected ones when the case's folder has them.

#include "cli/options.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <ostream>
#include <string>
#include <vector>

namespace d4r::cli {

struct TranslateOutput {
  std::vector<std::byte> code_object; // a code object, or
  std::string llvm_ir;                // IR text (--emit-llvm)
};

// Pass counts go to `log`. Errors name FILE, the recipe, the kernel or "unsupported: OP at line L".
[[nodiscard]] Expected<TranslateOutput> translate_ptx_file(const PtxTranslateCommand& cmd,
                                                           std::ostream& log);

struct RunReport {
  std::string summary;     // one line per output, for people
  int64_t mismatches = 0;  // outputs that differ from their expected file
  int64_t compared = 0;    // outputs that had an expected file
};

// Runs the kernel; writes outN.bin into cmd.out_dir when given.
[[nodiscard]] Expected<RunReport> run_ptx_file(const PtxRunCommand& cmd);

} // namespace d4r::cli
