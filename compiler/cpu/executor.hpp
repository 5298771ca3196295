#pragma once
// The CPU executor: host IR from the translator (translate/translator.hpp, TargetKind::host)
// JIT-compiled with LLVM ORC (LLJIT) and run by a small SIMT runtime: one fiber per PTX thread,
// blocks spread over a few OS threads, rendezvous at barriers and warp-synchronous instructions
// (translate/host_abi.hpp). It is how a translation is proven: its output must equal what the same
// PTX computed on an NVIDIA GPU (tests/golden/).

#include "compiler/cpu/launch_case.hpp"
#include "compiler/translate/translator.hpp"
#include "util/error.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace d4r::compiler::cpu {

struct LaunchShape {
  std::array<uint32_t, 3> grid{1, 1, 1};
  std::array<uint32_t, 3> block{1, 1, 1};
  uint32_t dynamic_shared_bytes = 0;
};

struct ExecutorOptions {
  int threads = 0; // OS threads running blocks; 0: the machine's cores
  int64_t fiber_stack_bytes = 256 * 1024;
};

struct LaunchStats {
  int64_t threads_run = 0;
  int64_t fiber_switches = 0;
  double seconds = 0;
};

class Executor {
public:
  // JIT-compiles the translation (which must be TargetKind::host). Errors: the IR does not
  // verify, or a symbol is missing.
  [[nodiscard]] static Expected<std::unique_ptr<Executor>>
  create(translate::Translation translation, const ExecutorOptions& options = {});
  virtual ~Executor() = default;

  // Runs `kernel` over the grid. `params` is the .param block (translator's KernelParam layout);
  // pointers in it are host addresses the caller owns (global buffers, d4r_host_image handles).
  // Errors: unknown kernel, params of the wrong size, a deadlock, a trap, shared memory too big.
  [[nodiscard]] virtual Expected<LaunchStats> launch(std::string_view kernel, const LaunchShape& shape,
                                                     std::span<const std::byte> params) = 0;

  [[nodiscard]] virtual const translate::KernelSignature* signature(std::string_view kernel) const = 0;

  // The memory of a module-scope .global/.const variable, by its PTX name: what cuModuleGetGlobal
  // gives a game, so that the host can write it between launches (any linkage; the translator
  // keeps every one as a symbol). Errors: not_found (no such variable in the translation).
  [[nodiscard]] virtual Expected<std::span<std::byte>> global(std::string_view name) const = 0;
};

// A golden case's `global` lines (launch_case.hpp): each variable's first bytes set from its fill,
// as the recording tool's cuModuleGetGlobal + cuMemcpyHtoD set them on the GPU. Errors: not_found
// (no such variable), invalid_argument (the fill is larger than the variable).
[[nodiscard]] Expected<void> write_case_globals(const Executor& executor, const LaunchCase& launch_case);
// A case's `texref` lines: each .texref module variable gets the handle of its host image (the
// client's binding, as cuTexRefSetArray binds the array on the GPU).
[[nodiscard]] Expected<void> write_case_texrefs(const Executor& executor, const LaunchCase& launch_case,
                                                const HostLaunch& host);

} // namespace d4r::compiler::cpu
