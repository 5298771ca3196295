// compiler/launch_meta: the reader on real code objects that clang-19 built from kernels/testdata/
// (the release fixture), on objects broken on purpose, and on bytes that are not code objects.

#include "compiler/launch_meta.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <span>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using d4r::ErrorCode;
using d4r::compiler::LaunchMeta;
using d4r::compiler::read_launch_meta;

const fs::path k_release = D4R_RELEASE_FIXTURE_DIR;
const std::vector<std::string> k_fast_targets = {"gfx1100", "gfx1101", "gfx1102",
                                                 "gfx1103", "gfx1200", "gfx1201"};

std::vector<std::byte> read_bytes(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << "cannot open " << path;
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

std::vector<std::byte> fixture_object(const std::string& folder, const std::string& kernel)
{
  return read_bytes(k_release / folder / (kernel + ".hsaco"));
}

d4r::Expected<LaunchMeta> read_fixture(const std::string& folder, const std::string& kernel)
{
  std::vector<std::byte> bytes = fixture_object(folder, kernel);
  return read_launch_meta(bytes, kernel);
}

fs::path make_temp_dir()
{
  std::string pattern = (fs::path(::testing::TempDir()) / "test_compiler_XXXXXX").string();
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  char* made = ::mkdtemp(buffer.data());
  EXPECT_NE(made, nullptr);
  return made != nullptr ? fs::path(made) : fs::path();
}

// The disassembly of a fixture object, by ${D4R_LLVM_OBJDUMP}.
std::string disassemble(const fs::path& object, const std::string& mcpu)
{
  fs::path dir = make_temp_dir();
  fs::path out = dir / "disassembly.txt";
  std::string command = std::string(D4R_LLVM_OBJDUMP) + " -d --mcpu=" + mcpu + " '" +
                        object.string() + "' > '" + out.string() + "' 2>&1";
  EXPECT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(out);
  std::ostringstream text;
  text << in.rdbuf();
  fs::remove_all(dir);
  return text.str();
}

TEST(LaunchMeta, LayerReadsEveryMainSymbol)
{
  d4r::Expected<LaunchMeta> meta = read_fixture("gfx1201", "d4r_test_layer");
  ASSERT_TRUE(meta) << meta.error().message;
  EXPECT_EQ(meta->prep_blocks, 12u);
  EXPECT_EQ(meta->prep_key_offset, 64u);
  EXPECT_EQ(meta->prep_key_at, 17u);
  EXPECT_EQ(meta->prep_key_slots, 4u);
  EXPECT_EQ(meta->prep_identity_at, 80u);
  EXPECT_EQ(meta->block_z, 2u);
  EXPECT_EQ(meta->grid_x, 88u);
  EXPECT_EQ(meta->main.name, "d4r_test_layer");
  ASSERT_TRUE(meta->prep.has_value());
  EXPECT_EQ(meta->prep->name, "d4r_test_layer_prep");
}

TEST(LaunchMeta, LayerPostsAndTheirDefaults)
{
  d4r::Expected<LaunchMeta> meta = read_fixture("gfx1201", "d4r_test_layer");
  ASSERT_TRUE(meta) << meta.error().message;
  // post4 exists and d4r_post4_grid_x is set, but post3 is missing: probing stops there.
  ASSERT_EQ(meta->posts.size(), 2u);
  const d4r::compiler::PostKernelMeta& post1 = meta->posts[0];
  EXPECT_EQ(post1.name, "d4r_test_layer_post1");
  EXPECT_EQ(post1.grid_x, 5u);
  EXPECT_EQ(post1.grid_y, 6u);
  EXPECT_EQ(post1.block_x, 96u);
  EXPECT_EQ(post1.block_y, 3u);
  EXPECT_EQ(post1.block_z, 7u);
  const d4r::compiler::PostKernelMeta& post2 = meta->posts[1];
  EXPECT_EQ(post2.name, "d4r_test_layer_post2");
  EXPECT_EQ(post2.grid_x, 10u);
  EXPECT_EQ(post2.grid_y, 11u);
  // block_x and block_z are absent, block_y is an explicit 0 in .bss: all take 32/1/1.
  EXPECT_EQ(post2.block_x, 32u);
  EXPECT_EQ(post2.block_y, 1u);
  EXPECT_EQ(post2.block_z, 1u);
}

TEST(LaunchMeta, LayerKernelResources)
{
  d4r::Expected<LaunchMeta> meta = read_fixture("gfx1201", "d4r_test_layer");
  ASSERT_TRUE(meta) << meta.error().message;
  // (const float*, float*, unsigned long long, unsigned): 8 + 8 + 8 + 4, no hidden arguments.
  EXPECT_EQ(meta->main.kernarg_size, 28u);
  EXPECT_EQ(meta->main.kernarg_align, 8u);
  EXPECT_EQ(meta->main.wave_size, 32u);
  EXPECT_EQ(meta->main.lds_bytes, 256u * sizeof(float)); // __shared__ float tile[256]
  EXPECT_EQ(meta->main.scratch_bytes, 0u);
  EXPECT_GT(meta->main.sgpr_count, 0u);
  EXPECT_GT(meta->main.vgpr_count, 0u);
  EXPECT_EQ(meta->main.max_workgroup_size, 1024u);
  ASSERT_TRUE(meta->prep.has_value());
  EXPECT_EQ(meta->prep->kernarg_size, 28u);
  EXPECT_EQ(meta->prep->lds_bytes, 0u);
  EXPECT_EQ(meta->prep->wave_size, 32u);
}

TEST(LaunchMeta, SimpleKernelHasOnlyDefaults)
{
  d4r::Expected<LaunchMeta> meta = read_fixture("gfx1101", "d4r_test_simple");
  ASSERT_TRUE(meta) << meta.error().message;
  EXPECT_EQ(meta->main.name, "d4r_test_simple");
  EXPECT_EQ(meta->main.kernarg_size, 12u); // (float*, float)
  EXPECT_EQ(meta->main.lds_bytes, 0u);
  EXPECT_FALSE(meta->prep.has_value());
  EXPECT_TRUE(meta->posts.empty());
  EXPECT_EQ(meta->prep_blocks, 0u);
  EXPECT_EQ(meta->prep_key_offset, 0u);
  EXPECT_EQ(meta->prep_key_at, 0u);
  EXPECT_EQ(meta->prep_key_slots, 0u);
  EXPECT_EQ(meta->prep_identity_at, 0u);
  EXPECT_EQ(meta->block_z, 0u);
  EXPECT_EQ(meta->grid_x, 0u);
}

// clang's HIP objects export more data symbols than module variables: the contract's d4r_*
// constants, each kernel's descriptor (NAME.kd) and __hip_cuid_*; none is a host variable. The
// translator's own variables are listed (test_compiler_translate_module_vars).
TEST(LaunchMeta, ContractDescriptorsAndCuidAreNotHostVariables)
{
  for (const char* folder : {"gfx1201", "gfx1201-fp8", "gfx1100"}) {
    for (const char* kernel : {"d4r_test_layer", "d4r_test_simple", "rrlite_enc1_4x4"}) {
      if (!fs::exists(k_release / folder / (std::string(kernel) + ".hsaco"))) {
        continue;
      }
      d4r::Expected<LaunchMeta> meta = read_fixture(folder, kernel);
      ASSERT_TRUE(meta) << meta.error().message;
      EXPECT_TRUE(meta->host_variables.empty())
          << folder << "/" << kernel << ": " << meta->host_variables.front().name;
    }
  }
}

TEST(LaunchMeta, PlainKernelsOfThePtxNames)
{
  for (const char* kernel :
       {"rrlite_enc1_4x4", "cuda_dldn_engine_test_kernel", "dl4rt_input_kernel"}) {
    d4r::Expected<LaunchMeta> meta = read_fixture("gfx1100", kernel);
    ASSERT_TRUE(meta) << meta.error().message;
    EXPECT_EQ(meta->main.name, kernel);
    EXPECT_EQ(meta->main.kernarg_size, 16u); // (float*, const float*)
    EXPECT_FALSE(meta->prep.has_value());
    EXPECT_TRUE(meta->posts.empty());
  }
}

TEST(LaunchMeta, TargetNamesTheFolderOfEveryBuild)
{
  std::vector<std::pair<std::string, std::string>> folders; // folder, target
  for (const std::string& target : k_fast_targets) {
    folders.emplace_back(target, target);
  }
  folders.emplace_back("gfx1200-fp8", "gfx1200");
  folders.emplace_back("gfx1201-fp8", "gfx1201");
  folders.emplace_back("accuracy/gfx1101", "gfx1101");
  folders.emplace_back("accuracy/gfx1201", "gfx1201");
  for (const auto& [folder, target] : folders) {
    for (const char* kernel : {"d4r_test_layer", "d4r_test_simple", "dl4rt_input_kernel"}) {
      d4r::Expected<LaunchMeta> meta = read_fixture(folder, kernel);
      ASSERT_TRUE(meta) << folder << "/" << kernel << ": " << meta.error().message;
      EXPECT_EQ(meta->amdhsa_target, "amdgcn-amd-amdhsa--" + target) << folder << "/" << kernel;
      EXPECT_EQ(meta->main.wave_size, 32u) << folder << "/" << kernel;
    }
  }
}

TEST(LaunchMeta, Fp8FolderHoldsItsOwnBuild)
{
  d4r::Expected<LaunchMeta> fp8 = read_fixture("gfx1201-fp8", "d4r_test_layer");
  d4r::Expected<LaunchMeta> plain = read_fixture("gfx1201", "d4r_test_layer");
  ASSERT_TRUE(fp8) << fp8.error().message;
  ASSERT_TRUE(plain) << plain.error().message;
  EXPECT_EQ(fp8->grid_x, 176u);
  EXPECT_EQ(plain->grid_x, 88u);
  EXPECT_EQ(fp8->block_z, plain->block_z);
}

TEST(LaunchMeta, ZeroPrepBlocksIsRejected)
{
  d4r::Expected<LaunchMeta> meta = read_fixture("gfx1101", "d4r_broken_prep");
  ASSERT_FALSE(meta);
  EXPECT_EQ(meta.error().code, ErrorCode::rejected);
  EXPECT_NE(meta.error().message.find("d4r_broken_prep_prep"), std::string::npos)
      << meta.error().message;
  EXPECT_NE(meta.error().message.find("d4r_prep_blocks is 0"), std::string::npos)
      << meta.error().message;
}

TEST(LaunchMeta, MissingMainKernelIsRejected)
{
  d4r::Expected<LaunchMeta> meta = read_fixture("gfx1101", "d4r_missing_main");
  ASSERT_FALSE(meta);
  EXPECT_EQ(meta.error().code, ErrorCode::rejected);
  EXPECT_NE(meta.error().message.find("kernel d4r_missing_main is not in the code object"),
            std::string::npos)
      << meta.error().message;
  // The object itself is fine: the kernel it does hold reads.
  std::vector<std::byte> bytes = fixture_object("gfx1101", "d4r_missing_main");
  EXPECT_TRUE(read_launch_meta(bytes, "d4r_missing_main_other"));
}

TEST(LaunchMeta, EightByteContractSymbolIsRejected)
{
  d4r::Expected<LaunchMeta> meta = read_fixture("gfx1201", "d4r_bad_symbol");
  ASSERT_FALSE(meta);
  EXPECT_EQ(meta.error().code, ErrorCode::rejected);
  EXPECT_NE(meta.error().message.find("symbol d4r_grid_x is 8 bytes"), std::string::npos)
      << meta.error().message;
}

TEST(LaunchMeta, EmptyAndRandomBytesAreCorrupt)
{
  EXPECT_EQ(read_launch_meta({}, "k").error().code, ErrorCode::corrupt);
  std::mt19937 random(20240601);
  for (size_t size : {1u, 4u, 63u, 64u, 65u, 4096u, 65536u}) {
    std::vector<std::byte> bytes(size);
    for (std::byte& b : bytes) {
      b = static_cast<std::byte>(random() & 0xff);
    }
    d4r::Expected<LaunchMeta> meta = read_launch_meta(bytes, "k");
    ASSERT_FALSE(meta) << size;
    EXPECT_EQ(meta.error().code, ErrorCode::corrupt) << size;
  }
}

TEST(LaunchMeta, EveryTruncationIsCorrupt)
{
  std::vector<std::byte> bytes = fixture_object("gfx1201", "d4r_test_layer");
  ASSERT_GT(bytes.size(), 1024u);
  ASSERT_TRUE(read_launch_meta(bytes, "d4r_test_layer"));
  // Section headers sit at the end of the file, so every shorter prefix loses some of them.
  for (size_t length = 0; length < bytes.size(); ++length) {
    std::span<const std::byte> prefix(bytes.data(), length);
    d4r::Expected<LaunchMeta> meta = read_launch_meta(prefix, "d4r_test_layer");
    ASSERT_FALSE(meta) << "length " << length;
    ASSERT_EQ(meta.error().code, ErrorCode::corrupt) << "length " << length;
  }
}

TEST(LaunchMeta, HostElfIsCorrupt)
{
  std::vector<std::byte> bytes = read_bytes("/bin/true");
  ASSERT_FALSE(bytes.empty());
  d4r::Expected<LaunchMeta> meta = read_launch_meta(bytes, "main");
  ASSERT_FALSE(meta);
  EXPECT_EQ(meta.error().code, ErrorCode::corrupt);
  EXPECT_NE(meta.error().message.find("not an AMDGPU code object"), std::string::npos)
      << meta.error().message;
}

TEST(LaunchMeta, DamagedMetadataNoteIsCorrupt)
{
  std::vector<std::byte> bytes = fixture_object("gfx1201", "d4r_test_layer");
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  size_t at = text.find("amdhsa.kernels");
  ASSERT_NE(at, std::string_view::npos);
  // Renaming the key leaves valid msgpack without a kernel list.
  bytes[at] = std::byte{'X'};
  d4r::Expected<LaunchMeta> renamed = read_launch_meta(bytes, "d4r_test_layer");
  ASSERT_FALSE(renamed);
  EXPECT_EQ(renamed.error().code, ErrorCode::corrupt);
  EXPECT_NE(renamed.error().message.find("amdhsa.kernels"), std::string::npos)
      << renamed.error().message;
  // A 0xc1 byte (never used in msgpack) in front of the key breaks the document.
  bytes[at] = std::byte{'a'};
  bytes[at - 1] = std::byte{0xc1};
  d4r::Expected<LaunchMeta> garbled = read_launch_meta(bytes, "d4r_test_layer");
  ASSERT_FALSE(garbled);
  EXPECT_EQ(garbled.error().code, ErrorCode::corrupt);
}

TEST(LaunchMeta, FlippedBytesNeverCrash)
{
  std::vector<std::byte> pristine = fixture_object("gfx1201", "d4r_test_layer");
  std::mt19937 random(7);
  int failures = 0;
  for (int round = 0; round < 2000; ++round) {
    std::vector<std::byte> bytes = pristine;
    for (int flip = 0; flip < 4; ++flip) {
      bytes[random() % bytes.size()] = static_cast<std::byte>(random() & 0xff);
    }
    d4r::Expected<LaunchMeta> meta = read_launch_meta(bytes, "d4r_test_layer");
    if (!meta) {
      ++failures;
      EXPECT_TRUE(meta.error().code == ErrorCode::corrupt ||
                  meta.error().code == ErrorCode::rejected)
          << meta.error().message;
    }
  }
  EXPECT_GT(failures, 0); // the damage reaches what the reader checks
  RecordProperty("failed_reads", failures);
}

TEST(LaunchMeta, AccuracyBuildDiffersFromFast)
{
  std::vector<std::byte> fast = fixture_object("gfx1201", "d4r_test_layer");
  std::vector<std::byte> accuracy = fixture_object("accuracy/gfx1201", "d4r_test_layer");
  EXPECT_NE(fast, accuracy);
  d4r::Expected<LaunchMeta> meta = read_launch_meta(accuracy, "d4r_test_layer");
  ASSERT_TRUE(meta) << meta.error().message;
  EXPECT_EQ(meta->grid_x, 88u);
  EXPECT_EQ(meta->posts.size(), 2u);
}

TEST(LaunchMeta, DisassemblyShowsEachArithmeticPath)
{
  std::string fast = disassemble(k_release / "gfx1201" / "d4r_test_layer.hsaco", "gfx1201");
  std::string accuracy =
      disassemble(k_release / "accuracy" / "gfx1201" / "d4r_test_layer.hsaco", "gfx1201");
  EXPECT_NE(fast.find("<d4r_test_layer>:"), std::string::npos) << fast;
  EXPECT_NE(fast.find("s_endpgm"), std::string::npos);
  EXPECT_NE(fast.find("v_rcp_f32"), std::string::npos);
  EXPECT_NE(fast.find("ds_store_b32"), std::string::npos); // the LDS tile
  EXPECT_EQ(fast.find("v_div_scale_f32"), std::string::npos);
  EXPECT_NE(accuracy.find("v_div_scale_f32"), std::string::npos); // IEEE division
  EXPECT_NE(accuracy.find("v_div_fixup_f32"), std::string::npos);
}

} // namespace
