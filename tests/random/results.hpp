#pragma once
// The results file of a batch run: what each program wrote (its threads * slots * 8 output
// bytes), or why it did not run. Written by gpu_runner.cpp on the GPU machine and by the checker
// for the executor; read by the checker. Standard library only (the runner is built with g++ there).
//
// Layout (little-endian): "D4RPTXG2", u32 generator version, u32 record count, then per record:
// u64 seed, u32 status, u32 slots, u32 threads, u64 output fnv1a64, and for status ok the output
// bytes. "D4RPTXG1" files (before version 3's 128-thread programs) have no threads field: 32.
// A digest file ("D4RPTXD1", the checked-in CI batch) holds instead of the output bytes one u32
// per slot: the low half of the fnv1a64 of that slot's 8 bytes in every thread, in thread order.

#include <cstdint>
#include <string>
#include <vector>

namespace d4r::ptxgen {

enum class RunStatus : uint32_t {
  ok = 0,
  load_failed = 1,     // the module (and the program alone) did not load / translate
  launch_failed = 2,   // the launch or its synchronisation failed
  nondeterministic = 3 // two launches wrote different outputs
};

struct RunRecord {
  uint64_t seed = 0;
  RunStatus status = RunStatus::ok;
  uint32_t slots = 0;
  uint32_t threads = 32;
  uint64_t digest = 0;
  std::vector<unsigned char> output; // empty unless ok (and not a digest file)
  std::vector<uint32_t> slot_digests; // a digest file's records (ok ones)
  std::string message;               // not stored: this run's explanation
};

[[nodiscard]] bool write_results(const std::string& path, int version, const std::vector<RunRecord>& records,
                                 bool digests_only = false);
// Empty on a missing or malformed file (`error` says which).
[[nodiscard]] std::vector<RunRecord> read_results(const std::string& path, int* version, std::string* error);

// Per slot: the digest of its values over all threads (output is thread-major, slots of 8 bytes;
// the thread count is output.size() / (slots * 8)).
[[nodiscard]] std::vector<uint32_t> slot_digests(const std::vector<unsigned char>& output, uint32_t slots);

} // namespace d4r::ptxgen
