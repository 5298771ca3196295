#include "daemon/telemetry.hpp"

namespace d4r::daemon {

namespace {

size_t index_of(Mode mode)
{
  return mode == Mode::accuracy ? 1 : 0;
}

constexpr const char* k_other_game = "other";

} // namespace

std::string game_label(std::string_view game)
{
  if (game.empty()) {
    return "unknown";
  }
  size_t end = std::min(game.size(), Telemetry::k_max_game_bytes);
  // Not in the middle of a UTF-8 sequence: back to its lead byte.
  while (end < game.size() && end > 0 && (static_cast<unsigned char>(game[end]) & 0xc0) == 0x80) {
    --end;
  }
  std::string label(game.substr(0, end));
  for (char& c : label) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      c = '?';
    }
  }
  return label;
}

void Telemetry::record_answer(const AnswerFacts& facts)
{
  const bool hit = facts.counter == Counter::resolve_ready && !facts.cache_miss;
  const int64_t builds = facts.started_build ? 1 : 0;
  if (facts.background) {
    if (builds > 0) {
      count_game(facts.mode, facts.game, 0, 0, builds);
    }
    return;
  }
  ModeCounts& counts = m_modes[index_of(facts.mode)];
  if (hit) {
    counts.hits.fetch_add(1, std::memory_order_relaxed);
  } else {
    counts.misses.fetch_add(1, std::memory_order_relaxed);
    MissReason why = miss_reason_of(facts.counter, facts.reason, facts.cache_miss);
    counts.reasons[static_cast<size_t>(why)].fetch_add(1, std::memory_order_relaxed);
  }
  counts.bytes_served.fetch_add(facts.bytes_served, std::memory_order_relaxed);
  count_game(facts.mode, facts.game, hit ? 1 : 0, hit ? 0 : 1, builds);
}

void Telemetry::record_kept_hit(Mode mode, std::string_view game, int64_t bytes)
{
  ModeCounts& counts = m_modes[index_of(mode)];
  counts.hits.fetch_add(1, std::memory_order_relaxed);
  counts.bytes_served.fetch_add(bytes, std::memory_order_relaxed);
  count_game(mode, game, 1, 0, 0);
}

void Telemetry::record_build(Mode mode, std::chrono::milliseconds elapsed, int64_t bytes, bool ok)
{
  const int64_t ms = elapsed.count();
  std::lock_guard lock(m_mutex);
  BuildCounts& counts = m_builds[index_of(mode)];
  ++counts.builds;
  counts.failures += ok ? 0 : 1;
  counts.total_ms += ms;
  counts.max_ms = std::max(counts.max_ms, ms);
  for (size_t i = 0; i < k_build_ms_bounds.size(); ++i) {
    counts.buckets[i] += ms <= k_build_ms_bounds[i] ? 1 : 0;
  }
  counts.bytes += bytes;
}

void Telemetry::count_game(Mode mode, std::string_view game, int64_t hits, int64_t misses,
                           int64_t builds)
{
  std::string label = game_label(game);
  std::lock_guard lock(m_mutex);
  auto found = m_games.find(label);
  if (found == m_games.end()) {
    const size_t named = m_games.size() - (m_games.contains(k_other_game) ? 1 : 0);
    if (named >= k_max_games && label != k_other_game) {
      // The game seen longest ago makes room, its counts kept under "other".
      auto oldest = m_games.end();
      for (auto it = m_games.begin(); it != m_games.end(); ++it) {
        const bool older = oldest == m_games.end() || it->second.last_seen < oldest->second.last_seen;
        if (it->first != k_other_game && older) {
          oldest = it;
        }
      }
      GameCounts& other = m_games[k_other_game];
      for (size_t m = 0; m < 2; ++m) {
        for (size_t k = 0; k < 3; ++k) {
          other.by_mode[m][k] += oldest->second.by_mode[m][k];
        }
      }
      m_games.erase(oldest);
    }
    found = m_games.emplace(std::move(label), GameCounts{}).first;
  }
  std::array<int64_t, 3>& counts = found->second.by_mode[index_of(mode)];
  counts[0] += hits;
  counts[1] += misses;
  counts[2] += builds;
  found->second.last_seen = ++m_sequence;
}

TelemetrySnapshot Telemetry::snapshot() const
{
  TelemetrySnapshot snapshot;
  std::lock_guard lock(m_mutex);
  for (Mode mode : {Mode::fast, Mode::accuracy}) {
    const ModeCounts& counts = m_modes[index_of(mode)];
    const BuildCounts& builds = m_builds[index_of(mode)];
    ModeTelemetry out;
    out.mode = mode;
    out.hits = counts.hits.load(std::memory_order_relaxed);
    out.misses = counts.misses.load(std::memory_order_relaxed);
    for (size_t i = 0; i < k_miss_reasons; ++i) {
      out.miss_reasons[i] = counts.reasons[i].load(std::memory_order_relaxed);
    }
    out.bytes_served = counts.bytes_served.load(std::memory_order_relaxed);
    out.builds = builds.builds;
    out.build_failures = builds.failures;
    out.build_ms_total = builds.total_ms;
    out.build_ms_max = builds.max_ms;
    out.build_ms_buckets = builds.buckets;
    out.bytes_built = builds.bytes;
    snapshot.modes.push_back(out);
  }
  for (const auto& [game, counts] : m_games) {
    for (Mode mode : {Mode::fast, Mode::accuracy}) {
      const std::array<int64_t, 3>& c = counts.by_mode[index_of(mode)];
      if (c[0] != 0 || c[1] != 0 || c[2] != 0) {
        snapshot.games.push_back(GameTelemetry{game, mode, c[0], c[1], c[2]});
      }
    }
  }
  return snapshot;
}

} // namespace d4r::daemon
