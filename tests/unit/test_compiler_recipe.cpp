// compiler/recipe: the recipe parser (good files, and bad ones with the file and line in the
// message), which names a recipe serves, the compile job of every (target, mode), the fingerprint
// that goes into the cache key, and loading a folder (the shipped kernels/recipes among them).

#include "compiler/recipe.hpp"
#include "compiler/translate/translator_fingerprint.hpp"

#include "test_compiler_recipe_support.hpp"
#include "util/digest.hpp"
#include "util/kernel_identity.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using d4r::ErrorCode;
using d4r::Mode;
using d4r::compiler::CompileJob;
using d4r::compiler::load_recipes;
using d4r::compiler::make_compile_job;
using d4r::compiler::parse_recipe;
using d4r::compiler::Recipe;
using d4r::compiler::recipe_fingerprint;
using d4r::compiler::recipe_serves;
using d4r_test::read_file;
using d4r_test::TempDir;
using d4r_test::write_file;

const fs::path k_recipes_dir = D4R_RECIPES_DIR;
const fs::path k_sr_module = fs::path(D4R_TEST_SOURCE_DIR) / "ptx" / "sr_module.ptx";
const std::vector<std::string> k_all_targets = {"gfx1100", "gfx1101", "gfx1102",
                                                "gfx1103", "gfx1200", "gfx1201"};

constexpr std::string_view k_minimal = "recipe = r\n"
                                       "version = 1\n"
                                       "kernels = k\n"
                                       "modules = 8baeb925f177af87\n"
                                       "source = src/k.hip\n";

class RecipeTest : public ::testing::Test {
protected:
  void SetUp() override { write_file(dir() / "src" / "k.hip", "// kernel\n"); }
  [[nodiscard]] const fs::path& dir() const { return m_dir.path(); }
  [[nodiscard]] fs::path recipe_path() const { return dir() / "r.recipe"; }
  d4r::Expected<Recipe> parse(std::string_view text) const
  {
    return parse_recipe(text, recipe_path());
  }

private:
  TempDir m_dir{"test_compiler_recipe"};
};

TEST_F(RecipeTest, ParsesEveryKey)
{
  d4r::Expected<Recipe> recipe = parse("# a family\n"
                                       "recipe = fam_1   # its name\n"
                                       "version = 7\n"
                                       "kernels = a b\n"
                                       "kernels = c\n"
                                       "patterns = fam_* x?y\n"
                                       "modules = 8baeb925f177af87 26332C9543501CE9\n"
                                       "\n"
                                       "source = src/../src/k.hip\n"
                                       "language = hip\n"
                                       "targets = gfx1101\n"
                                       "targets = gfx1201\n"
                                       "accuracy_define = MY_ACC\n"
                                       "wave64 = fast\n"
                                       "flags = -mcumode -DX=1\n"
                                       "flags = -O2\r\n");
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_EQ(recipe->name, "fam_1");
  EXPECT_EQ(recipe->version, 7);
  EXPECT_EQ(recipe->kernels, (std::vector<std::string>{"a", "b", "c"}));
  EXPECT_EQ(recipe->patterns, (std::vector<std::string>{"fam_*", "x?y"}));
  EXPECT_EQ(recipe->module_hashes,
            (std::vector<uint64_t>{0x8baeb925f177af87ULL, 0x26332c9543501ce9ULL}));
  EXPECT_EQ(recipe->recipe_path, recipe_path());
  EXPECT_EQ(recipe->source, (dir() / "src" / "k.hip").lexically_normal());
  EXPECT_TRUE(recipe->source.is_absolute());
  EXPECT_EQ(recipe->language, d4r::compiler::SourceLanguage::hip);
  EXPECT_EQ(recipe->targets, (std::vector<std::string>{"gfx1101", "gfx1201"}));
  EXPECT_EQ(recipe->accuracy_define, "MY_ACC");
  EXPECT_TRUE(recipe->wave64_in_fast_mode);
  EXPECT_EQ(recipe->flags, (std::vector<std::string>{"-mcumode", "-DX=1", "-O2"}));
}

TEST_F(RecipeTest, AppliesDefaults)
{
  d4r::Expected<Recipe> recipe = parse(k_minimal);
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_EQ(recipe->targets, k_all_targets);
  EXPECT_EQ(recipe->accuracy_define, "D4R_ACCURACY");
  EXPECT_FALSE(recipe->wave64_in_fast_mode);
  EXPECT_EQ(recipe->language, d4r::compiler::SourceLanguage::hip);
  EXPECT_TRUE(recipe->flags.empty());
  EXPECT_TRUE(recipe->patterns.empty());
  EXPECT_TRUE(recipe->passes.empty());
  EXPECT_TRUE(recipe->pass_parameters.empty());
}

TEST_F(RecipeTest, ParsesPassesInOrderWithParameters)
{
  d4r::Expected<Recipe> recipe = parse(std::string(k_minimal) + "passes = sust fp8-cvt\n"
                                                                "pass.sust.kinds = b16x4  b32\n"
                                                                "passes = roundf\n"
                                                                "pass.sust.mode = zero\n"
                                                                "pass.fp8-cvt.x2 = 1\n");
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_EQ(recipe->passes, (std::vector<std::string>{"sust", "fp8-cvt", "roundf"}));
  using Params = std::map<std::string, std::string>;
  EXPECT_EQ(recipe->pass_parameters,
            (std::map<std::string, Params>{
                {"sust", Params{{"kinds", "b16x4  b32"}, {"mode", "zero"}}},
                {"fp8-cvt", Params{{"x2", "1"}}}}));
}

// A ptx recipe translates the game's module: no source, and its job names no file until the
// daemon gives it the module.
TEST_F(RecipeTest, PtxRecipeBuildsTheModule)
{
  d4r::Expected<Recipe> recipe = parse("recipe = r\nversion = 1\nkernels = k\n"
                                       "modules = 8baeb925f177af87\nlanguage = ptx\n"
                                       "passes = roundf sust\npass.sust.kinds = b32\n");
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_EQ(recipe->language, d4r::compiler::SourceLanguage::ptx);
  EXPECT_TRUE(recipe->source.empty());
  d4r::Expected<CompileJob> job = make_compile_job(*recipe, "gfx1201", Mode::accuracy);
  ASSERT_TRUE(job) << job.error().message;
  EXPECT_EQ(job->language, d4r::compiler::SourceLanguage::ptx);
  EXPECT_TRUE(job->source.empty());
  EXPECT_TRUE(job->flags.empty());
  EXPECT_EQ(job->passes, (std::vector<std::string>{"roundf", "sust"}));
  EXPECT_EQ(job->pass_parameters.at("sust").at("kinds"), "b32");
  EXPECT_EQ(job->mode, Mode::accuracy); // the translator's float policy follows the set
  d4r::Expected<CompileJob> fast = make_compile_job(*recipe, "gfx1201", Mode::fast);
  ASSERT_TRUE(fast) << fast.error().message;
  EXPECT_EQ(fast->mode, Mode::fast);
  d4r::Expected<std::string> print = recipe_fingerprint(*recipe);
  ASSERT_TRUE(print) << print.error().message;
  Recipe other = *recipe;
  other.passes = {"sust", "roundf"}; // the order of the rewrites changes the object
  d4r::Expected<std::string> other_print = recipe_fingerprint(other);
  ASSERT_TRUE(other_print) << other_print.error().message;
  EXPECT_NE(*print, *other_print);
}

// The translator's fingerprint is derived from its sources (fingerprint.cmake), and a ptx recipe's
// fingerprint (so its objects' cache keys) changes with it; a HIP recipe's does not.
TEST_F(RecipeTest, PtxRecipeFingerprintFollowsTheTranslator)
{
  std::string_view built = d4r::compiler::translate::translator_fingerprint();
  EXPECT_EQ(built.size(), 64u);
  EXPECT_TRUE(std::ranges::all_of(built, [](char c) { return std::isxdigit(c) != 0; })) << built;
  d4r::Expected<Recipe> ptx = parse("recipe = r\nversion = 1\nkernels = k\n"
                                    "modules = 8baeb925f177af87\nlanguage = ptx\n");
  ASSERT_TRUE(ptx) << ptx.error().message;
  d4r::Expected<std::string> now = recipe_fingerprint(*ptx);
  d4r::Expected<std::string> same = recipe_fingerprint(*ptx, built);
  d4r::Expected<std::string> changed = recipe_fingerprint(*ptx, "another translator");
  ASSERT_TRUE(now && same && changed);
  EXPECT_EQ(*now, *same);
  EXPECT_NE(*now, *changed);
  d4r::Expected<Recipe> hip = parse("recipe = r\nversion = 1\nkernels = k\n"
                                    "modules = 8baeb925f177af87\nsource = src/k.hip\n");
  ASSERT_TRUE(hip) << hip.error().message;
  d4r::Expected<std::string> hip_now = recipe_fingerprint(*hip, built);
  d4r::Expected<std::string> hip_changed = recipe_fingerprint(*hip, "another translator");
  ASSERT_TRUE(hip_now && hip_changed) << (hip_now ? hip_changed.error() : hip_now.error()).message;
  EXPECT_EQ(*hip_now, *hip_changed);
}

TEST_F(RecipeTest, PatternsAloneAreEnough)
{
  d4r::Expected<Recipe> recipe = parse("recipe = r\nversion = 1\npatterns = k_*\n"
                                       "modules = 8baeb925f177af87\nsource = src/k.hip\n");
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_TRUE(recipe->kernels.empty());
}

struct BadRecipe {
  std::string label;
  std::string text;
  ErrorCode code;
  std::string message; // expected after "recipe <path>"
};

class BadRecipeTest : public RecipeTest, public ::testing::WithParamInterface<BadRecipe> {};

TEST_P(BadRecipeTest, NamesFileAndLine)
{
  const BadRecipe& bad = GetParam();
  d4r::Expected<Recipe> recipe = parse(bad.text);
  ASSERT_FALSE(recipe) << bad.label;
  EXPECT_EQ(recipe.error().code, bad.code) << recipe.error().message;
  EXPECT_EQ(recipe.error().message, "recipe " + recipe_path().string() + bad.message);
}

const std::string k_base = std::string(k_minimal);

INSTANTIATE_TEST_SUITE_P(
    Recipe, BadRecipeTest,
    ::testing::Values(
        BadRecipe{"unknown_key", k_base + "# ok\ncolour = blue\n", ErrorCode::invalid_argument,
                  ":7: unknown key 'colour'"},
        BadRecipe{"no_equals", "recipe = r\nversion 1\n", ErrorCode::invalid_argument,
                  ":2: expected 'key = value'"},
        BadRecipe{"empty_value", "recipe =\n", ErrorCode::invalid_argument,
                  ":1: empty value for 'recipe'"},
        BadRecipe{"repeated_single", k_base + "version = 2\n", ErrorCode::invalid_argument,
                  ":6: repeated key 'version'"},
        BadRecipe{"bad_hash_short", "recipe = r\nmodules = 8baeb925f177af8\n",
                  ErrorCode::invalid_argument,
                  ":2: bad module hash '8baeb925f177af8' (want 16 hex digits)"},
        BadRecipe{"bad_hash_hex", "recipe = r\nmodules = 8baeb925f177af87 zzzzb925f177af87\n",
                  ErrorCode::invalid_argument,
                  ":2: bad module hash 'zzzzb925f177af87' (want 16 hex digits)"},
        BadRecipe{"duplicate_hash", "modules = 8baeb925f177af87\nmodules = 8BAEB925F177AF87\n",
                  ErrorCode::invalid_argument, ":2: duplicate module hash '8BAEB925F177AF87'"},
        BadRecipe{"unknown_target", k_base + "targets = gfx1101 gfx906\n",
                  ErrorCode::invalid_argument, ":6: unknown target 'gfx906'"},
        BadRecipe{"fp8_folder_is_no_target", "targets = gfx1201-fp8\n", ErrorCode::invalid_argument,
                  ":1: unknown target 'gfx1201-fp8'"},
        BadRecipe{"bad_kernel", "\n\nkernels = ok ../etc/passwd\n", ErrorCode::invalid_argument,
                  ":3: invalid kernel name '../etc/passwd'"},
        BadRecipe{"duplicate_kernel", "kernels = a\nkernels = b a\n", ErrorCode::invalid_argument,
                  ":2: duplicate kernel 'a'"},
        BadRecipe{"bad_pattern", "patterns = k_[ab]\n", ErrorCode::invalid_argument,
                  ":1: invalid pattern 'k_[ab]' (allowed: A-Z a-z 0-9 _ $ * ?)"},
        BadRecipe{"bad_version", "version = 1x\n", ErrorCode::invalid_argument,
                  ":1: bad version '1x' (want 1 or more)"},
        BadRecipe{"zero_version", "version = 0\n", ErrorCode::invalid_argument,
                  ":1: bad version '0' (want 1 or more)"},
        BadRecipe{"bad_wave64", "wave64 = always\n", ErrorCode::invalid_argument,
                  ":1: bad wave64 'always' (want never or fast)"},
        BadRecipe{"bad_language", "language = cuda\n", ErrorCode::invalid_argument,
                  ":1: unsupported language 'cuda' (want hip, llvm_ir, llvm_bitcode or ptx)"},
        BadRecipe{"ptx_with_source", k_base + "language = ptx\n", ErrorCode::invalid_argument,
                  ":5: a ptx recipe builds the game's module and takes no 'source'"},
        BadRecipe{"bad_define", "accuracy_define = -DX\n", ErrorCode::invalid_argument,
                  ":1: invalid accuracy_define '-DX'"},
        BadRecipe{"bad_name", "recipe = my/recipe\n", ErrorCode::invalid_argument,
                  ":1: invalid recipe name 'my/recipe'"},
        BadRecipe{"bad_pass_name", k_base + "passes = sust Roundf\n", ErrorCode::invalid_argument,
                  ":6: invalid pass name 'Roundf' (allowed: a-z 0-9 -)"},
        BadRecipe{"duplicate_pass", k_base + "passes = sust\npasses = sust\n",
                  ErrorCode::invalid_argument, ":7: duplicate pass 'sust'"},
        BadRecipe{"pass_parameter_without_param", k_base + "passes = sust\npass.sust = 1\n",
                  ErrorCode::invalid_argument,
                  ":7: bad pass parameter key 'pass.sust' (want pass.NAME.PARAM)"},
        BadRecipe{"pass_parameter_bad_param", k_base + "passes = sust\npass.sust.a-b = 1\n",
                  ErrorCode::invalid_argument,
                  ":7: bad pass parameter key 'pass.sust.a-b' (want pass.NAME.PARAM)"},
        BadRecipe{"pass_parameter_empty", k_base + "pass.sust.kinds =\n",
                  ErrorCode::invalid_argument, ":6: empty value for 'pass.sust.kinds'"},
        BadRecipe{"pass_parameter_repeated",
                  k_base + "passes = sust\npass.sust.kinds = a\npass.sust.kinds = b\n",
                  ErrorCode::invalid_argument, ":8: repeated key 'pass.sust.kinds'"},
        BadRecipe{"pass_parameter_of_unlisted_pass",
                  k_base + "passes = sust\npass.roundf.x = 1\npass.roundf.y = 2\n",
                  ErrorCode::invalid_argument,
                  ":7: parameter of pass 'roundf', which 'passes' does not list"},
        BadRecipe{"missing_recipe",
                  "version = 1\nkernels = k\nmodules = 8baeb925f177af87\n"
                  "source = src/k.hip\n",
                  ErrorCode::invalid_argument, ": missing key 'recipe'"},
        BadRecipe{"missing_version",
                  "recipe = r\nkernels = k\nmodules = 8baeb925f177af87\n"
                  "source = src/k.hip\n",
                  ErrorCode::invalid_argument, ": missing key 'version'"},
        BadRecipe{"missing_source",
                  "recipe = r\nversion = 1\nkernels = k\n"
                  "modules = 8baeb925f177af87\n",
                  ErrorCode::invalid_argument, ": missing key 'source'"},
        BadRecipe{"missing_modules", "recipe = r\nversion = 1\nkernels = k\nsource = src/k.hip\n",
                  ErrorCode::invalid_argument, ": missing key 'modules'"},
        BadRecipe{"missing_kernels",
                  "recipe = r\nversion = 1\nmodules = 8baeb925f177af87\n"
                  "source = src/k.hip\n",
                  ErrorCode::invalid_argument, ": missing key 'kernels' or 'patterns'"}),
    [](const ::testing::TestParamInfo<BadRecipe>& param_info) { return param_info.param.label; });

TEST_F(RecipeTest, MissingSourceNamesItsLine)
{
  d4r::Expected<Recipe> recipe = parse("recipe = r\nversion = 1\nkernels = k\n"
                                       "modules = 8baeb925f177af87\n\nsource = src/gone.hip\n");
  ASSERT_FALSE(recipe);
  EXPECT_EQ(recipe.error().code, ErrorCode::not_found);
  EXPECT_EQ(recipe.error().message, "recipe " + recipe_path().string() + ":6: source " +
                                        (dir() / "src" / "gone.hip").string() + " does not exist");
}

TEST_F(RecipeTest, SourceMustBeAFile)
{
  d4r::Expected<Recipe> recipe = parse("recipe = r\nversion = 1\nkernels = k\n"
                                       "modules = 8baeb925f177af87\nsource = src\n");
  ASSERT_FALSE(recipe);
  EXPECT_EQ(recipe.error().code, ErrorCode::not_found);
}

TEST_F(RecipeTest, ServesExactNamesAndPatterns)
{
  d4r::Expected<Recipe> recipe = parse("recipe = r\nversion = 1\nkernels = layer_a layer$b\n"
                                       "patterns = fam_*_hdr v?\n"
                                       "modules = 8baeb925f177af87\nsource = src/k.hip\n");
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_TRUE(recipe_serves(*recipe, "layer_a"));
  EXPECT_TRUE(recipe_serves(*recipe, "layer$b"));
  EXPECT_FALSE(recipe_serves(*recipe, "layer_"));
  EXPECT_FALSE(recipe_serves(*recipe, "layer_a_prep"));
  EXPECT_TRUE(recipe_serves(*recipe, "fam_x_hdr"));
  EXPECT_TRUE(recipe_serves(*recipe, "fam__hdr"));
  EXPECT_TRUE(recipe_serves(*recipe, "fam_depth_mvhi_hdr"));
  EXPECT_FALSE(recipe_serves(*recipe, "fam_x_ldr"));
  EXPECT_FALSE(recipe_serves(*recipe, "xfam_x_hdr"));
  EXPECT_TRUE(recipe_serves(*recipe, "v1"));
  EXPECT_FALSE(recipe_serves(*recipe, "v"));
  EXPECT_FALSE(recipe_serves(*recipe, "v12"));
  EXPECT_FALSE(recipe_serves(*recipe, ""));
}

TEST_F(RecipeTest, StarPatternNeverServesAnInvalidName)
{
  d4r::Expected<Recipe> recipe = parse("recipe = r\nversion = 1\npatterns = *\n"
                                       "modules = 8baeb925f177af87\nsource = src/k.hip\n");
  ASSERT_TRUE(recipe) << recipe.error().message;
  EXPECT_TRUE(recipe_serves(*recipe, "anything_at_all"));
  EXPECT_FALSE(recipe_serves(*recipe, "../x"));
  EXPECT_FALSE(recipe_serves(*recipe, "a/b"));
  EXPECT_TRUE(recipe_serves(*recipe, std::string(1527, 'a'))) << "a C++ template kernel's name";
  EXPECT_FALSE(recipe_serves(*recipe, std::string(d4r::k_max_kernel_name + 1, 'a')));
}

// The expected flags of one build, from the rule in recipe.hpp written out by hand.
std::vector<std::string> expected_flags(const std::string& target, Mode mode)
{
  std::vector<std::string> flags = {"-O3"};
  if (target == "gfx1101") {
    flags.emplace_back("-DEXACT_1101"); // the target's own line beats the family's
  } else if (target == "gfx1100" || target == "gfx1102" || target == "gfx1103") {
    flags.insert(flags.end(), {"-O2", "-DFAMILY_11"});
  } else {
    flags.insert(flags.end(), {"-O3", "-DDEFAULT_LINE", "-mcumode"}); // gfx12: no line of its own
  }
  flags.emplace_back("-DRECIPE_FLAG");
  if (mode == Mode::accuracy) {
    flags.emplace_back("-DMY_ACC");
  }
  return flags;
}

TEST_F(RecipeTest, CompileJobForEveryTargetAndMode)
{
  write_file(dir() / "src" / "k.hip", "#include \"k.h\"\n"
                                      "// d4r-build-flags: -O3 -DDEFAULT_LINE -mcumode\n"
                                      "//d4r-build-flags-gfx11:   -O2 -DFAMILY_11\n"
                                      "  // d4r-build-flags-gfx1101: -DEXACT_1101\n"
                                      "// d4r-build-flags-gfx1101: -DSECOND_LINE_IGNORED\n"
                                      "/* d4r-build-flags-gfx1200: -DNOT_A_LINE_COMMENT */\n"
                                      "// d4r-build-flagsgfx1201: -DNO_DASH\n");
  for (bool wave64 : {false, true}) {
    std::string text = "recipe = r\nversion = 1\nkernels = k\nmodules = 8baeb925f177af87\n"
                       "source = src/k.hip\naccuracy_define = MY_ACC\nflags = -DRECIPE_FLAG\n";
    text += wave64 ? "wave64 = fast\n" : "wave64 = never\n";
    d4r::Expected<Recipe> recipe = parse(text);
    ASSERT_TRUE(recipe) << recipe.error().message;
    for (const std::string& target : k_all_targets) {
      for (Mode mode : {Mode::fast, Mode::accuracy}) {
        SCOPED_TRACE(target + " " + d4r::to_string(mode) + (wave64 ? " wave64" : ""));
        d4r::Expected<CompileJob> job = make_compile_job(*recipe, target, mode);
        ASSERT_TRUE(job) << job.error().message;
        EXPECT_EQ(job->source, recipe->source);
        EXPECT_EQ(job->language, d4r::compiler::SourceLanguage::hip);
        EXPECT_EQ(job->target, target);
        EXPECT_EQ(job->flags, expected_flags(target, mode));
        EXPECT_EQ(job->wave64, wave64 && mode == Mode::fast);
        EXPECT_TRUE(job->work_dir.empty());
      }
    }
  }
}

TEST_F(RecipeTest, CompileJobWithoutFlagLines)
{
  d4r::Expected<Recipe> recipe = parse(k_minimal);
  ASSERT_TRUE(recipe) << recipe.error().message;
  d4r::Expected<CompileJob> fast = make_compile_job(*recipe, "gfx1102", Mode::fast);
  ASSERT_TRUE(fast) << fast.error().message;
  EXPECT_EQ(fast->flags, (std::vector<std::string>{"-O3"}));
  d4r::Expected<CompileJob> accuracy = make_compile_job(*recipe, "gfx1102", Mode::accuracy);
  ASSERT_TRUE(accuracy) << accuracy.error().message;
  EXPECT_EQ(accuracy->flags, (std::vector<std::string>{"-O3", "-DD4R_ACCURACY"}));
}

TEST_F(RecipeTest, CompileJobRefusesTargets)
{
  d4r::Expected<Recipe> recipe = parse(k_base + "targets = gfx1201\n");
  ASSERT_TRUE(recipe) << recipe.error().message;
  d4r::Expected<CompileJob> other = make_compile_job(*recipe, "gfx1100", Mode::fast);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().code, ErrorCode::not_found);
  EXPECT_EQ(other.error().message, "recipe r: does not build for target gfx1100");
  d4r::Expected<CompileJob> unknown = make_compile_job(*recipe, "gfx906", Mode::fast);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().code, ErrorCode::invalid_argument);
  EXPECT_TRUE(make_compile_job(*recipe, "gfx1201", Mode::accuracy));
}

TEST_F(RecipeTest, CompileJobNeedsTheSource)
{
  d4r::Expected<Recipe> recipe = parse(k_minimal);
  ASSERT_TRUE(recipe) << recipe.error().message;
  fs::remove(recipe->source);
  d4r::Expected<CompileJob> job = make_compile_job(*recipe, "gfx1101", Mode::fast);
  ASSERT_FALSE(job);
  EXPECT_EQ(job.error().code, ErrorCode::io);
}

// A source tree: k.hip includes inc/a.h, which includes b.h (next to it) and itself.
class FingerprintTest : public RecipeTest {
protected:
  void SetUp() override
  {
    write_file(dir() / "src" / "k.hip", "#include \"inc/a.h\"\n#  include <system.h>\n"
                                        "#include \"inc/missing.h\"\n// kernel\n");
    write_file(dir() / "src" / "inc" / "a.h", "#pragma once\n#include \"b.h\"\n#include \"a.h\"\n");
    write_file(dir() / "src" / "inc" / "b.h", "#define B 1\n");
    write_file(dir() / "src" / "unrelated.h", "#define U 1\n");
  }
  std::string fingerprint(std::string_view text) const
  {
    d4r::Expected<Recipe> recipe = parse(text);
    EXPECT_TRUE(recipe) << recipe.error().message;
    if (!recipe) {
      return {};
    }
    d4r::Expected<std::string> digest = recipe_fingerprint(*recipe);
    EXPECT_TRUE(digest) << digest.error().message;
    return digest.value_or(std::string());
  }
};

TEST_F(FingerprintTest, ChangesWithWhatBuildsTheObject)
{
  std::string base = fingerprint(k_minimal);
  ASSERT_EQ(base.size(), 64U);
  EXPECT_EQ(fingerprint(k_minimal), base) << "the fingerprint is not stable";
  std::string changed_version = k_base;
  changed_version.replace(changed_version.find("version = 1"), 11, "version = 2");
  std::vector<std::string> variants = {
      changed_version,
      k_base + "flags = -O2\n",
      k_base + "accuracy_define = OTHER\n",
      k_base + "wave64 = fast\n",
      k_base + "passes = sust\n",
      k_base + "passes = sust roundf\n",
      k_base + "passes = roundf sust\n",
      k_base + "passes = sust roundf\npass.sust.kinds = b32\n",
      k_base + "passes = sust roundf\npass.sust.kinds = b16\n",
      k_base + "passes = sust roundf\npass.roundf.kinds = b16\n",
  };
  std::vector<std::string> seen = {base};
  for (const std::string& text : variants) {
    std::string digest = fingerprint(text);
    EXPECT_EQ(std::ranges::count(seen, digest), 0) << text;
    seen.push_back(digest);
  }
  std::string renamed = k_base;
  renamed.replace(0, 10, "recipe = s");
  EXPECT_NE(fingerprint(renamed), base);
}

TEST_F(FingerprintTest, IgnoresWhatOnlyAuthorises)
{
  std::string base = fingerprint(k_minimal);
  EXPECT_EQ(fingerprint("# a comment\n" + k_base + "   # trailing\n"), base);
  EXPECT_EQ(fingerprint(k_base + "kernels = other\npatterns = k_*\n"), base);
  EXPECT_EQ(fingerprint(k_base + "modules = 26332c9543501ce9\n"), base);
  EXPECT_EQ(fingerprint(k_base + "targets = gfx1201\n"), base);
  write_file(dir() / "src" / "unrelated.h", "#define U 2\n");
  EXPECT_EQ(fingerprint(k_minimal), base) << "a header the source does not include";
}

TEST_F(FingerprintTest, ChangesWithSourceAndIncludedHeaders)
{
  std::string base = fingerprint(k_minimal);
  std::vector<std::string> seen = {base};
  write_file(dir() / "src" / "k.hip", read_file(dir() / "src" / "k.hip") + "// edit\n");
  seen.push_back(fingerprint(k_minimal));
  write_file(dir() / "src" / "inc" / "a.h", read_file(dir() / "src" / "inc" / "a.h") + "\n");
  seen.push_back(fingerprint(k_minimal));
  write_file(dir() / "src" / "inc" / "b.h", "#define B 2\n");
  seen.push_back(fingerprint(k_minimal));
  write_file(dir() / "src" / "inc" / "missing.h", "#define M 1\n");
  seen.push_back(fingerprint(k_minimal));
  std::ranges::sort(seen);
  EXPECT_EQ(std::ranges::adjacent_find(seen), seen.end()) << "an edit left the fingerprint alone";
}

TEST_F(FingerprintTest, SameTreeElsewhereSameFingerprint)
{
  std::string base = fingerprint(k_minimal);
  fs::path moved = dir() / "moved";
  fs::create_directories(moved);
  fs::copy(dir() / "src", moved / "src", fs::copy_options::recursive);
  d4r::Expected<Recipe> recipe = parse_recipe(k_minimal, moved / "r.recipe");
  ASSERT_TRUE(recipe) << recipe.error().message;
  d4r::Expected<std::string> digest = recipe_fingerprint(*recipe);
  ASSERT_TRUE(digest) << digest.error().message;
  EXPECT_EQ(*digest, base);
}

TEST_F(FingerprintTest, UnreadableSourceIsAnError)
{
  d4r::Expected<Recipe> recipe = parse(k_minimal);
  ASSERT_TRUE(recipe) << recipe.error().message;
  fs::remove(recipe->source);
  d4r::Expected<std::string> digest = recipe_fingerprint(*recipe);
  ASSERT_FALSE(digest);
  EXPECT_EQ(digest.error().code, ErrorCode::io);
}

TEST(LoadRecipes, ShippedRecipesParse)
{
  d4r::Expected<std::vector<Recipe>> recipes = load_recipes(k_recipes_dir);
  ASSERT_TRUE(recipes) << recipes.error().message;
  ASSERT_GE(recipes->size(), 5U);
  uint64_t sr_hash = d4r::fnv1a64(read_file(k_sr_module));
  ASSERT_EQ(d4r::hash_to_hex(sr_hash), "8baeb925f177af87");
  std::vector<std::string> files;
  for (const Recipe& recipe : *recipes) {
    SCOPED_TRACE(recipe.name);
    files.push_back(recipe.recipe_path.filename().string());
    EXPECT_EQ(recipe.recipe_path.filename(), recipe.name + ".recipe");
    EXPECT_TRUE(fs::is_regular_file(recipe.source));
    EXPECT_EQ(recipe.module_hashes, std::vector<uint64_t>{sr_hash});
    for (const std::string& kernel : recipe.kernels) {
      EXPECT_TRUE(recipe_serves(recipe, kernel));
    }
    d4r::Expected<std::string> digest = recipe_fingerprint(recipe);
    EXPECT_TRUE(digest) << digest.error().message;
  }
  EXPECT_TRUE(std::ranges::is_sorted(files));
  for (const std::string name :
       {"d4r_example_layer", "d4r_example_wave64", "d4r_example_accuracy", "d4r_example_fp8"}) {
    EXPECT_TRUE(std::ranges::any_of(*recipes, [&name](const Recipe& recipe) {
      return recipe_serves(recipe, name);
    })) << name;
  }
}

TEST(LoadRecipes, ShippedLayerTakesItsFlagLines)
{
  d4r::Expected<std::vector<Recipe>> recipes = load_recipes(k_recipes_dir);
  ASSERT_TRUE(recipes) << recipes.error().message;
  auto layer = std::ranges::find(*recipes, "d4r_example_layer", &Recipe::name);
  ASSERT_NE(layer, recipes->end());
  d4r::Expected<CompileJob> gfx1201 = make_compile_job(*layer, "gfx1201", Mode::accuracy);
  ASSERT_TRUE(gfx1201) << gfx1201.error().message;
  EXPECT_EQ(gfx1201->flags, (std::vector<std::string>{"-O3", "-O2", "-mcumode", "-DD4R_ACCURACY"}));
  d4r::Expected<CompileJob> gfx1101 = make_compile_job(*layer, "gfx1101", Mode::fast);
  ASSERT_TRUE(gfx1101) << gfx1101.error().message;
  EXPECT_EQ(gfx1101->flags, (std::vector<std::string>{"-O3", "-O3", "-DD4R_EXAMPLE_TUNED"}));
  d4r::Expected<CompileJob> gfx1100 = make_compile_job(*layer, "gfx1100", Mode::fast);
  ASSERT_TRUE(gfx1100) << gfx1100.error().message;
  EXPECT_EQ(gfx1100->flags, (std::vector<std::string>{"-O3", "-O3"}));
}

TEST(LoadRecipes, DuplicateNameNamesBothFiles)
{
  TempDir dir("test_compiler_recipe_load");
  write_file(dir.path() / "k.hip", "// kernel\n");
  write_file(dir.path() / "a.recipe",
             std::string(k_minimal).replace(k_minimal.find("src/"), 4, ""));
  write_file(dir.path() / "b.recipe",
             std::string(k_minimal).replace(k_minimal.find("src/"), 4, ""));
  write_file(dir.path() / "notes.txt", "not a recipe\n");
  d4r::Expected<std::vector<Recipe>> recipes = load_recipes(dir.path());
  ASSERT_FALSE(recipes);
  EXPECT_EQ(recipes.error().code, ErrorCode::invalid_argument);
  EXPECT_EQ(recipes.error().message, "recipe " + (dir.path() / "b.recipe").string() +
                                         ": name 'r' is already used by " +
                                         (dir.path() / "a.recipe").string());
  fs::remove(dir.path() / "b.recipe");
  recipes = load_recipes(dir.path());
  ASSERT_TRUE(recipes) << recipes.error().message;
  ASSERT_EQ(recipes->size(), 1U);
  EXPECT_EQ(recipes->front().source, dir.path() / "k.hip");
}

TEST(LoadRecipes, BadFileIsNamed)
{
  TempDir dir("test_compiler_recipe_load");
  write_file(dir.path() / "bad.recipe", "recipe = r\nversion = one\n");
  d4r::Expected<std::vector<Recipe>> recipes = load_recipes(dir.path());
  ASSERT_FALSE(recipes);
  EXPECT_EQ(recipes.error().message, "recipe " + (dir.path() / "bad.recipe").string() +
                                         ":2: bad version 'one' (want 1 or more)");
}

TEST(LoadRecipes, MissingFolderIsAnIoError)
{
  TempDir dir("test_compiler_recipe_load");
  d4r::Expected<std::vector<Recipe>> recipes = load_recipes(dir.path() / "none");
  ASSERT_FALSE(recipes);
  EXPECT_EQ(recipes.error().code, ErrorCode::io);
  d4r::Expected<std::vector<Recipe>> empty = load_recipes(dir.path());
  ASSERT_TRUE(empty) << empty.error().message;
  EXPECT_TRUE(empty->empty());
}

} // namespace
