// The Redis tier (cache/tier.hpp) against a real redis-server, two tier instances as two build
// hosts: what one stores the other finds, byte for byte with its metadata; damage and eviction
// are misses; one host's claim on a key makes the other wait for its build, or take the key over
// when the claim is given up unbuilt or expires; with the server gone every call fails within its
// budget and the tier serves again once the server is back.

#include "cache/remote/redis/redis_tier.hpp"
#include "tests/unit/test_cache_redis_support.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <thread>

namespace d4r::cache::redis {
namespace {

using namespace std::chrono_literals;
using testing::RedisTest;

CacheKey make_key(std::string kernel)
{
  return CacheKey{.module_hash = 0x8baeb925f177af87ULL,
                  .kernel = std::move(kernel),
                  .target = "gfx1201",
                  .variant = "",
                  .toolchain = "clang-19",
                  .recipe = "sr/3"};
}

TierObject make_object(std::string_view text)
{
  TierObject object;
  for (char c : text) {
    object.bytes.push_back(static_cast<std::byte>(c));
  }
  object.digest = sha256(std::span<const std::byte>(object.bytes));
  object.metadata = std::string("\x02meta\0v1", 8);
  object.source = "build:test";
  return object;
}

class RedisTierTest : public RedisTest {
protected:
  [[nodiscard]] std::unique_ptr<Tier> make_tier(bool tcp, std::chrono::milliseconds lock_ttl = 0ms,
                                                std::chrono::milliseconds claim_poll = 500ms,
                                                std::string consumer = "host") const
  {
    RedisTierOptions options;
    options.consumer = std::move(consumer);
    options.job_timeout = 700ms;
    options.connection = tcp ? m_server.tcp_options() : m_server.unix_options();
    options.keys.prefix = "t:";
    options.max_connections = 4;
    options.lock_ttl = lock_ttl;
    options.claim_poll = claim_poll;
    return make_redis_tier(options);
  }
};

TEST_F(RedisTierTest, AClaimMakesTheOtherHostWaitForItsBuild)
{
  std::unique_ptr<Tier> host_a = make_tier(false, 5s);
  std::unique_ptr<Tier> host_b = make_tier(true, 5s);
  CacheKey key = make_key("claimed");
  TierResult<Claim> a = host_a->claim(Mode::fast, key, 1s);
  ASSERT_TRUE(a) << a.error().error.message;
  EXPECT_EQ(a->state, ClaimState::yours);
  EXPECT_FALSE(a->token.empty());
  // B waits; A builds, stores and settles meanwhile.
  std::thread builder([&] {
    std::this_thread::sleep_for(300ms);
    ASSERT_TRUE(host_a->store(Mode::fast, key, make_object("built by A"), 1s));
    host_a->settle(Mode::fast, key, *a);
  });
  auto asked = Clock::now();
  TierResult<Claim> b = host_b->claim(Mode::fast, key, 4s);
  builder.join();
  ASSERT_TRUE(b) << b.error().error.message;
  EXPECT_EQ(b->state, ClaimState::built_elsewhere);
  EXPECT_TRUE(b->token.empty());
  EXPECT_GE(Clock::now() - asked, 250ms) << "it waited for the build";
  EXPECT_LT(Clock::now() - asked, 3s);
  // Each mode is its own key: B claims the accuracy build at once.
  TierResult<Claim> accuracy = host_b->claim(Mode::accuracy, key, 1s);
  ASSERT_TRUE(accuracy);
  EXPECT_EQ(accuracy->state, ClaimState::yours);
}

// The waiter does not poll its way to the result: the builder's settle() announces it. B looks
// at 20, 40, 80 ... ms pauses up to 5 s, so that after A's settle at 3 s its next look would come
// at about 5.1 s; woken by the announcement, it is served within a second of the settle.
TEST_F(RedisTierTest, AWaiterWakesWhenTheBuildIsAnnounced)
{
  std::unique_ptr<Tier> host_a = make_tier(false, 10s);
  std::unique_ptr<Tier> host_b = make_tier(true, 10s, 5s);
  CacheKey key = make_key("announced");
  TierResult<Claim> a = host_a->claim(Mode::fast, key, 1s);
  ASSERT_TRUE(a && a->state == ClaimState::yours);
  Deadline settled{};
  std::thread builder([&] {
    std::this_thread::sleep_for(3s);
    ASSERT_TRUE(host_a->store(Mode::fast, key, make_object("built by A"), 1s));
    settled = Clock::now();
    host_a->settle(Mode::fast, key, *a);
  });
  TierResult<Claim> b = host_b->claim(Mode::fast, key, 8s);
  auto served = Clock::now();
  builder.join();
  ASSERT_TRUE(b) << b.error().error.message;
  EXPECT_EQ(b->state, ClaimState::built_elsewhere);
  EXPECT_LT(served - settled, 1s) << "woken by the announcement, not by its next look";
}

TEST_F(RedisTierTest, AClaimGivenUpUnbuiltOrExpiredPassesToTheWaiter)
{
  std::unique_ptr<Tier> host_a = make_tier(false, 800ms);
  std::unique_ptr<Tier> host_b = make_tier(true, 800ms);
  CacheKey failed = make_key("failed_there");
  TierResult<Claim> a = host_a->claim(Mode::fast, failed, 1s);
  ASSERT_TRUE(a && a->state == ClaimState::yours);
  std::thread giving_up([&] {
    std::this_thread::sleep_for(200ms);
    host_a->settle(Mode::fast, failed, *a); // its build failed: nothing stored
  });
  TierResult<Claim> b = host_b->claim(Mode::fast, failed, 3s);
  giving_up.join();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->state, ClaimState::yours) << "the key is B's to build now";
  EXPECT_FALSE(b->token.empty());

  // A host that died never settles: its claim expires (800 ms here) and the waiter takes over.
  CacheKey orphan = make_key("orphaned");
  ASSERT_TRUE(host_a->claim(Mode::fast, orphan, 1s));
  auto asked = Clock::now();
  TierResult<Claim> taken = host_b->claim(Mode::fast, orphan, 3s);
  ASSERT_TRUE(taken);
  EXPECT_EQ(taken->state, ClaimState::yours);
  EXPECT_GE(Clock::now() - asked, 500ms) << "not before the claim expired";
  // Past the waiter's budget it builds anyway, without a claim.
  CacheKey held = make_key("held");
  ASSERT_TRUE(host_a->claim(Mode::fast, held, 1s));
  TierResult<Claim> late = host_b->claim(Mode::fast, held, 200ms);
  ASSERT_TRUE(late);
  EXPECT_EQ(late->state, ClaimState::yours);
  EXPECT_TRUE(late->token.empty());
  // Without a claim lifetime the tier claims nothing.
  std::unique_ptr<Tier> plain = make_tier(false);
  TierResult<Claim> none = plain->claim(Mode::fast, held, 1s);
  ASSERT_TRUE(none);
  EXPECT_EQ(none->state, ClaimState::yours);
  EXPECT_TRUE(none->token.empty());
}

std::vector<std::byte> bytes_of(std::string_view text)
{
  std::vector<std::byte> bytes;
  for (char c : text) {
    bytes.push_back(static_cast<std::byte>(c));
  }
  return bytes;
}

// A job one host offers (with its module) another takes, body and module byte for byte; a job
// taken once is not taken again once finished, and one a host took and never finished (it died)
// goes to another after the job timeout (700 ms here).
TEST_F(RedisTierTest, AnOfferedJobIsTakenOnceAndAnUnfinishedOneAgain)
{
  std::unique_ptr<Tier> busy = make_tier(false, 0ms, 500ms, "busy");
  std::unique_ptr<Tier> idle = make_tier(true, 0ms, 500ms, "idle");
  std::unique_ptr<Tier> other = make_tier(true, 0ms, 500ms, "other");
  TierResult<std::optional<TierJob>> nothing = idle->take(100ms, 1s);
  ASSERT_TRUE(nothing) << nothing.error().error.message;
  EXPECT_FALSE(nothing->has_value());

  const std::vector<std::byte> module = bytes_of(".version 8.0\n.target sm_86\n// the module");
  TierResult<bool> offered = busy->offer("build this", module, 1s);
  ASSERT_TRUE(offered) << offered.error().error.message;
  EXPECT_TRUE(*offered);
  TierResult<std::optional<TierJob>> taken = idle->take(1s, 1s);
  ASSERT_TRUE(taken && taken->has_value());
  EXPECT_EQ((*taken)->body, "build this");
  EXPECT_EQ((*taken)->module, module);
  EXPECT_FALSE((*taken)->own);
  idle->finish(**taken);
  // A host that reads its own offer is told so (it puts it back for another host).
  ASSERT_TRUE(busy->offer("mine", {}, 1s));
  TierResult<std::optional<TierJob>> mine = busy->take(1s, 1s);
  ASSERT_TRUE(mine && mine->has_value());
  EXPECT_TRUE((*mine)->own);
  busy->finish(**mine);
  std::this_thread::sleep_for(900ms); // past the job timeout: a finished job is gone for good
  TierResult<std::optional<TierJob>> again = other->take(100ms, 1s);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->has_value()) << "a finished job was delivered again";

  // No module: the body alone. The taker dies (never finishes): another host gets the job once
  // it has waited the job timeout, not before.
  ASSERT_TRUE(busy->offer("no module", {}, 1s));
  TierResult<std::optional<TierJob>> lost = idle->take(1s, 1s);
  ASSERT_TRUE(lost && lost->has_value());
  EXPECT_TRUE((*lost)->module.empty());
  TierResult<std::optional<TierJob>> early = other->take(100ms, 1s);
  ASSERT_TRUE(early);
  EXPECT_FALSE(early->has_value()) << "taken over before the timeout";
  std::this_thread::sleep_for(800ms);
  TierResult<std::optional<TierJob>> recovered = other->take(100ms, 1s);
  ASSERT_TRUE(recovered && recovered->has_value());
  EXPECT_EQ((*recovered)->body, "no module");
  other->finish(**recovered);
}

// A job whose module is gone from the server (evicted, or never stored) is not handed out: its
// host builds it itself.
TEST_F(RedisTierTest, AJobWhoseModuleIsGoneIsNotHandedOut)
{
  std::unique_ptr<Tier> busy = make_tier(false, 0ms, 500ms, "busy");
  std::unique_ptr<Tier> idle = make_tier(true, 0ms, 500ms, "idle");
  const std::vector<std::byte> module = bytes_of("evicted module");
  ASSERT_TRUE(busy->offer("build this", module, 1s));
  RedisConnection connection(m_server.unix_options());
  ASSERT_TRUE(connection.call({"DEL", "t:obj:" + to_hex(sha256(std::span<const std::byte>(module)))}, in(1s)));
  TierResult<std::optional<TierJob>> taken = idle->take(300ms, 1s);
  ASSERT_TRUE(taken);
  EXPECT_FALSE(taken->has_value());
  std::this_thread::sleep_for(800ms);
  TierResult<std::optional<TierJob>> later = idle->take(100ms, 1s);
  ASSERT_TRUE(later);
  EXPECT_FALSE(later->has_value()) << "the unusable job was finished, not left pending";
}

TEST_F(RedisTierTest, WhatOneHostStoresTheOtherFinds)
{
  std::unique_ptr<Tier> host_a = make_tier(false);
  std::unique_ptr<Tier> host_b = make_tier(true);
  EXPECT_EQ(host_b->name(), "redis:127.0.0.1:" + std::to_string(m_server.port()));
  TierObject object = make_object("an ELF code object");
  CacheKey key = make_key("vector_add");

  TierResult<std::optional<TierObject>> before = host_b->lookup(Mode::fast, key, 1s);
  ASSERT_TRUE(before) << before.error().error.message;
  EXPECT_FALSE(before->has_value());

  TierResult<void> stored = host_a->store(Mode::fast, key, object, 1s);
  ASSERT_TRUE(stored) << stored.error().error.message;
  TierResult<std::optional<TierObject>> found = host_b->lookup(Mode::fast, key, 1s);
  ASSERT_TRUE(found) << found.error().error.message;
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->digest, object.digest);
  EXPECT_EQ((*found)->bytes, object.bytes);
  EXPECT_EQ((*found)->metadata, object.metadata);
  EXPECT_EQ((*found)->source, host_b->name());

  TierResult<std::optional<TierObject>> other_mode = host_b->lookup(Mode::accuracy, key, 1s);
  ASSERT_TRUE(other_mode);
  EXPECT_FALSE(other_mode->has_value()) << "each mode has its own index";
}

TEST_F(RedisTierTest, DamagedAndEvictedObjectsAreMisses)
{
  std::unique_ptr<Tier> tier = make_tier(false);
  TierObject object = make_object("bytes to damage");
  ASSERT_TRUE(tier->store(Mode::fast, make_key("k1"), object, 1s));
  RedisConnection connection(m_server.unix_options());
  std::string object_key = "t:obj:" + to_hex(object.digest);
  ASSERT_TRUE(connection.call({"SETRANGE", object_key, "3", "X"}, in(1s)));
  TierResult<std::optional<TierObject>> damaged = tier->lookup(Mode::fast, make_key("k1"), 1s);
  ASSERT_TRUE(damaged) << damaged.error().error.message;
  EXPECT_FALSE(damaged->has_value());

  ASSERT_TRUE(tier->store(Mode::fast, make_key("k1"), object, 1s))
      << "the damaged copy was deleted";
  TierResult<std::optional<TierObject>> repaired = tier->lookup(Mode::fast, make_key("k1"), 1s);
  ASSERT_TRUE(repaired && repaired->has_value());
  EXPECT_EQ((*repaired)->bytes, object.bytes);

  ASSERT_TRUE(connection.call({"DEL", object_key}, in(1s))); // evicted under memory pressure
  TierResult<std::optional<TierObject>> evicted = tier->lookup(Mode::fast, make_key("k1"), 1s);
  ASSERT_TRUE(evicted);
  EXPECT_FALSE(evicted->has_value());
}

TEST_F(RedisTierTest, AWrongDigestIsRefused)
{
  std::unique_ptr<Tier> tier = make_tier(false);
  TierObject object = make_object("bytes");
  object.digest = sha256(std::string_view("other bytes"));
  TierResult<void> stored = tier->store(Mode::fast, make_key("k"), object, 1s);
  ASSERT_FALSE(stored);
  EXPECT_EQ(stored.error().error.code, ErrorCode::invalid_argument);
  TierResult<std::optional<TierObject>> found = tier->lookup(Mode::fast, make_key("k"), 1s);
  ASSERT_TRUE(found);
  EXPECT_FALSE(found->has_value());
}

TEST_F(RedisTierTest, ThreadsShareTheTier)
{
  std::unique_ptr<Tier> tier = make_tier(false);
  std::atomic<int> found{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 12; ++i) {
    threads.emplace_back([&, i] {
      TierObject object = make_object("object " + std::to_string(i % 3));
      CacheKey key = make_key("k" + std::to_string(i));
      if (!tier->store(Mode::fast, key, object, 2s)) {
        return;
      }
      TierResult<std::optional<TierObject>> hit = tier->lookup(Mode::fast, key, 2s);
      if (hit && hit->has_value() && (*hit)->bytes == object.bytes) {
        ++found;
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(found.load(), 12);
}

TEST_F(RedisTierTest, ServerGoneFailsWithinBudgetAndServesAfterRestart)
{
  std::unique_ptr<Tier> tier = make_tier(false);
  TierObject object = make_object("kept");
  ASSERT_TRUE(tier->store(Mode::fast, make_key("k"), object, 1s));
  m_server.kill();
  for (int i = 0; i < 10; ++i) {
    Clock::time_point start = Clock::now();
    TierResult<std::optional<TierObject>> lookup = tier->lookup(Mode::fast, make_key("k"), 100ms);
    ASSERT_FALSE(lookup);
    EXPECT_FALSE(lookup.error().timeout) << "down is refused at once, not waited for";
    EXPECT_NE(lookup.error().error.message.find("redis unix:"), std::string::npos);
    TierResult<void> store = tier->store(Mode::fast, make_key("k2"), object, 100ms);
    ASSERT_FALSE(store);
    EXPECT_LT(elapsed_ms(start), 100);
  }

  // No persistence in this server: the restart comes back empty, and the tier serves again.
  ASSERT_TRUE(m_server.start());
  Deadline give_up = in(3s);
  TierResult<void> again = tier->store(Mode::fast, make_key("k"), object, 200ms);
  while (!again && Clock::now() < give_up) {
    std::this_thread::sleep_for(20ms);
    again = tier->store(Mode::fast, make_key("k"), object, 200ms);
  }
  ASSERT_TRUE(again) << again.error().error.message;
  TierResult<std::optional<TierObject>> found = tier->lookup(Mode::fast, make_key("k"), 1s);
  ASSERT_TRUE(found && found->has_value());
}

} // namespace
} // namespace d4r::cache::redis
