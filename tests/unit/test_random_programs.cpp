// Differential random testing (tests/random/README.md), the CI part:
//  - Replay: the checked-in batch tests/random/batch/h200.digests holds what an NVIDIA H200
//    computed for a fixed seed range (one digest per slot over the 32 threads). The CPU executor
//    must produce the same digests, except for the first differing slots listed in
//    tests/random/batch/known_differences.txt, each with the bug it shows. A listed program that
//    no longer differs fails too: the list only shrinks, as the bugs are fixed.
//  - Fresh: a few programs of new seeds (D4R_RANDOM_SEED, or the clock; the latest generator
//    version) run on the executor and
//    their code objects are built for gfx1100 and gfx1201 in a child process: no failure, no crash.

#include "tests/random/random_check.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

namespace {

using namespace d4r::ptxgen;
namespace fs = std::filesystem;

const fs::path k_batch = fs::path(D4R_TEST_SOURCE_DIR) / "random" / "batch";

// "r<seed> <slot> <why>" lines; '#' starts a comment.
std::map<std::pair<uint64_t, int>, std::string> known_differences()
{
  std::map<std::pair<uint64_t, int>, std::string> known;
  std::ifstream in(k_batch / "known_differences.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#' || line[0] != 'r') {
      continue;
    }
    std::istringstream fields(line.substr(1));
    uint64_t seed = 0;
    int slot = -1;
    std::string why;
    fields >> seed >> slot;
    std::getline(fields, why, '|');
    known[{seed, slot}] = why;
  }
  return known;
}

TEST(RandomPrograms, ExecutorMatchesTheH200Batch)
{
  int version = 0;
  std::string error;
  const std::vector<RunRecord> gpu = read_results((k_batch / "h200.digests").string(), &version, &error);
  ASSERT_TRUE(error.empty()) << error;
  ASSERT_GE(version, 1);
  ASSERT_LE(version, k_latest_version);
  ASSERT_GE(gpu.size(), 50u);
  Options options;
  options.version = version; // the programs the H200 ran
  std::vector<Program> programs;
  for (const RunRecord& record : gpu) {
    programs.push_back(generate(record.seed, options));
    ASSERT_EQ(record.status, RunStatus::ok) << programs.back().name;
    ASSERT_EQ(record.slots, programs.back().slots.size()) << programs.back().name << ": the generator changed";
  }
  const std::vector<RunRecord> cpu = run_on_executor(programs);
  std::map<std::pair<uint64_t, int>, std::string> known = known_differences();
  int64_t known_seen = 0;
  for (size_t i = 0; i < programs.size(); ++i) {
    ASSERT_EQ(cpu[i].status, RunStatus::ok) << programs[i].name << ": " << cpu[i].message;
    const Difference difference = first_digest_difference(programs[i], gpu[i], cpu[i]);
    if (difference.slot < 0) {
      EXPECT_EQ(known.count({programs[i].seed, -1}), 0u);
      for (const auto& [key, why] : known) {
        EXPECT_NE(key.first, programs[i].seed)
            << programs[i].name << " now equals the H200: remove its line from known_differences.txt (" << why << ")";
      }
      continue;
    }
    const auto found = known.find({programs[i].seed, difference.slot});
    if (found != known.end()) {
      ++known_seen;
      continue;
    }
    ADD_FAILURE() << "differs from the H200 (not a known difference):\n" << describe(programs[i], difference, cpu[i]);
  }
  std::printf("random batch: %zu programs, %lld known differences\n", programs.size(), static_cast<long long>(known_seen));
}

TEST(RandomPrograms, FreshBatchRunsAndTranslates)
{
  const char* env = std::getenv("D4R_RANDOM_SEED");
  const uint64_t first =
      env != nullptr ? std::strtoull(env, nullptr, 0)
                     : static_cast<uint64_t>(std::chrono::system_clock::now().time_since_epoch().count()) % 1000000000 + 100000;
  const int64_t count = 8;
  std::printf("fresh random batch: seeds %llu..%llu (D4R_RANDOM_SEED=%llu repeats it)\n",
              static_cast<unsigned long long>(first), static_cast<unsigned long long>(first + count - 1),
              static_cast<unsigned long long>(first));
  Options options;
  options.version = k_latest_version; // the most forms; the executor and AMDGPU need no recording
  const std::vector<Program> programs = generate_range(first, count, options);
  const std::vector<RunRecord> cpu = run_on_executor(programs);
  for (size_t i = 0; i < programs.size(); ++i) {
    EXPECT_EQ(cpu[i].status, RunStatus::ok) << programs[i].name << ": " << cpu[i].message;
    // The first slots are the inputs, loaded unchanged: the trace works.
    ASSERT_EQ(cpu[i].output.size(), static_cast<size_t>(output_bytes(programs[i])));
    uint64_t loaded = 0;
    std::memcpy(&loaded, cpu[i].output.data() + 7 * 8, 8);
    EXPECT_EQ(loaded, programs[i].inputs[7]) << programs[i].name;
  }
  const std::string self = std::string(D4R_BINARY_DIR) + "/tests/d4r-ptxgen-check";
  for (const TranslateFailure& failure : translate_for_targets(self, first, count, options, {"gfx1100", "gfx1201"})) {
    ADD_FAILURE() << failure.target << " r" << failure.seed << ": " << failure.message;
  }
}

} // namespace
