// The golden vectors (tests/golden/README.md): every case's PTX is parsed, translated for the host
// (translate/translator.hpp, TargetKind::host), run by the CPU executor (cpu/executor.hpp) with the
// inputs launch_case generates from the case's seeds, and each output is compared with what an
// NVIDIA H200 computed (tests/golden/expected/, recorded by tools/golden/record.sh): bit for bit
// unless the case names a tolerance, with its reason, on a `compare` line.
//
// The cases run in the accuracy set; those whose kernel the fast set translates differently (f32
// denormals flushed by the float mode around matrix products) run in the fast set too.
//
// A case with `expect = trap` failed its launch on the GPU (expected/<case>.trap holds the driver's
// error): the executor must fail the launch with a trap too. A case that does not translate fails.

#include "compiler/cpu/executor.hpp"
#include "compiler/cpu/expected_output.hpp"
#include "compiler/cpu/launch_case.hpp"
#include "compiler/ptx_build.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/translate/denormal_mode.hpp"
#include "compiler/translate/translator.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace {

using namespace d4r::compiler;
namespace fs = std::filesystem;

const fs::path k_repo = fs::path(D4R_TEST_SOURCE_DIR).parent_path();
const fs::path k_golden = fs::path(D4R_TEST_SOURCE_DIR) / "golden";

std::vector<std::byte> read_bytes(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  const std::string text = out.str();
  std::vector<std::byte> bytes(text.size());
  std::transform(text.begin(), text.end(), bytes.begin(), [](char c) { return static_cast<std::byte>(c); });
  return bytes;
}

std::vector<std::string> case_names()
{
  std::vector<std::string> names;
  for (const fs::directory_entry& entry : fs::directory_iterator(k_golden / "cases")) {
    if (entry.path().extension() == ".case") {
      names.push_back(entry.path().stem().string());
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::string text_of(const fs::path& path)
{
  const std::vector<std::byte> bytes = read_bytes(path);
  return std::string(reinterpret_cast<const char*>(bytes.data()), bytes.size());
}

// The cases whose kernel the fast set runs with f32 denormals flushed and the accuracy set does
// not (translate/denormal_mode.hpp: .ftz kernels with f32 matrix products). Every other case's
// translation is the same in both sets.
std::vector<std::string> fast_set_cases()
{
  std::map<std::string, std::pair<std::set<std::string>, std::set<std::string>>> modules;
  std::vector<std::string> names;
  for (const std::string& name : case_names()) {
    d4r::Expected<cpu::LaunchCase> parsed = cpu::read_launch_case(k_golden / "cases" / (name + ".case"));
    if (!parsed) {
      continue; // ExecutorMatchesNvidia reports it
    }
    auto [module, inserted] = modules.try_emplace(parsed->ptx);
    if (inserted) {
      d4r::Expected<ptx::Module> ptx = ptx::parse_module(text_of(k_repo / parsed->ptx));
      if (ptx) {
        module->second = {translate::functions_flushing_f32(*ptx, translate::FloatPolicy::accuracy),
                          translate::functions_flushing_f32(*ptx, translate::FloatPolicy::fast)};
      }
    }
    const auto& [accuracy, fast] = module->second;
    if (fast.contains(parsed->kernel) && !accuracy.contains(parsed->kernel)) {
      names.push_back(name);
    }
  }
  return names;
}

void run_case(const std::string& name, translate::FloatPolicy policy)
{
  d4r::Expected<cpu::LaunchCase> parsed = cpu::read_launch_case(k_golden / "cases" / (name + ".case"));
  ASSERT_TRUE(parsed.has_value()) << parsed.error().message;
  const cpu::LaunchCase& launch_case = *parsed;
  const std::string ptx_text = text_of(k_repo / launch_case.ptx);
  ASSERT_FALSE(ptx_text.empty()) << launch_case.ptx;
  // The kernel as the daemon builds it: only its entry is kept (compiler/ptx_build.hpp).
  d4r::compiler::PtxBuild build;
  build.entry = launch_case.kernel;
  build.float_policy = policy;
  std::string log;
  d4r::Expected<translate::Translation> translation =
      d4r::compiler::translate_ptx(ptx_text, build, translate::TargetKind::host, log);
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  d4r::Expected<std::unique_ptr<cpu::Executor>> executor = cpu::Executor::create(std::move(*translation));
  ASSERT_TRUE(executor.has_value()) << executor.error().message;

  // `global` lines: written into the JIT's module variables as cuMemcpyHtoD wrote them on the GPU.
  d4r::Expected<void> globals = cpu::write_case_globals(**executor, launch_case);
  ASSERT_TRUE(globals.has_value()) << globals.error().message;
  const std::unique_ptr<cpu::HostLaunch> host = cpu::HostLaunch::create(launch_case);
  d4r::Expected<void> texrefs = cpu::write_case_texrefs(**executor, launch_case, *host);
  ASSERT_TRUE(texrefs.has_value()) << texrefs.error().message;
  cpu::LaunchShape shape;
  shape.grid = launch_case.grid;
  shape.block = launch_case.block;
  shape.dynamic_shared_bytes = launch_case.dynamic_shared;
  d4r::Expected<cpu::LaunchStats> stats = (*executor)->launch(launch_case.kernel, shape, host->params());
  if (launch_case.expect == cpu::Expect::trap) {
    const std::vector<std::byte> recorded = read_bytes(k_golden / "expected" / (launch_case.name + ".trap"));
    ASSERT_FALSE(recorded.empty()) << "no recorded GPU failure for " << launch_case.name;
    ASSERT_FALSE(stats.has_value()) << "the GPU trapped, the executor completed the launch";
    EXPECT_NE(stats.error().message.find("trap"), std::string::npos) << stats.error().message;
    return;
  }
  ASSERT_TRUE(stats.has_value()) << stats.error().message;
  for (size_t i = 0; i < launch_case.outputs.size(); ++i) {
    d4r::Expected<std::vector<std::byte>> expected =
        cpu::read_expected_output(k_golden / "expected", launch_case.name, static_cast<int64_t>(i));
    ASSERT_TRUE(expected.has_value()) << expected.error().message;
    d4r::Expected<void> same =
        cpu::compare_output(launch_case, static_cast<int64_t>(i), *expected, host->output_bytes(static_cast<int64_t>(i)));
    EXPECT_TRUE(same.has_value()) << same.error().message;
  }
}

class GoldenVectors : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenVectors, ExecutorMatchesNvidia)
{
  run_case(GetParam(), translate::FloatPolicy::accuracy);
}

INSTANTIATE_TEST_SUITE_P(Cases, GoldenVectors, ::testing::ValuesIn(case_names()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

// The fast set's translation, where it differs, gives NVIDIA's outputs too: every output bit for
// bit (or within the case's tolerance), NaNs included.
class FastSetGoldenVectors : public ::testing::TestWithParam<std::string> {};

TEST_P(FastSetGoldenVectors, ExecutorMatchesNvidia)
{
  run_case(GetParam(), translate::FloatPolicy::fast);
}

INSTANTIATE_TEST_SUITE_P(Cases, FastSetGoldenVectors, ::testing::ValuesIn(fast_set_cases()),
                         [](const ::testing::TestParamInfo<std::string>& param_info) { return param_info.param; });

} // namespace
