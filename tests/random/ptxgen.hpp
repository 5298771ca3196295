#pragma once
// A seeded generator of random, well-defined PTX programs for differential testing against an
// NVIDIA GPU (tests/random/README.md). Every program TRACES: each instruction's result (a
// predicate as 0/1) is stored to its own 8-byte slot of the thread's part of the output buffer, so
// the first slot where two runs differ names the instruction, and its inputs are the values of
// earlier slots.
//
// Plain C++ and the standard library only, no LLVM and no CUDA, so the GPU runner
// (gpu_runner.cpp, built on the GPU machine with g++) and the host checker generate the same
// programs and inputs from a seed. Randomness is our own splitmix64: the standard distributions'
// results differ between library implementations.

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace d4r::ptxgen {

// The generator's versions: a seed yields the same program in the same version forever, so that
// recorded GPU results stay valid. A results file records the version it was made with.
//  1: integer, float, f16/bf16, compare/select, cvt, FP8, packing, warp ops (full and partial
//     masks), shared memory, bar.red, branches and loops. Recorded on the H200.
//  2: version 1 without the forms where the H200 deviates from the ISA (a guarded testp, a guarded
//     set with a 16/64-bit source), plus loads of every width and vector (.nc too), red.shared
//     reductions and cvt .relu to f16. Recorded on the H200 (tests/random/README.md).
//  3: version 2 plus the sm_90a forms (modules `.target sm_90a`): a third of the programs are a
//     warpgroup (128 threads) with wgmma.mma_async dense and .sp of every type family from shared
//     memory descriptors and register fragments; mma.sync of every type family; cp.async.bulk
//     global <-> shared with mbarrier waits and bulk groups, cp.reduce.async.bulk; st.async and
//     red.async in kernels requiring clusters of one CTA; FP8 conversion chains; szext, bmsk,
//     cvt.pack, cvt .tf32, packed 16x2 integers, half min/max, redux/match/elect.
inline constexpr int k_generator_version = 2; // the default: the one the CI batch holds
inline constexpr int k_latest_version = 3;

inline constexpr int k_threads = 32;     // one warp, one block: warp operations see a full warp
inline constexpr int k_warpgroup_threads = 128; // version 3's wgmma programs: one warpgroup
inline constexpr int k_input_words = 16; // u64 input words per thread

// How a slot's bytes are read (little-endian, zero-filled to 8 bytes).
enum class SlotType { b16, b32, b64, f16, bf16, f16x2, f32, f64, pred };

struct Slot {
  std::string text;         // the instruction (with its guard) that wrote the slot
  SlotType type = SlotType::b32;
  std::vector<int> sources; // slots holding the values of its register operands, in order
  std::vector<std::string> source_regs; // those registers' names
  std::vector<int> control; // slots of the predicates of the branches around it (and, for a
                            // carry-in instruction, the slot of the chain's previous instruction)
  bool in_loop = false;     // written in a loop: its sources show their final values only
  bool cross = false;       // reads other threads' values (through memory or a matrix operation)
};

struct Program {
  uint64_t seed = 0;
  int version = k_generator_version;
  std::string name;                // the .entry's name: "r<seed>"
  std::string entry;               // the .entry text
  std::vector<Slot> slots;
  int threads = k_threads;         // one block of this many threads (32, or 128 from version 3)
  // threads * k_input_words words, thread-major, then (version 3) the block's words: the
  // material of wgmma's shared-memory image, sparsity metadata, and zeroed room that bulk
  // copies write.
  std::vector<uint64_t> inputs;
};

struct Options {
  int min_ops = 24;  // body operations (each one or a few slots)
  int max_ops = 56;
  int version = k_generator_version;
};

[[nodiscard]] Program generate(uint64_t seed, const Options& options = {});

// The module: header (.version 8.5, .target sm_90 (sm_90a from version 3), .address_size 64) and
// the entries in order.
[[nodiscard]] std::string module_text(std::span<const Program> programs);

// Output bytes of one program: threads * slots * 8.
[[nodiscard]] int64_t output_bytes(const Program& program);

[[nodiscard]] const char* to_string(SlotType type);
[[nodiscard]] int slot_bytes(SlotType type);

// A slot's value (its first slot_bytes bytes) written for a human: hex, and the number it is.
[[nodiscard]] std::string describe_value(SlotType type, uint64_t bits);

[[nodiscard]] uint64_t fnv1a64(std::span<const unsigned char> bytes, uint64_t hash = 0xcbf29ce484222325ULL);

} // namespace d4r::ptxgen
