#pragma once
// The host side of the differential test (tests/random/README.md): generated programs run on the
// CPU executor (compiler/cpu/executor.hpp) and translated for AMDGPU targets, and a GPU's results
// compared with the executor's slot by slot, the first differing slot decoded.

#include "tests/random/ptxgen.hpp"
#include "tests/random/results.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace d4r::ptxgen {

[[nodiscard]] std::vector<Program> generate_range(uint64_t first, int64_t count, const Options& options = {});

// The programs as one module translated for the host and run on the executor; if the module
// does not translate, each program alone (a record's message says why one failed).
[[nodiscard]] std::vector<RunRecord> run_on_executor(const std::vector<Program>& programs);

// The first slot (in program order; within it the lowest thread) where `gpu` and `cpu` differ.
struct Difference {
  int slot = -1;
  int thread = -1;
  uint64_t gpu = 0;
  uint64_t cpu = 0;
};

// Full outputs on both sides.
[[nodiscard]] Difference first_difference(const Program& program, const RunRecord& gpu, const RunRecord& cpu);
// gpu holds slot digests only (a digest file): the thread and values are the executor's.
[[nodiscard]] Difference first_digest_difference(const Program& program, const RunRecord& gpu, const RunRecord& cpu);

// Every slot whose output differs in some thread while all its inputs, and the predicates of the
// branches around it, agree there (for
// instructions that read other threads, shfl/vote/bar.red/ld.shared/activemask, in every thread;
// slots in loops only where every earlier slot agrees): each instruction that is itself wrong,
// not just downstream of one. One Difference per slot, its lowest such thread.
[[nodiscard]] std::vector<Difference> local_differences(const Program& program, const RunRecord& gpu, const RunRecord& cpu);

// Whether `difference` is only a NaN's payload: the slot holds floats (f16, bf16, f16x2, f32,
// f64) and every element differing between the GPU's and the executor's value is a NaN on both
// sides. The PTX ISA leaves a NaN result's bits unspecified for most float operations, and ptxas
// does not keep them either (it may rematerialise one value differently for two uses), so such a
// difference says nothing about the translation.
[[nodiscard]] bool differs_only_in_nan_payload(const Slot& slot, const Difference& difference);

// The slots of mbarrier waits (version 3: "(phase 0 completed)") that are 0 in some thread of
// `record`: a phase that never completed, so the region's copies did not all arrive. A
// well-defined program has none, on the GPU and on the executor.
[[nodiscard]] std::vector<int> failed_waits(const Program& program, const RunRecord& record);

// A few lines: the program, the slot's instruction, its inputs (values of the source slots in
// `values_of`, the GPU's output where there is one), and both results.
[[nodiscard]] std::string describe(const Program& program, const Difference& difference, const RunRecord& values_of);

// One line naming the instruction's form without registers and immediates (opcode and
// modifiers), for grouping differences: "add.sat.s32", "@p cvt.rni.s8.f32".
[[nodiscard]] std::string form_of(const Slot& slot);

// A minimal reproducer of `difference`: one single-thread kernel `repro(.param .u64 out)` that sets
// the instruction's source registers to their values in `values_of` (the GPU's), runs the one
// instruction and stores its result to out[0]. Empty for instructions that read other threads.
[[nodiscard]] std::string reproducer(const Program& program, const Difference& difference, const RunRecord& values_of);

struct TranslateFailure {
  uint64_t seed = 0;
  std::string target;
  std::string message; // the error, or "crashed: signal N"
};

// Each target's code object for the programs, built in a child process (`self` re-run with
// --amdgpu-child) so that an LLVM abort costs only the child; a module that fails is split into
// its programs to name the failing ones.
[[nodiscard]] std::vector<TranslateFailure> translate_for_targets(const std::string& self, uint64_t first, int64_t count,
                                                                  const Options& options,
                                                                  const std::vector<std::string>& targets);

// The child's side: builds the code object of seeds first..first+count-1 for `target`; prints
// "FAIL seed message" for each failing program; exit status 0 if all built.
[[nodiscard]] int amdgpu_child(uint64_t first, int64_t count, const Options& options, const std::string& target);

} // namespace d4r::ptxgen
