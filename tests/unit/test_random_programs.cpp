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

#include <algorithm>
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

// Version 3's sm_90a forms: each one is emitted by some program of a small seed range (a line
// starting with the prefix and holding one of the spellings); the first program holding each
// runs on the executor (every mbarrier wait completes) and builds for gfx1100 and gfx1201.
struct Form {
  const char* name;
  const char* prefix;
  std::vector<const char*> any;
};

const std::vector<Form>& version3_forms()
{
  static const std::vector<Form> forms = {
      {"wgmma f16 -> f32", "wgmma.mma_async.sync", {"k16.f32.f16.f16 "}},
      {"wgmma f16 -> f16", "wgmma.mma_async.sync", {"k16.f16.f16.f16 "}},
      {"wgmma bf16", "wgmma.mma_async.sync", {"k16.f32.bf16.bf16 "}},
      {"wgmma tf32", "wgmma.mma_async.sync", {"k8.f32.tf32.tf32 "}},
      {"wgmma FP8", "wgmma.mma_async.sync", {"k32.f32.e", "k32.f16.e"}},
      {"wgmma s8/u8", "wgmma.mma_async.sync", {"k32.s32.", "k32.satfinite.s32."}},
      {"wgmma b1", "wgmma.mma_async.sync", {"k256.s32.b1.b1.and.popc "}},
      {"wgmma A in registers", "wgmma.mma_async", {"}, {%r"}},
      {"wgmma transposed", "wgmma.mma_async", {", 1;"}},
      {"wgmma.sp f16/bf16", "wgmma.mma_async.sp", {"k32.f32.f16", "k32.f16.f16", "k32.f32.bf16"}},
      {"wgmma.sp tf32", "wgmma.mma_async.sp", {"k16.f32.tf32"}},
      {"wgmma.sp FP8", "wgmma.mma_async.sp", {"k64.f32.e", "k64.f16.e"}},
      {"wgmma.sp s8/u8", "wgmma.mma_async.sp", {"k64.s32.", "k64.satfinite.s32."}},
      {"wgmma.wait_group", "wgmma.wait_group.sync.aligned", {" 0;"}},
      {"128-byte swizzle descriptor", "or.b64 %t", {", 0x4", ", 0x5", ", 0x6", ", 0x7"}},
      {"bulk copy global -> shared", "@%pe cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes", {" ["}},
      {"bulk copy with a cache hint", "@%pe cp.async.bulk.shared::cluster.global", {".L2::cache_hint"}},
      {"bulk copy shared -> global", "@%pe cp.async.bulk.global.shared::cta.bulk_group", {" ["}},
      {"bulk reduction", "@%pe cp.reduce.async.bulk.global.shared::cta.bulk_group", {"."}},
      {"bulk wait_group.read", "@%pe cp.async.bulk.wait_group.read", {" 0;"}},
      {"mbarrier wait", "mbarrier.try_wait.parity.shared::cta.b64", {"[mb"}},
      {"st.async scalar", "st.async", {".b32 [", ".u32 [", ".s32 [", ".f32 [", ".b64 [", ".u64 [", ".s64 [", ".f64 ["}},
      {"st.async vector", "st.async", {".v2.", ".v4."}},
      {"st.async generic", "st.async.mbarrier", {"["}},
      {"red.async", "red.async.relaxed.cluster", {"["}},
      {"mapa", "mapa.shared::cluster.u32", {", 0;"}},
      {"cluster of one CTA", ")", {".reqnctapercluster 1, 1, 1"}},
      {"mma.sync f16", "mma.sync.aligned.m16n8k16.row.col.f32.f16", {"."}},
      {"mma.sync bf16", "mma.sync.aligned.m16n8k", {".f32.bf16.bf16.f32"}},
      {"mma.sync tf32", "mma.sync.aligned.m16n8k", {".f32.tf32.tf32.f32"}},
      {"mma.sync FP8", "mma.sync.aligned.m16n8k32.row.col.f32.e", {"."}},
      {"mma.sync f64", "mma.sync.aligned.m8n8k4.row.col.f64", {"."}},
      {"mma.sync int8", "mma.sync.aligned.m16n8k32.row.col", {".s32.s8.", ".s32.u8."}},
      {"mma.sync int4", "mma.sync.aligned.m16n8k64.row.col", {"4.s32"}},
      {"mma.sync b1", "mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32", {".and.popc", ".xor.popc"}},
      {"FP8 chain", "cvt.rn.satfinite", {".e4m3x2.f16x2", ".e5m2x2.f16x2"}},
      {"redux.sync", "redux.sync", {"0xffffffff"}},
      {"match.any.sync", "match.any.sync", {"0xffffffff"}},
      {"match.all.sync", "match.all.sync", {"0xffffffff"}},
      {"elect.sync", "elect.sync", {"0xffffffff"}},
      {"szext", "szext", {"."}},
      {"bmsk", "bmsk", {"."}},
      {"fns", "fns.b32", {" "}},
      {"cvt.pack.sat", "cvt.pack.sat", {"."}},
      {"cvt .tf32", "cvt.r", {".tf32.f32"}},
      {"packed 16x2 integers", "", {"16x2 %r"}},
      {"half min/max .xorsign.abs", "m", {".xorsign.abs.f16", ".xorsign.abs.bf16"}},
      {"video scalar", "v", {"vadd.", "vsub.", "vabsdiff.", "vmin.", "vmax."}},
      {"video secondary op", "v", {"32.add ", "32.min ", "32.max ", ".sat.add ", ".sat.min ", ".sat.max "}},
      {"video shift", "vsh", {".clamp ", ".wrap "}},
      {"video SIMD x2", "v", {"2.u32.", "2.s32."}},
      {"video SIMD x4", "v", {"4.u32.", "4.s32."}},
      {"ldmatrix", "ldmatrix.sync.aligned.m8n8", {".x1", ".x2", ".x4"}},
      {"ldmatrix .trans", "ldmatrix.sync.aligned.m8n8", {".trans"}},
      {"stmatrix", "stmatrix.sync.aligned.m8n8", {".shared.b16"}},
      {"movmatrix", "movmatrix.sync.aligned.m8n8.trans.b16", {" "}},
      {"cp.async", "cp.async.c", {".shared.global"}},
      {"cp.async zero fill", "cp.async.ca.shared.global", {"4, ", "8, ", "16, "}},
      {"cp.async.wait", "cp.async.wait", {"_group 0;", "_all;"}},
  };
  return forms;
}

bool holds(const std::string& entry, const Form& form)
{
  std::istringstream lines(entry);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || line.compare(start, std::strlen(form.prefix), form.prefix) != 0) {
      continue;
    }
    for (const char* spelling : form.any) {
      if (line.find(spelling) != std::string::npos) {
        return true;
      }
    }
  }
  return false;
}

TEST(RandomPrograms, Version3EmitsTheSm90aForms)
{
  Options options;
  options.version = 3;
  const std::vector<Program> programs = generate_range(1, 200, options);
  EXPECT_NE(module_text(programs).find(".target sm_90a\n"), std::string::npos);
  std::vector<uint64_t> chosen;
  int64_t warpgroups = 0;
  for (const Program& program : programs) {
    warpgroups += program.threads == k_warpgroup_threads ? 1 : 0;
    EXPECT_TRUE(program.threads == k_threads || program.threads == k_warpgroup_threads) << program.name;
    EXPECT_EQ(program.inputs.size() >= static_cast<size_t>(program.threads) * k_input_words, true) << program.name;
  }
  EXPECT_GE(warpgroups, 40) << "a third of version 3's programs are warpgroups";
  // Which program holds which form; then a greedy cover (few programs to run and build).
  const std::vector<Form>& forms = version3_forms();
  std::vector<std::vector<bool>> has(programs.size(), std::vector<bool>(forms.size()));
  std::vector<bool> covered(forms.size(), false);
  for (size_t f = 0; f < forms.size(); ++f) {
    bool any = false;
    for (size_t p = 0; p < programs.size(); ++p) {
      has[p][f] = holds(programs[p].entry, forms[f]);
      any = any || has[p][f];
    }
    if (!any) {
      ADD_FAILURE() << "no program of seeds 1..200 (version 3) emits " << forms[f].name;
      covered[f] = true;
    }
  }
  for (;;) {
    size_t best = 0, best_count = 0;
    for (size_t p = 0; p < programs.size(); ++p) {
      size_t count = 0;
      for (size_t f = 0; f < forms.size(); ++f) {
        count += has[p][f] && !covered[f] ? 1 : 0;
      }
      if (count > best_count) {
        best = p;
        best_count = count;
      }
    }
    if (best_count == 0) {
      break;
    }
    chosen.push_back(programs[best].seed);
    for (size_t f = 0; f < forms.size(); ++f) {
      covered[f] = covered[f] || has[best][f];
    }
  }
  // The programs holding them: run on the executor, every wait completed, built for AMDGPU.
  std::vector<Program> run;
  for (const uint64_t seed : chosen) {
    run.push_back(programs[static_cast<size_t>(seed - 1)]);
  }
  const std::vector<RunRecord> cpu = run_on_executor(run);
  for (size_t i = 0; i < run.size(); ++i) {
    ASSERT_EQ(cpu[i].status, RunStatus::ok) << run[i].name << ": " << cpu[i].message;
    EXPECT_EQ(cpu[i].output.size(), static_cast<size_t>(output_bytes(run[i])));
    EXPECT_TRUE(failed_waits(run[i], cpu[i]).empty()) << run[i].name << ": an mbarrier phase did not complete";
  }
  const std::string self = std::string(D4R_BINARY_DIR) + "/tests/d4r-ptxgen-check";
  for (const uint64_t seed : chosen) {
    for (const TranslateFailure& failure : translate_for_targets(self, seed, 1, options, {"gfx1100", "gfx1201"})) {
      ADD_FAILURE() << failure.target << " r" << failure.seed << ": " << failure.message;
    }
  }
  std::printf("version 3 forms: %zu forms in %zu programs of seeds 1..200 (%lld warpgroups)\n", version3_forms().size(),
              chosen.size(), static_cast<long long>(warpgroups));
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
    EXPECT_TRUE(failed_waits(programs[i], cpu[i]).empty()) << programs[i].name << ": an mbarrier phase did not complete";
  }
  const std::string self = std::string(D4R_BINARY_DIR) + "/tests/d4r-ptxgen-check";
  for (const TranslateFailure& failure : translate_for_targets(self, first, count, options, {"gfx1100", "gfx1201"})) {
    ADD_FAILURE() << failure.target << " r" << failure.seed << ": " << failure.message;
  }
}

TEST(RandomPrograms, ANanPayloadDifferenceIsToldFromAWrongValue)
{
  auto slot_of = [](SlotType type) {
    Slot slot;
    slot.type = type;
    return slot;
  };
  // Two quiet NaNs, a signalling and a quiet one, NaNs of opposite signs: payloads only.
  EXPECT_TRUE(differs_only_in_nan_payload(slot_of(SlotType::f32), Difference{0, 0, 0x7f812345, 0x7fffffff}));
  EXPECT_TRUE(differs_only_in_nan_payload(slot_of(SlotType::f64),
                                          Difference{0, 0, 0x7ff4000000000001, 0xfff8000000000000}));
  EXPECT_TRUE(differs_only_in_nan_payload(slot_of(SlotType::bf16), Difference{0, 0, 0x7fc1, 0xffc0}));
  // f16x2: one half the same, the other two NaNs.
  EXPECT_TRUE(differs_only_in_nan_payload(slot_of(SlotType::f16x2), Difference{0, 0, 0x3c007e00, 0x3c007fff}));
  // A NaN against a number or an infinity, a number against a number: wrong values.
  EXPECT_FALSE(differs_only_in_nan_payload(slot_of(SlotType::f32), Difference{0, 0, 0x7fc00000, 0x3f800000}));
  EXPECT_FALSE(differs_only_in_nan_payload(slot_of(SlotType::f32), Difference{0, 0, 0x7fc00000, 0x7f800000}));
  EXPECT_FALSE(differs_only_in_nan_payload(slot_of(SlotType::f64),
                                           Difference{0, 0, 0x3ff0000000000000, 0x3ff0000000000001}));
  EXPECT_FALSE(differs_only_in_nan_payload(slot_of(SlotType::f16x2), Difference{0, 0, 0x3c017e00, 0x3c007fff}));
  // Bits and integers are compared as bits, whatever they look like.
  EXPECT_FALSE(differs_only_in_nan_payload(slot_of(SlotType::b32), Difference{0, 0, 0x7f812345, 0x7fffffff}));
  // No difference at all is not a payload difference.
  EXPECT_FALSE(differs_only_in_nan_payload(slot_of(SlotType::f32), Difference{0, 0, 0x7fffffff, 0x7fffffff}));
}

} // namespace
