// BuildService without a server: a ptx recipe's object is keyed by the translator's fingerprint,
// so an object the translator built before a change is rebuilt after it instead of served.

#include "daemon/build_service.hpp"

#include "cache/local_tier.hpp"

#include "compiler/recipe.hpp"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include "tests/support/read_file.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

namespace d4r::daemon {
namespace {

namespace fs = std::filesystem;

class BuildServiceTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (fs::temp_directory_path() / "d4r-builds-XXXXXX").string();
    m_dir = mkdtemp(pattern.data());
    Expected<std::unique_ptr<cache::Cache>> opened = cache::Cache::open({m_dir / "cache"});
    ASSERT_TRUE(opened) << opened.error().message;
    m_cache = std::move(*opened);
    std::string ptx = d4r::testing::read_file(D4R_TEST_SOURCE_DIR "/ptx/isa/alu_int.sm_90.ptx");
    m_module.hash = ptx_module_hash(ptx);
    // Named by its SHA-256 as the module store names it: a build reads it back against the name.
    const std::string hex = to_hex(sha256(std::string_view(ptx)));
    m_module.path = m_dir / hex.substr(0, 2) / (hex.substr(2) + ".ptx");
    fs::create_directories(m_module.path.parent_path());
    std::ofstream(m_module.path) << ptx;
    Expected<compiler::Recipe> recipe =
        compiler::parse_recipe("recipe = ptx_alu\nversion = 1\nkernels = int_arith32\nmodules = " +
                                   hash_to_hex(m_module.hash) + "\nlanguage = ptx\n",
                               m_dir / "ptx_alu.recipe");
    ASSERT_TRUE(recipe) << recipe.error().message;
    m_recipe = *recipe;
  }
  void TearDown() override { fs::remove_all(m_dir); }

  // A service whose translator has the fingerprint `translator`: obtains int_arith32 for gfx1201
  // and says how many builds that took.
  int64_t builds_for(const std::string& translator)
  {
    BuildOptions options;
    options.worker = D4R_WORKER_PATH;
    options.scratch = m_dir / "builds";
    options.backend = "llvm";
    options.translator_fingerprint = translator;
    BuildService service(*m_cache, {m_recipe}, options);
    const compiler::Recipe* recipe = service.recipe_for("int_arith32");
    EXPECT_NE(recipe, nullptr);
    if (recipe == nullptr) {
      return -1;
    }
    Expected<BuildAnswer> answer = service.obtain(*recipe, "int_arith32", "gfx1201", Mode::fast,
                                                  Priority::interactive,
                                                  std::chrono::milliseconds(120000), m_module);
    EXPECT_TRUE(answer) << answer.error().message;
    if (answer) {
      EXPECT_EQ(answer->state, BuildState::ready) << answer->reason;
    }
    return service.stats().done;
  }

  fs::path m_dir;
  std::unique_ptr<cache::Cache> m_cache;
  ModuleSource m_module;
  compiler::Recipe m_recipe;
};

TEST_F(BuildServiceTest, TranslatorChangeRebuildsInsteadOfServingStale)
{
  std::string built(compiler::translate::translator_fingerprint());
  EXPECT_EQ(builds_for(built), 1);
  EXPECT_EQ(builds_for(built), 0) << "the same translator: a cache hit";
  EXPECT_EQ(builds_for(built + "-fixed"), 1) << "another translator: rebuilt, not served";
  Expected<std::vector<cache::Entry>> entries = m_cache->list(Mode::fast);
  ASSERT_TRUE(entries) << entries.error().message;
  EXPECT_EQ(entries->size(), 2u);
}

// A worker that never finishes a build (it sleeps until the service kills it): the one build
// thread stays busy, and what comes next waits in the queue. Anything else (a toolchain probe)
// goes to the real worker.
fs::path sleeping_worker(const fs::path& dir)
{
  fs::path script = dir / "sleeping-worker.sh";
  std::ofstream(script) << "#!/bin/sh\ncase \"$1\" in --*) exec '" << D4R_WORKER_PATH
                        << "' \"$@\";; esac\nexec sleep 60\n";
  fs::permissions(script, fs::perms::owner_all);
  return script;
}

TEST_F(BuildServiceTest, BuildsPastTheQueueBoundAreRejectedNotQueued)
{
  BuildOptions options;
  options.worker = sleeping_worker(m_dir);
  options.scratch = m_dir / "builds";
  options.backend = "llvm";
  options.threads = 1;
  options.max_queued = 4; // background work: 3
  BuildService service(*m_cache, {m_recipe}, options);
  const compiler::Recipe* recipe = service.recipe_for("int_arith32");
  ASSERT_NE(recipe, nullptr);
  auto obtain = [&](const char* target, Mode mode, Priority priority) {
    Expected<BuildAnswer> answer = service.obtain(*recipe, "int_arith32", target, mode, priority,
                                                  std::chrono::milliseconds(0), m_module);
    EXPECT_TRUE(answer) << answer.error().message;
    return answer ? *answer : BuildAnswer{};
  };
  EXPECT_EQ(obtain("gfx1100", Mode::fast, Priority::interactive).state, BuildState::pending);
  for (int i = 0; i < 200 && service.stats().running == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(service.stats().running, 1) << "the first build holds the one worker";
  for (const char* target : {"gfx1101", "gfx1102", "gfx1103"}) {
    EXPECT_EQ(obtain(target, Mode::fast, Priority::background).state, BuildState::pending) << target;
  }
  EXPECT_EQ(obtain("gfx1200", Mode::fast, Priority::background).state, BuildState::rejected)
      << "background work fills three quarters of the queue at most";
  EXPECT_EQ(obtain("gfx1201", Mode::fast, Priority::interactive).state, BuildState::pending)
      << "a game's request still finds room";
  BuildAnswer full = obtain("gfx1100", Mode::accuracy, Priority::interactive);
  EXPECT_EQ(full.state, BuildState::rejected);
  EXPECT_NE(full.reason.find("build queue full"), std::string::npos) << full.reason;
  EXPECT_EQ(obtain("gfx1101", Mode::fast, Priority::interactive).state, BuildState::pending)
      << "a build already queued is joined, not rejected";
  BuildStats stats = service.stats();
  EXPECT_EQ(stats.queued, 4);
  EXPECT_EQ(stats.rejected_queue_full, 2);
}

// A farther tier held in memory and shared by two services' chains, as two daemons share an
// upstream or a Redis store; `failing` makes it refuse every call.
struct SharedStore {
  std::mutex mutex;
  std::map<std::string, cache::TierObject> objects;
  bool failing = false;
  int lookups = 0;
  int stores = 0;
};

class SharedTier final : public cache::Tier {
public:
  explicit SharedTier(std::shared_ptr<SharedStore> store) : m_store(std::move(store)) {}
  std::string name() const override { return "shared"; }
  cache::TierResult<std::optional<cache::TierObject>>
  lookup(Mode mode, const cache::CacheKey& key, std::chrono::milliseconds) override
  {
    std::lock_guard lock(m_store->mutex);
    ++m_store->lookups;
    if (m_store->failing) {
      return std::unexpected(cache::TierFailure{Error{ErrorCode::unavailable, "down"}, false});
    }
    auto found = m_store->objects.find(key.to_text(mode));
    if (found == m_store->objects.end()) {
      return std::optional<cache::TierObject>();
    }
    return std::optional<cache::TierObject>(found->second);
  }
  cache::TierResult<void> store(Mode mode, const cache::CacheKey& key,
                                const cache::TierObject& object, std::chrono::milliseconds) override
  {
    std::lock_guard lock(m_store->mutex);
    ++m_store->stores;
    m_store->objects[key.to_text(mode)] = object;
    return {};
  }

private:
  std::shared_ptr<SharedStore> m_store;
};

// Two daemons, one shared tier: what one built the other serves without building, and what the
// tier returns is checked as a build's output is.
TEST_F(BuildServiceTest, AFartherTierServesWhatAnotherDaemonBuilt)
{
  auto shared = std::make_shared<SharedStore>();
  auto service_with = [&](cache::Cache& cache, cache::TierChain& chain) {
    chain.add(cache::make_local_tier(cache));
    chain.add(std::make_unique<SharedTier>(shared), cache::TierPolicy{std::chrono::milliseconds(500),
                                                                      std::chrono::seconds(30),
                                                                      std::chrono::seconds(60)});
    BuildOptions options;
    options.worker = D4R_WORKER_PATH;
    options.scratch = m_dir / "builds";
    options.backend = "llvm";
    options.tiers = &chain;
    return std::make_unique<BuildService>(cache, std::vector<compiler::Recipe>{m_recipe}, options);
  };
  auto obtain = [&](BuildService& service) {
    Expected<BuildAnswer> answer =
        service.obtain(*service.recipe_for("int_arith32"), "int_arith32", "gfx1201", Mode::fast,
                       Priority::interactive, std::chrono::milliseconds(120000), m_module);
    EXPECT_TRUE(answer) << answer.error().message;
    return answer ? *answer : BuildAnswer{};
  };
  cache::TierChain first_chain;
  std::unique_ptr<BuildService> first = service_with(*m_cache, first_chain);
  BuildAnswer built = obtain(*first);
  ASSERT_EQ(built.state, BuildState::ready) << built.reason;
  EXPECT_EQ(first->stats().done, 1);
  ASSERT_EQ(shared->stores, 1) << "the new build was offered to the shared tier";

  // A second daemon with a cache of its own.
  Expected<std::unique_ptr<cache::Cache>> other = cache::Cache::open({m_dir / "other-cache"});
  ASSERT_TRUE(other) << other.error().message;
  cache::TierChain second_chain;
  std::unique_ptr<BuildService> second = service_with(**other, second_chain);
  BuildAnswer fetched = obtain(*second);
  ASSERT_EQ(fetched.state, BuildState::ready) << fetched.reason;
  EXPECT_EQ(second->stats().done, 0) << "served from the shared tier, not built";
  EXPECT_FALSE(fetched.started);
  EXPECT_EQ(fetched.hit->digest, built.hit->digest);
  Expected<std::optional<cache::Hit>> local = (*other)->lookup(Mode::fast, fetched.hit->key);
  ASSERT_TRUE(local && local->has_value()) << "backfilled into the second daemon's store";
  EXPECT_EQ((*local)->metadata, built.hit->metadata);

  // Metadata that is not what the object says is refused: the third daemon builds it itself.
  {
    std::lock_guard lock(shared->mutex);
    ASSERT_EQ(shared->objects.size(), 1U);
    shared->objects.begin()->second.metadata += "x";
  }
  Expected<std::unique_ptr<cache::Cache>> third_cache = cache::Cache::open({m_dir / "third-cache"});
  ASSERT_TRUE(third_cache);
  cache::TierChain third_chain;
  std::unique_ptr<BuildService> third = service_with(**third_cache, third_chain);
  ASSERT_EQ(obtain(*third).state, BuildState::ready);
  EXPECT_EQ(third->stats().done, 1) << "refused what the tier returned, built instead";
  EXPECT_EQ(third_chain.health()[1].mismatches, 1);

  // The tier down: a fourth daemon builds locally, and the tier is backed off, not asked again.
  shared->failing = true;
  Expected<std::unique_ptr<cache::Cache>> fourth_cache = cache::Cache::open({m_dir / "fourth-cache"});
  ASSERT_TRUE(fourth_cache);
  cache::TierChain fourth_chain;
  std::unique_ptr<BuildService> fourth = service_with(**fourth_cache, fourth_chain);
  ASSERT_EQ(obtain(*fourth).state, BuildState::ready);
  EXPECT_EQ(fourth->stats().done, 1);
  std::vector<cache::TierHealth> health = fourth_chain.health();
  EXPECT_EQ(health[1].failures, 1);
  EXPECT_TRUE(health[1].backed_off) << "the publish after the build was skipped, not tried";
  EXPECT_EQ(health[1].skipped, 1);
}

} // namespace
} // namespace d4r::daemon
