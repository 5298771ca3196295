// `d4r-kernel warm`'s local parts: its command line, the RR/SR split of its inputs, reading the
// modules of real nvcc fatbins, and the progress bar's text and redraws.

#include "cli/options.hpp"
#include "cli/progress_bar.hpp"
#include "cli/warm_inputs.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace d4r::cli {
namespace {

using namespace std::chrono_literals;

Expected<ParsedCommand> parse(std::vector<std::string> args)
{
  Environment env;
  env.xdg_runtime_dir = "/run/user/1000";
  return parse_command_line(args, env);
}

TEST(WarmOptions, ParsesFilesTargetsModesAndTheRrDll)
{
  Expected<ParsedCommand> parsed =
      parse({"warm", "nvngx_dlss.dll", "--rr-dll", "denoiser.bin", "NVNGX_DLSSD.DLL", "--targets",
             "gfx1100,gfx1201,gfx1100", "--mode", "both", "--no-fp8"});
  ASSERT_TRUE(parsed) << parsed.error().message;
  const auto& cmd = std::get<WarmCommand>(parsed->command);
  ASSERT_EQ(cmd.files.size(), 3u);
  EXPECT_EQ(cmd.files[0].path, "nvngx_dlss.dll");
  EXPECT_EQ(cmd.files[0].origin, WarmOrigin::super_resolution);
  EXPECT_EQ(cmd.files[1].path, "NVNGX_DLSSD.DLL");
  EXPECT_EQ(cmd.files[1].origin, WarmOrigin::ray_reconstruction) << "the denoiser DLL by its name";
  EXPECT_EQ(cmd.files[2].path, "denoiser.bin");
  EXPECT_EQ(cmd.files[2].origin, WarmOrigin::ray_reconstruction);
  EXPECT_EQ(cmd.targets, (std::vector<std::string>{"gfx1100", "gfx1201"}));
  EXPECT_EQ(cmd.modes, (std::vector<Mode>{Mode::fast, Mode::accuracy}));
  EXPECT_FALSE(cmd.fp8_native);
  EXPECT_TRUE(cmd.native_swin_encoders);
}

TEST(WarmOptions, AllTargetsAndBadValues)
{
  Expected<ParsedCommand> all = parse({"warm", "a.dll", "--targets=all"});
  ASSERT_TRUE(all) << all.error().message;
  EXPECT_EQ(std::get<WarmCommand>(all->command).targets.size(), 6u);
  EXPECT_TRUE(std::get<WarmCommand>(all->command).modes.empty()) << "the daemon's default mode";
  EXPECT_FALSE(parse({"warm"})) << "no FILE";
  EXPECT_FALSE(parse({"warm", "a.dll", "--targets", "gfx9000"}));
  EXPECT_FALSE(parse({"warm", "a.dll", "--targets", ","}));
  EXPECT_FALSE(parse({"warm", "a.dll", "--mode", "fastest"}));
  EXPECT_FALSE(parse({"warm", "a.dll", "--max-decompressed", "12Q"}));
  EXPECT_FALSE(parse({"warm", "a.dll", "--kernel", "x"})) << "not a warm option";
  Expected<ParsedCommand> sized = parse({"warm", "a.dll", "--max-decompressed", "64M"});
  ASSERT_TRUE(sized);
  EXPECT_EQ(std::get<WarmCommand>(sized->command).max_decompressed, int64_t{64} << 20);
}

TEST(WarmInputs, TheRrSrSplitAsTheManifestToolMakesIt)
{
  EXPECT_TRUE(origin_authorises(WarmOrigin::ray_reconstruction, "cuda_dldn_engine_swin_enc0_kernel"));
  EXPECT_FALSE(origin_authorises(WarmOrigin::ray_reconstruction, "dl4rt_input_kernel"));
  EXPECT_TRUE(origin_authorises(WarmOrigin::super_resolution, "dl4rt_input_kernel"));
  EXPECT_FALSE(origin_authorises(WarmOrigin::super_resolution, "cuda_dldn_engine_swin_enc0_kernel"));
}

// nvcc's own fatbins (tests/fixtures/fatbin/README.md gives their hashes, computed apart from our
// reader): the modules, once each, with every entry of an SR input and none of an RR one.
TEST(WarmInputs, ReadsTheModulesOfRealFatbins)
{
  std::string dir = D4R_TEST_SOURCE_DIR "/fixtures/fatbin/";
  WarmCommand cmd;
  cmd.files = {{dir + "fatbin_kernels.default.fatbin", WarmOrigin::super_resolution},
               {dir + "fatbin_kernels.speed.fatbin", WarmOrigin::super_resolution},
               {dir + "multi_arch.fatbin", WarmOrigin::ray_reconstruction}};
  Expected<WarmInputs> inputs = read_warm_inputs(cmd);
  ASSERT_TRUE(inputs) << inputs.error().message;
  EXPECT_EQ(inputs->files, 3);
  ASSERT_EQ(inputs->modules.size(), 3u) << "ZSTD and LZ4 give the same module: once";
  EXPECT_EQ(inputs->modules[0].fnv1a64, 0x82ae23aab5d00154ULL);
  EXPECT_EQ(inputs->modules[0].bytes, 8182);
  EXPECT_EQ(inputs->modules[0].entries.size(), 3u);
  EXPECT_EQ(inputs->modules[0].entries[0], "fatbin_scale");
  EXPECT_EQ(inputs->modules[1].fnv1a64, 0x499dc26a793a24d4ULL);
  EXPECT_EQ(inputs->modules[2].fnv1a64, 0xf66045ac7d23f1e3ULL);
  EXPECT_TRUE(inputs->modules[1].entries.empty()) << "an RR input authorises no SR name";
  EXPECT_EQ(inputs->modules[1].split_out, 2);
  EXPECT_EQ(inputs->skipped_entries, 4) << "multi_arch.fatbin's four cubins";

  std::vector<uint64_t> uploaded;
  Expected<void> walked = for_each_wanted_module(
      cmd, {0xf66045ac7d23f1e3ULL}, [&](const WarmModuleInput& module, std::string_view text) {
        uploaded.push_back(module.fnv1a64);
        EXPECT_EQ(static_cast<int64_t>(text.size()), module.bytes);
        return Expected<void>{};
      });
  ASSERT_TRUE(walked);
  EXPECT_EQ(uploaded, std::vector<uint64_t>{0xf66045ac7d23f1e3ULL});
  cmd.files.push_back({dir + "missing.fatbin", WarmOrigin::super_resolution});
  EXPECT_FALSE(read_warm_inputs(cmd));
}

TEST(ProgressBar, LineCountsFailuresAndEstimate)
{
  ProgressCounts counts{40, 12, 2, 1, 2, 20s};
  std::string line = progress_line(counts, 100);
  EXPECT_NE(line.find("warm ["), std::string::npos) << line;
  EXPECT_NE(line.find("] 12/40"), std::string::npos) << line;
  EXPECT_NE(line.find("1 failed"), std::string::npos) << line;
  EXPECT_NE(line.find("2 running"), std::string::npos) << line;
  // 10 done by this run in 20 s: the other 28 take 56 s.
  EXPECT_NE(line.find("0:20, about 0:56 left"), std::string::npos) << line;
  EXPECT_LE(static_cast<int>(progress_line(counts, 30).size()), 30) << "never wraps";
  EXPECT_EQ(estimate_left(ProgressCounts{10, 4, 4, 0, 0, 1s}), std::nullopt)
      << "only cache hits so far: no rate";
  EXPECT_EQ(format_duration(3723s), "1:02:03");
  size_t hashes = std::count(line.begin(), line.end(), '#');
  size_t dots = std::count(line.begin(), line.end(), '.');
  EXPECT_EQ(hashes * 40 / (hashes + dots) / 12, 1u) << line; // about 12/40 of the bar filled
}

TEST(ProgressBar, RedrawsOnATerminalOnly)
{
  std::ostringstream terminal;
  ProgressBar bar(terminal, true, 60);
  bar.update(ProgressCounts{4, 1, 0, 0, 1, 1s});
  bar.print_line("failed k for gfx1100 (fast): no");
  bar.update(ProgressCounts{4, 2, 0, 1, 0, 2s});
  bar.finish();
  std::string text = terminal.str();
  EXPECT_EQ(text.find("\r\x1b[K"), 0u) << "each draw starts at the line's beginning";
  EXPECT_NE(text.find("\r\x1b[Kfailed k for gfx1100 (fast): no\nwarm ["), std::string::npos) << text;
  EXPECT_NE(text.find("] 2/4"), std::string::npos);
  EXPECT_EQ(text.back(), '\n');

  std::ostringstream plain;
  ProgressBar lines(plain, false, 60);
  lines.update(ProgressCounts{4, 1, 0, 0, 1, 1s});
  lines.print_line("built k");
  lines.finish();
  EXPECT_EQ(plain.str(), "built k\n") << "no control characters in a file";
}

} // namespace
} // namespace d4r::cli
