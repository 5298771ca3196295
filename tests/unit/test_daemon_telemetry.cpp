// Telemetry without a server: the miss reasons answers map to, the bounded game table (the
// oldest game merged into "other"), game labels, the build-time histogram, and the miss
// classifier's new / evicted / stale / corrupt over a real cache.

#include "daemon/telemetry.hpp"

#include "cache/cache.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <map>

namespace d4r::daemon {
namespace {

AnswerFacts answer(Counter counter, std::string_view game = "Game.exe", Mode mode = Mode::fast)
{
  AnswerFacts facts;
  facts.mode = mode;
  facts.game = game;
  facts.counter = counter;
  return facts;
}

std::map<std::string, int64_t> reasons_of(const ModeTelemetry& mode)
{
  std::map<std::string, int64_t> out;
  for (size_t i = 0; i < k_miss_reasons; ++i) {
    if (mode.miss_reasons[i] != 0) {
      out[to_string(static_cast<MissReason>(i))] = mode.miss_reasons[i];
    }
  }
  return out;
}

TEST(MissReason, AnswersMapToTheirReason)
{
  EXPECT_EQ(miss_reason_of(Counter::not_found_not_listed, "", std::nullopt), MissReason::unlisted_hash);
  EXPECT_EQ(miss_reason_of(Counter::not_found_hash_mismatch, "", std::nullopt), MissReason::unlisted_hash);
  EXPECT_EQ(miss_reason_of(Counter::rejected_wrong_origin, "", std::nullopt), MissReason::rejected);
  EXPECT_EQ(miss_reason_of(Counter::rejected_broken_contract, "", std::nullopt), MissReason::rejected);
  EXPECT_EQ(miss_reason_of(Counter::not_found_host_variables, "", std::nullopt), MissReason::host_variables);
  EXPECT_EQ(miss_reason_of(Counter::not_found_build_failed, "recipe x: clang: error", MissReason::new_kernel),
            MissReason::build_failed);
  EXPECT_EQ(miss_reason_of(Counter::not_found_build_failed,
                           "recipe x: translate: unsupported: tcgen05.fence at line 6", std::nullopt),
            MissReason::unsupported_instruction);
  EXPECT_EQ(miss_reason_of(Counter::pending, "", MissReason::stale_toolchain), MissReason::stale_toolchain);
  EXPECT_EQ(miss_reason_of(Counter::pending, "", std::nullopt), MissReason::in_flight);
  EXPECT_EQ(miss_reason_of(Counter::resolve_ready, "", MissReason::evicted), MissReason::evicted);
  EXPECT_EQ(miss_reason_of(Counter::not_found_error, "", MissReason::corrupt), MissReason::corrupt);
  EXPECT_EQ(miss_reason_of(Counter::not_found_no_folder, "", std::nullopt), MissReason::no_replacement);
  EXPECT_EQ(miss_reason_of(Counter::rejected_build_queue_full, "", std::nullopt), MissReason::busy);
}

TEST(Telemetry, HitsMissesAndBytesPerMode)
{
  Telemetry telemetry;
  AnswerFacts hit = answer(Counter::resolve_ready);
  hit.bytes_served = 1000;
  telemetry.record_answer(hit);
  AnswerFacts built = answer(Counter::resolve_ready, "Game.exe", Mode::accuracy);
  built.cache_miss = MissReason::new_kernel;
  built.started_build = true;
  built.bytes_served = 50;
  telemetry.record_answer(built);
  telemetry.record_answer(answer(Counter::not_found_not_listed));
  AnswerFacts background = answer(Counter::pending);
  background.background = true;
  background.started_build = true;
  telemetry.record_answer(background); // a warm-up: its build counts for the game, nothing else
  telemetry.record_kept_hit(Mode::fast, "Game.exe", 1000);

  TelemetrySnapshot snapshot = telemetry.snapshot();
  ASSERT_EQ(snapshot.modes.size(), 2u);
  const ModeTelemetry& fast = snapshot.modes[0];
  const ModeTelemetry& accuracy = snapshot.modes[1];
  EXPECT_EQ(fast.hits, 2);
  EXPECT_EQ(fast.misses, 1);
  EXPECT_EQ(fast.bytes_served, 2000);
  EXPECT_EQ(reasons_of(fast), (std::map<std::string, int64_t>{{"unlisted_hash", 1}}));
  EXPECT_EQ(accuracy.hits, 0);
  EXPECT_EQ(accuracy.misses, 1);
  EXPECT_EQ(reasons_of(accuracy), (std::map<std::string, int64_t>{{"new", 1}}));
  ASSERT_EQ(snapshot.games.size(), 2u);
  EXPECT_EQ(snapshot.games[0].game, "Game.exe");
  EXPECT_EQ(snapshot.games[0].mode, Mode::fast);
  EXPECT_EQ(snapshot.games[0].hits, 2);
  EXPECT_EQ(snapshot.games[0].misses, 1);
  EXPECT_EQ(snapshot.games[0].builds, 1);
  EXPECT_EQ(snapshot.games[1].mode, Mode::accuracy);
  EXPECT_EQ(snapshot.games[1].builds, 1);
}

TEST(Telemetry, TheGameTableIsBoundedAndTheOldestGoesToOther)
{
  Telemetry telemetry;
  for (size_t i = 0; i < Telemetry::k_max_games + 3; ++i) {
    telemetry.record_answer(answer(Counter::resolve_ready, "game-" + std::to_string(i) + ".exe"));
    if (i == 3) {
      // game-0 is asked again after game-1..3: game-1, 2 and 3 are the oldest and go first.
      telemetry.record_answer(answer(Counter::not_found_not_listed, "game-0.exe"));
    }
  }
  telemetry.record_answer(answer(Counter::not_found_not_listed, "game-0.exe"));
  TelemetrySnapshot snapshot = telemetry.snapshot();
  std::map<std::string, GameTelemetry> games;
  for (const GameTelemetry& game : snapshot.games) {
    games[game.game] = game;
  }
  EXPECT_EQ(games.size(), Telemetry::k_max_games + 1) << "64 games and other";
  ASSERT_TRUE(games.contains("other"));
  EXPECT_EQ(games["other"].hits, 3);
  EXPECT_FALSE(games.contains("game-1.exe"));
  EXPECT_FALSE(games.contains("game-3.exe"));
  EXPECT_TRUE(games.contains("game-4.exe"));
  ASSERT_TRUE(games.contains("game-0.exe"));
  EXPECT_EQ(games["game-0.exe"].misses, 2);
  // Nothing is lost: the totals are the mode's.
  int64_t hits = 0;
  for (const auto& [name, game] : games) {
    hits += game.hits;
  }
  EXPECT_EQ(hits, snapshot.modes[0].hits);
}

TEST(Telemetry, GameLabels)
{
  EXPECT_EQ(game_label(""), "unknown");
  EXPECT_EQ(game_label("a\nb\x7f"), "a?b?");
  EXPECT_EQ(game_label("say \"hi\" \\o/"), "say \"hi\" \\o/") << "escaping is the renderer's";
  std::string long_name(63, 'x');
  long_name += "\xc3\xa9tude.exe"; // é across the 64-byte cut
  EXPECT_EQ(game_label(long_name), std::string(63, 'x'));
  EXPECT_EQ(game_label(std::string(100, 'y')).size(), Telemetry::k_max_game_bytes);
}

TEST(Telemetry, BuildTimesGoIntoCumulativeBuckets)
{
  Telemetry telemetry;
  telemetry.record_build(Mode::fast, std::chrono::milliseconds(100), 4096, true);
  telemetry.record_build(Mode::fast, std::chrono::milliseconds(1000), 8192, true);
  telemetry.record_build(Mode::fast, std::chrono::milliseconds(400000), 0, false);
  ModeTelemetry fast = telemetry.snapshot().modes[0];
  EXPECT_EQ(fast.builds, 3);
  EXPECT_EQ(fast.build_failures, 1);
  EXPECT_EQ(fast.build_ms_total, 401100);
  EXPECT_EQ(fast.build_ms_max, 400000);
  EXPECT_EQ(fast.bytes_built, 12288);
  EXPECT_EQ(fast.build_ms_buckets[0], 1) << "<= 250 ms";
  EXPECT_EQ(fast.build_ms_buckets[1], 2) << "<= 1 s, inclusive";
  EXPECT_EQ(fast.build_ms_buckets.back(), 2) << "400 s is past the last bound";
  EXPECT_EQ(telemetry.snapshot().modes[1].builds, 0);
}

class ClassifierTest : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (std::filesystem::temp_directory_path() / "d4r-telemetry-XXXXXX").string();
    m_dir = mkdtemp(pattern.data());
    cache::CacheOptions options;
    options.root = m_dir;
    Expected<std::unique_ptr<cache::Cache>> opened = cache::Cache::open(options);
    ASSERT_TRUE(opened) << opened.error().message;
    m_cache = std::move(*opened);
  }
  void TearDown() override { std::filesystem::remove_all(m_dir); }

  static cache::CacheKey key(std::string toolchain, std::string recipe)
  {
    return cache::CacheKey{0x1234, "kernel_a", "gfx1101", "", std::move(toolchain), std::move(recipe)};
  }

  std::filesystem::path m_dir;
  std::unique_ptr<cache::Cache> m_cache;
};

TEST_F(ClassifierTest, NewEvictedStaleAndCorrupt)
{
  MissClassifier classifier;
  EXPECT_EQ(classifier.classify(Mode::fast, key("clang-1", "r@1"), *m_cache), MissReason::new_kernel);
  // Seen present, then missed under the same key: evicted.
  classifier.note_present(Mode::fast, key("clang-1", "r@1"));
  EXPECT_EQ(classifier.classify(Mode::fast, key("clang-1", "r@1"), *m_cache), MissReason::evicted);
  EXPECT_EQ(classifier.classify(Mode::accuracy, key("clang-1", "r@1"), *m_cache), MissReason::new_kernel)
      << "modes are apart";
  EXPECT_EQ(classifier.classify(Mode::fast, key("clang-2", "r@1"), *m_cache), MissReason::stale_toolchain);
  EXPECT_EQ(classifier.classify(Mode::fast, key("clang-1", "r@2"), *m_cache), MissReason::stale_translator);
  classifier.note_corrupt(Mode::fast, key("clang-1", "r@1"));
  EXPECT_EQ(classifier.classify(Mode::fast, key("clang-1", "r@1"), *m_cache), MissReason::corrupt);
  classifier.forget(std::nullopt);
  EXPECT_EQ(classifier.classify(Mode::fast, key("clang-3", "r@1"), *m_cache), MissReason::new_kernel)
      << "after a purge what was there is forgotten";
}

TEST_F(ClassifierTest, AnotherProcessesObjectInTheIndexMakesAMissStale)
{
  // As after a restart with an updated toolchain: this process saw nothing, the index has the
  // kernel from the old one.
  std::vector<std::byte> object(64, std::byte{7});
  ASSERT_TRUE(m_cache->insert(Mode::fast, key("clang-old", "r@1"), object, "", "test"));
  MissClassifier classifier;
  EXPECT_EQ(classifier.classify(Mode::fast, key("clang-new", "r@1"), *m_cache), MissReason::stale_toolchain);
  EXPECT_EQ(classifier.classify(Mode::fast, key("clang-old", "r@9"), *m_cache), MissReason::stale_translator);
  cache::CacheKey other = key("clang-new", "r@1");
  other.kernel = "kernel_b";
  EXPECT_EQ(classifier.classify(Mode::fast, other, *m_cache), MissReason::new_kernel);
}

} // namespace
} // namespace d4r::daemon
