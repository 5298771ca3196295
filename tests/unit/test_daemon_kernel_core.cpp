// KernelCore without a server: the resolve rules over the release fixture and a real cache.

#include "daemon/kernel_core.hpp"

#include "compiler/ptx_build.hpp"
#include "tests/support/read_file.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace d4r::daemon {
namespace {

constexpr uint64_t k_sr_hash = 0x8baeb925f177af87ULL;

std::filesystem::path fixture()
{
  return std::filesystem::path(D4R_BINARY_DIR) / "fixtures" / "release";
}

using d4r::testing::read_file;

class KernelCoreTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (std::filesystem::temp_directory_path() / "d4r-core-XXXXXX").string();
    m_dir = mkdtemp(pattern.data());
    m_config.cache_dir = m_dir / "cache";
    m_config.native_dir = fixture();
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  std::unique_ptr<KernelCore> make_core(std::string target = "gfx1101")
  {
    Expected<std::unique_ptr<KernelCore>> core = KernelCore::create(m_config, std::move(target));
    EXPECT_TRUE(core) << core.error().message;
    return core ? std::move(*core) : nullptr;
  }

  static ResolveQuery query(std::string kernel, uint64_t hash = k_sr_hash)
  {
    ResolveQuery q;
    q.module_hash = hash;
    q.kernel = std::move(kernel);
    return q;
  }

  std::filesystem::path m_dir;
  DaemonConfig m_config;
};

TEST_F(KernelCoreTest, ServesTheReleaseObjectWithMetadata)
{
  std::unique_ptr<KernelCore> core = make_core();
  ResolveAnswer answer = core->resolve(query("d4r_test_layer"));
  ASSERT_EQ(answer.outcome, Outcome::ready) << answer.reason;
  std::string expected = read_file(fixture() / "gfx1101" / "d4r_test_layer.hsaco");
  ASSERT_EQ(answer.object_bytes.size(), expected.size());
  EXPECT_EQ(std::memcmp(answer.object_bytes.data(), expected.data(), expected.size()), 0);
  EXPECT_EQ(answer.target, "gfx1101");
  const cache::LaunchMetadata& meta = answer.metadata;
  EXPECT_EQ(meta.main.name, "d4r_test_layer");
  EXPECT_TRUE(meta.prep.has_value());
  EXPECT_EQ(meta.amdhsa_target, "amdgcn-amd-amdhsa--gfx1101");
  EXPECT_EQ(core->counters().get(Counter::resolve_ready), 1);
}

TEST_F(KernelCoreTest, SecondResolveIsACacheHit)
{
  std::unique_ptr<KernelCore> core = make_core();
  ASSERT_EQ(core->resolve(query("d4r_test_layer")).outcome, Outcome::ready);
  ASSERT_EQ(core->resolve(query("d4r_test_layer")).outcome, Outcome::ready);
  StatusSnapshot status = core->status();
  ASSERT_EQ(status.stores.size(), 2u);
  EXPECT_EQ(status.stores[0].inserts, 1);
  EXPECT_EQ(status.stores[0].hits, 1);
}

TEST_F(KernelCoreTest, SixteenConcurrentIdenticalRequestsImportOnce)
{
  std::unique_ptr<KernelCore> core = make_core();
  std::vector<std::thread> threads;
  std::atomic<int> ready{0};
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      if (core->resolve(query("d4r_test_layer")).outcome == Outcome::ready) {
        ++ready;
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(ready.load(), 16);
  EXPECT_EQ(core->status().stores[0].inserts, 1);
}

TEST_F(KernelCoreTest, InvalidRequestsAreRejected)
{
  std::unique_ptr<KernelCore> core = make_core();
  EXPECT_EQ(core->resolve(query("../etc/passwd")).outcome, Outcome::rejected);
  ResolveQuery bad_target = query("d4r_test_layer");
  bad_target.selection.target = "gfx803";
  EXPECT_EQ(core->resolve(bad_target).outcome, Outcome::rejected);
  EXPECT_EQ(core->counters().get(Counter::rejected_invalid_request), 2);
}

TEST_F(KernelCoreTest, NoDetectedGpuNeedsATargetInTheRequest)
{
  std::unique_ptr<KernelCore> core = make_core("");
  EXPECT_EQ(core->resolve(query("d4r_test_layer")).outcome, Outcome::rejected);
  ResolveQuery named = query("d4r_test_layer");
  named.selection.target = "gfx1101";
  EXPECT_EQ(core->resolve(named).outcome, Outcome::ready);
}

TEST_F(KernelCoreTest, WithoutReleaseDirectoryNothingIsFound)
{
  m_config.native_dir.reset();
  std::unique_ptr<KernelCore> core = make_core();
  ResolveAnswer answer = core->resolve(query("d4r_test_layer"));
  EXPECT_EQ(answer.outcome, Outcome::not_found);
  EXPECT_EQ(core->counters().get(Counter::not_found_no_release_dir), 1);
}

TEST_F(KernelCoreTest, DefaultModeComesFromTheConfiguration)
{
  m_config.default_mode = Mode::accuracy;
  std::unique_ptr<KernelCore> core = make_core();
  ResolveAnswer answer = core->resolve(query("d4r_test_layer"));
  ASSERT_EQ(answer.outcome, Outcome::ready) << answer.reason;
  EXPECT_EQ(answer.mode, Mode::accuracy);
  std::string expected = read_file(fixture() / "accuracy" / "gfx1101" / "d4r_test_layer.hsaco");
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(answer.object_bytes.data()),
                        answer.object_bytes.size()),
            expected);
}

TEST_F(KernelCoreTest, PrepareListsServableEntriesAndAsksForBytesOnlyWhereARecipeTranslates)
{
  std::unique_ptr<KernelCore> core = make_core();
  PrepareQuery prepare;
  prepare.module_hash = k_sr_hash;
  prepare.module_sha256 = sha256(std::string_view("not stored yet"));
  prepare.entries = {"d4r_test_layer", "d4r_test_simple", "cuda_dldn_engine_test_kernel",
                     "bad/name", "unknown_kernel"};
  Expected<PrepareAnswer> answer = core->prepare(prepare);
  ASSERT_TRUE(answer) << answer.error().message;
  // Served from the release: nothing would read the module, so it is not asked for.
  EXPECT_FALSE(answer->need_module_bytes);
  std::vector<std::string> expected = {"d4r_test_layer", "d4r_test_simple"};
  EXPECT_EQ(answer->servable_entries, expected);

  // A recipe that translates this module's PTX needs its text.
  std::filesystem::path recipes = m_dir / "recipes";
  std::filesystem::create_directories(recipes);
  std::ofstream(recipes / "translate.recipe")
      << "recipe = translate\nversion = 1\nkernels = cuda_dldn_engine_test_kernel\nmodules = "
      << hash_to_hex(k_sr_hash) << "\nlanguage = ptx\n";
  m_config.recipes_dir = recipes;
  core.reset();
  core = make_core();
  answer = core->prepare(prepare);
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_TRUE(answer->need_module_bytes);
}

TEST_F(KernelCoreTest, PutModuleChecksBothHashes)
{
  std::unique_ptr<KernelCore> core = make_core();
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/sr_module.ptx");
  Sha256 digest = sha256(std::string_view(ptx));
  EXPECT_FALSE(core->put_module(k_sr_hash ^ 1, digest, ptx));
  Expected<int64_t> stored = core->put_module(k_sr_hash, digest, ptx);
  ASSERT_TRUE(stored) << stored.error().message;
  EXPECT_EQ(*stored, static_cast<int64_t>(ptx.size()));
  PrepareQuery prepare;
  prepare.module_hash = k_sr_hash;
  prepare.module_sha256 = digest;
  EXPECT_FALSE(core->prepare(prepare)->need_module_bytes);
}

// A release folder whose object is the translator's build of tests/ptx/isa/module_vars (nvcc's
// PTX with six module variables the host writes, four of them the kernel's), listed for the sr
// module.
std::filesystem::path host_variable_release(const std::filesystem::path& root)
{
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/isa/module_vars.sm_90.ptx");
  std::filesystem::create_directories(root / "work");
  std::filesystem::create_directories(root / "gfx1101");
  compiler::PtxBuild build{"gfx1101", {}, {}, "module_vars", root / "work"};
  std::string log;
  Expected<std::vector<std::byte>> object = compiler::build_ptx_code_object(ptx, build, log);
  if (!object) {
    ADD_FAILURE() << object.error().message;
    return root;
  }
  std::ofstream(root / "gfx1101" / "module_vars.hsaco", std::ios::binary)
      .write(reinterpret_cast<const char*>(object->data()),
             static_cast<std::streamsize>(object->size()));
  std::ofstream(root / "gfx1101" / "d4r-kernels.txt") << "module_vars 8baeb925f177af87 sr\n";
  return root;
}

TEST_F(KernelCoreTest, HostVariablesAreServedOnlyToAClientThatMirrorsThem)
{
  m_config.native_dir = host_variable_release(m_dir / "release");
  std::unique_ptr<KernelCore> core = make_core();
  // Twice without the capability: built and cached the first time, refused both times.
  for (int i = 0; i < 2; ++i) {
    ResolveAnswer refused = core->resolve(query("module_vars"));
    EXPECT_EQ(refused.outcome, Outcome::not_found);
    EXPECT_EQ(refused.counter, Counter::not_found_host_variables);
    EXPECT_EQ(refused.reason.rfind("host_variables: ", 0), 0u) << refused.reason;
    EXPECT_NE(refused.reason.find("(d_table, d_wide, k_init, k_scale)"),
              std::string::npos)
        << refused.reason;
    EXPECT_TRUE(refused.object_bytes.empty());
  }
  EXPECT_EQ(core->counters().get(Counter::not_found_host_variables), 2);
  EXPECT_EQ(core->counters().snapshot().at("not_found.host_variables"), 2);
  ResolveQuery mirrors = query("module_vars");
  mirrors.mirrors_host_variables = true;
  ResolveAnswer served = core->resolve(mirrors);
  ASSERT_EQ(served.outcome, Outcome::ready) << served.reason;
  std::vector<std::string> names;
  for (const cache::LaunchVariable& variable : served.metadata.host_variables) {
    names.push_back(variable.name + ":" + std::to_string(variable.size));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"d_table:256", "d_wide:8", "k_init:16", "k_scale:16"}))
      << "module_vars_static's s_bias and s_mask are not this kernel's";
  // The object is the same for both clients: one import, the refusals were serve-time checks.
  EXPECT_EQ(core->status().stores[0].inserts, 1);
}

TEST_F(KernelCoreTest, ObjectsWithoutHostVariablesNeedNoCapability)
{
  std::unique_ptr<KernelCore> core = make_core();
  ResolveAnswer answer = core->resolve(query("d4r_test_layer"));
  ASSERT_EQ(answer.outcome, Outcome::ready) << answer.reason;
  EXPECT_TRUE(answer.metadata.host_variables.empty());
}

} // namespace
} // namespace d4r::daemon
