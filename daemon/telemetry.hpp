#pragma once
// What people read in `d4r-kernel status` and the metrics scrape about the requests themselves:
// per accuracy mode, hits and why each miss missed (miss_reason.hpp), build times (count, total,
// max, a histogram) and code object bytes served and built; per game (the executable name its
// client sent), hits, misses and builds. The game table is bounded: past k_max_games names the
// one seen longest ago is merged into "other". Nothing here leaves the machine but through
// Status and Metrics answers to a caller of the daemon's socket.

#include "daemon/counters.hpp"
#include "daemon/miss_reason.hpp"
#include "util/kernel_identity.hpp"

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::daemon {

// Upper bounds (ms) of the build-time histogram's buckets; +Inf is the count.
inline constexpr std::array<int64_t, 7> k_build_ms_bounds{250, 1000, 5000, 15000, 60000, 120000, 300000};

struct ModeTelemetry {
  Mode mode = Mode::fast;
  int64_t hits = 0;
  int64_t misses = 0;
  std::array<int64_t, k_miss_reasons> miss_reasons{};
  int64_t builds = 0;
  int64_t build_failures = 0;
  int64_t build_ms_total = 0;
  int64_t build_ms_max = 0;
  std::array<int64_t, k_build_ms_bounds.size()> build_ms_buckets{}; // cumulative
  int64_t bytes_served = 0;
  int64_t bytes_built = 0;
};

struct GameTelemetry {
  std::string game;
  Mode mode = Mode::fast;
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t builds = 0;
};

struct TelemetrySnapshot {
  std::vector<ModeTelemetry> modes;  // fast, accuracy
  std::vector<GameTelemetry> games;  // by name, "other" and "unknown" among them; rows with counts
};

// One answer as telemetry sees it.
struct AnswerFacts {
  Mode mode = Mode::fast;
  std::string_view game;
  bool background = false;    // warm-up work: counts only the builds it started, for its game
  Counter counter = Counter::not_found_error;
  std::string_view reason;
  std::optional<MissReason> cache_miss; // set when the store missed and the answer built/imported
  bool started_build = false;
  int64_t bytes_served = 0;   // READY answers: the object's size
};

// The name a game is counted under: at most k_max_game_bytes (cut at a character boundary),
// control characters as '?', "unknown" for none.
[[nodiscard]] std::string game_label(std::string_view game);

class Telemetry {
public:
  static constexpr size_t k_max_games = 64;
  static constexpr size_t k_max_game_bytes = 64;

  void record_answer(const AnswerFacts& facts);
  // A READY answer given again without the core answering anew (KernelCore::still_ready).
  void record_kept_hit(Mode mode, std::string_view game, int64_t bytes);
  void record_build(Mode mode, std::chrono::milliseconds elapsed, int64_t bytes, bool ok);
  [[nodiscard]] MissClassifier& misses() { return m_misses; }
  [[nodiscard]] TelemetrySnapshot snapshot() const;

private:
  struct ModeCounts {
    std::atomic<int64_t> hits{0};
    std::atomic<int64_t> misses{0};
    std::array<std::atomic<int64_t>, k_miss_reasons> reasons{};
    std::atomic<int64_t> bytes_served{0};
  };
  struct GameCounts {
    std::array<std::array<int64_t, 3>, 2> by_mode{}; // hits, misses, builds
    uint64_t last_seen = 0;
  };
  struct BuildCounts {
    int64_t builds = 0;
    int64_t failures = 0;
    int64_t total_ms = 0;
    int64_t max_ms = 0;
    std::array<int64_t, k_build_ms_bounds.size()> buckets{};
    int64_t bytes = 0;
  };
  void count_game(Mode mode, std::string_view game, int64_t hits, int64_t misses, int64_t builds);

  std::array<ModeCounts, 2> m_modes;
  MissClassifier m_misses;
  mutable std::mutex m_mutex; // the games and builds below
  std::map<std::string, GameCounts, std::less<>> m_games;
  uint64_t m_sequence = 0;
  std::array<BuildCounts, 2> m_builds;
};

} // namespace d4r::daemon
