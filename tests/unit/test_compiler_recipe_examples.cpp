// The example native kernels of kernels/examples, built as their recipes say without the daemon:
// for every target a recipe builds and both modes, clang-19 compiles the source with exactly the
// flags make_compile_job gives (the clang backend's command line), then the code object's metadata
// (amdhsa target, kernels, wave size, contract symbols) and an expected instruction in its
// disassembly are checked. One test per example, so that ctest can run two at once.

#include "compiler/launch_meta.hpp"
#include "compiler/recipe.hpp"

#include "test_compiler_recipe_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using d4r::Mode;
using d4r::compiler::CompileJob;
using d4r::compiler::LaunchMeta;
using d4r::compiler::read_launch_meta;
using d4r::compiler::Recipe;
using d4r_test::read_file;
using d4r_test::TempDir;

const fs::path k_recipes_dir = D4R_RECIPES_DIR;

// One build of an example: what a check looks at.
struct Build {
  std::string target;
  Mode mode = Mode::fast;
  CompileJob job;
  std::vector<std::byte> code_object;
  std::string disassembly;
};

std::string quote(const std::string& text)
{
  return "'" + text + "'";
}

bool run(const std::string& command, const fs::path& log)
{
  std::string line = command + " > " + quote(log.string()) + " 2>&1";
  bool ok = std::system(line.c_str()) == 0;
  EXPECT_TRUE(ok) << line << "\n" << read_file(log);
  return ok;
}

std::vector<std::byte> to_bytes(const std::string& text)
{
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

// The clang backend's command line for a job (issue 3's plan): HIP device-only, no GPU headers or
// libraries, the job's flags, wave64 when asked.
bool build(const CompileJob& job, const fs::path& dir, Build& out)
{
  fs::path object = dir / (job.target + ".hsaco");
  std::string command = std::string(D4R_CLANG) + " -x hip --offload-arch=" + job.target +
                        " --offload-device-only -nogpulib -nogpuinc";
  for (const std::string& flag : job.flags) {
    command += " " + quote(flag);
  }
  if (job.wave64) {
    command += " -mwavefrontsize64";
  }
  command +=
      " -o " + quote(object.string()) + " --no-gpu-bundle-output " + quote(job.source.string());
  if (!run(command, dir / "clang.log")) {
    return false;
  }
  fs::path listing = dir / "disassembly.txt";
  if (!run(std::string(D4R_LLVM_OBJDUMP) + " -d --mcpu=" + job.target + " " +
               quote(object.string()),
           listing)) {
    return false;
  }
  out.job = job;
  out.code_object = to_bytes(read_file(object));
  out.disassembly = read_file(listing);
  return true;
}

const Recipe* find_recipe(const std::vector<Recipe>& recipes, const std::string& name)
{
  auto it = std::ranges::find(recipes, name, &Recipe::name);
  return it != recipes.end() ? &*it : nullptr;
}

// Builds recipe `name` for each of its targets in both modes and runs `check` on every build,
// after the checks every example shares: the amdhsa target and the main kernel's presence.
void for_each_build(const std::string& name, const std::function<void(const Build&)>& check)
{
  d4r::Expected<std::vector<Recipe>> recipes = d4r::compiler::load_recipes(k_recipes_dir);
  ASSERT_TRUE(recipes) << recipes.error().message;
  const Recipe* recipe = find_recipe(*recipes, name);
  ASSERT_NE(recipe, nullptr) << "no recipe " << name;
  ASSERT_EQ(recipe->targets.size(), d4r::k_known_targets.size()) << "examples build all six";
  TempDir dir("test_compiler_recipe_examples");
  for (const std::string& target : recipe->targets) {
    for (Mode mode : {Mode::fast, Mode::accuracy}) {
      SCOPED_TRACE(name + " " + target + " " + d4r::to_string(mode));
      d4r::Expected<CompileJob> job = d4r::compiler::make_compile_job(*recipe, target, mode);
      ASSERT_TRUE(job) << job.error().message;
      fs::path build_dir = dir.path() / (target + "-" + d4r::to_string(mode));
      fs::create_directories(build_dir);
      Build result{target, mode, {}, {}, {}};
      ASSERT_TRUE(build(*job, build_dir, result));
      std::string main_kernel = recipe->kernels.empty() ? std::string() : recipe->kernels.front();
      if (!main_kernel.empty()) {
        d4r::Expected<LaunchMeta> meta = read_launch_meta(result.code_object, main_kernel);
        ASSERT_TRUE(meta) << meta.error().message;
        EXPECT_EQ(meta->amdhsa_target, "amdgcn-amd-amdhsa--" + target);
      }
      check(result);
    }
  }
}

LaunchMeta meta_of(const Build& build, const std::string& kernel)
{
  d4r::Expected<LaunchMeta> meta = read_launch_meta(build.code_object, kernel);
  EXPECT_TRUE(meta) << kernel << ": " << meta.error().message;
  return meta.value_or(LaunchMeta{});
}

bool has(const std::string& text, const std::string& needle)
{
  return text.find(needle) != std::string::npos;
}

TEST(RecipeExamples, EveryShippedRecipeHasACheckHere)
{
  d4r::Expected<std::vector<Recipe>> recipes = d4r::compiler::load_recipes(k_recipes_dir);
  ASSERT_TRUE(recipes) << recipes.error().message;
  std::vector<std::string> names;
  for (const Recipe& recipe : *recipes) {
    names.push_back(recipe.name);
  }
  EXPECT_EQ(names, (std::vector<std::string>{"d4r_example_accuracy", "d4r_example_fp8",
                                             "d4r_example_layer", "d4r_example_variant",
                                             "d4r_example_wave64"}));
}

TEST(RecipeExamples, LayerHasTheWholeContract)
{
  for_each_build("d4r_example_layer", [](const Build& build) {
    LaunchMeta meta = meta_of(build, "d4r_example_layer");
    EXPECT_EQ(meta.main.wave_size, 32U);
    EXPECT_GE(meta.main.lds_bytes, 1024U) << "the main kernel stages through LDS";
    EXPECT_EQ(meta.main.kernarg_size, 28U);
    ASSERT_TRUE(meta.prep.has_value());
    EXPECT_EQ(meta.prep->name, "d4r_example_layer_prep");
    EXPECT_EQ(meta.prep_blocks, 12U);
    EXPECT_EQ(meta.prep_key_offset, 64U);
    EXPECT_EQ(meta.prep_key_at, 17U);
    EXPECT_EQ(meta.prep_key_slots, 4U);
    EXPECT_EQ(meta.prep_identity_at, 80U);
    EXPECT_EQ(meta.block_z, 2U);
    // The source's gfx1101 flag line defines D4R_EXAMPLE_TUNED, which doubles the grid.
    EXPECT_EQ(meta.grid_x, build.target == "gfx1101" ? 176U : 88U);
    ASSERT_EQ(meta.posts.size(), 2U);
    EXPECT_EQ(meta.posts[0].name, "d4r_example_layer_post1");
    EXPECT_EQ(meta.posts[0].grid_x, 5U);
    EXPECT_EQ(meta.posts[0].grid_y, 6U);
    EXPECT_EQ(meta.posts[0].block_x, 96U);
    EXPECT_EQ(meta.posts[0].block_y, 3U);
    EXPECT_EQ(meta.posts[0].block_z, 7U);
    EXPECT_EQ(meta.posts[1].name, "d4r_example_layer_post2");
    EXPECT_EQ(meta.posts[1].grid_x, 10U);
    EXPECT_EQ(meta.posts[1].grid_y, 11U);
    EXPECT_EQ(meta.posts[1].block_x, 64U);
    EXPECT_EQ(meta.posts[1].block_y, 2U);
    EXPECT_EQ(meta.posts[1].block_z, 1U);
    EXPECT_TRUE(has(build.disassembly, "s_barrier"));
    EXPECT_TRUE(has(build.disassembly, "ds_store_b32")) << "no LDS store";
    bool gfx12 = build.target.starts_with("gfx12");
    EXPECT_EQ(std::ranges::count(build.job.flags, "-mcumode"), gfx12 ? 1 : 0);
  });
}

TEST(RecipeExamples, Wave64InFastBuildsOnly)
{
  for_each_build("d4r_example_wave64", [](const Build& build) {
    LaunchMeta meta = meta_of(build, "d4r_example_wave64");
    bool fast = build.mode == Mode::fast;
    EXPECT_EQ(build.job.wave64, fast);
    EXPECT_EQ(meta.main.wave_size, fast ? 64U : 32U);
    // The divergent branch restores a 64-bit exec mask in wave64, exec_lo in wave32.
    EXPECT_EQ(has(build.disassembly, "s_or_b64 exec, exec"), fast);
    EXPECT_EQ(has(build.disassembly, "s_or_b32 exec_lo, exec_lo"), !fast);
  });
}

TEST(RecipeExamples, AccuracyBuildDividesExactly)
{
  for_each_build("d4r_example_accuracy", [](const Build& build) {
    LaunchMeta meta = meta_of(build, "d4r_example_accuracy");
    EXPECT_EQ(meta.main.wave_size, 32U);
    bool accuracy = build.mode == Mode::accuracy;
    EXPECT_EQ(std::ranges::count(build.job.flags, "-DD4R_ACCURACY"), accuracy ? 1 : 0);
    EXPECT_TRUE(has(build.disassembly, "v_rcp_f32"));
    EXPECT_EQ(has(build.disassembly, "v_div_fixup_f32"), accuracy);
    EXPECT_EQ(has(build.disassembly, "v_div_scale_f32"), accuracy);
  });
}

TEST(RecipeExamples, Fp8UsesHardwareConversionOnGfx12Only)
{
  const std::regex fp8_conversion("v_cvt_[a-z0-9_]*fp8");
  for_each_build("d4r_example_fp8", [&fp8_conversion](const Build& build) {
    LaunchMeta meta = meta_of(build, "d4r_example_fp8");
    EXPECT_EQ(meta.main.wave_size, 32U);
    bool gfx12 = build.target.starts_with("gfx12");
    EXPECT_EQ(has(build.disassembly, "v_cvt_pk_f32_fp8"), gfx12);
    EXPECT_EQ(std::regex_search(build.disassembly, fp8_conversion), gfx12);
    if (!gfx12) {
      // The software decode: exponent and mantissa fields shifted into an f32.
      EXPECT_TRUE(has(build.disassembly, "v_lshlrev_b32") ||
                  has(build.disassembly, "v_lshl_or_b32"));
    }
  });
}

TEST(RecipeExamples, VariantFamilyInOneObject)
{
  for_each_build("d4r_example_variant", [](const Build& build) {
    for (const std::string variant : {"hdr", "ldr", "hdr_v2"}) {
      LaunchMeta meta = meta_of(build, "d4r_example_variant_" + variant);
      EXPECT_EQ(meta.amdhsa_target, "amdgcn-amd-amdhsa--" + build.target);
      EXPECT_FALSE(meta.prep.has_value());
    }
    d4r::Expected<LaunchMeta> absent = read_launch_meta(build.code_object, "d4r_example_variant_x");
    EXPECT_FALSE(absent) << "the pattern serves names the object lacks: the reader must refuse";
    EXPECT_TRUE(has(build.disassembly, "v_mul_f32"));
  });
}

} // namespace
