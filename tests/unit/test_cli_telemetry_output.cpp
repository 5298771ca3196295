// How `d4r-kernel status` shows telemetry: the per-mode table, a row per miss reason any mode
// counted, the build-time histogram as counts per bucket (not cumulative), the games, the trash;
// and the same numbers in --json.

#include "cli/telemetry_output.hpp"

#include <gtest/gtest.h>

namespace d4r::cli {
namespace {

namespace pb = ::d4r::kernel::v1;

pb::StatusReply sample()
{
  pb::StatusReply reply;
  pb::StoreStats& store = *reply.add_stores();
  store.set_mode(pb::MODE_FAST);
  store.set_trash_objects(3);
  store.set_trash_bytes(2048);
  store.set_trash_cut_short(1);
  store.set_index_replacements(2);
  for (pb::Mode mode : {pb::MODE_FAST, pb::MODE_ACCURACY}) {
    pb::ModeTelemetry& m = *reply.mutable_telemetry()->add_modes();
    m.set_mode(mode);
    for (int64_t bound : {250, 1000, 5000}) {
      m.add_build_ms_bounds(bound);
    }
    (*m.mutable_miss_reasons())["new"] = mode == pb::MODE_FAST ? 4 : 0;
    (*m.mutable_miss_reasons())["evicted"] = 0;
    (*m.mutable_miss_reasons())["stale_toolchain"] = mode == pb::MODE_ACCURACY ? 2 : 0;
    if (mode == pb::MODE_FAST) {
      m.set_hits(7);
      m.set_misses(4);
      m.set_builds(3);
      m.set_build_ms_total(6000);
      m.set_build_ms_max(4000);
      m.add_build_ms_buckets(1); // cumulative: 1 <= 250 ms, 1 more <= 1 s, 1 more <= 5 s
      m.add_build_ms_buckets(2);
      m.add_build_ms_buckets(3);
    } else {
      m.set_misses(2);
      for (int i = 0; i < 3; ++i) {
        m.add_build_ms_buckets(0);
      }
    }
  }
  pb::GameTelemetry& game = *reply.mutable_telemetry()->add_games();
  game.set_game("Game.exe");
  game.set_mode(pb::MODE_FAST);
  game.set_hits(7);
  game.set_misses(4);
  game.set_builds(3);
  return reply;
}

bool contains(const std::string& text, const std::string& part)
{
  return text.find(part) != std::string::npos;
}

TEST(CliTelemetryOutput, Text)
{
  std::string text = telemetry_text(sample());
  EXPECT_TRUE(contains(text, "miss reason      fast  accuracy\nnew                 4         0\n"
                             "stale_toolchain     0         2\n"))
      << text;
  EXPECT_FALSE(contains(text, "evicted")) << "a reason no mode counted is left out\n" << text;
  EXPECT_TRUE(contains(text, "build time  <= 250 ms  <= 1s  <= 5s  more\n"
                             "fast                1      1      1     0\n"))
      << text;
  EXPECT_TRUE(contains(text, "Game.exe  fast     7       4       3\n")) << text;
  EXPECT_TRUE(contains(text, "fast              3      2.0 KiB          1               2\n")) << text;
  EXPECT_TRUE(contains(text, "avg build")) << text;
  EXPECT_TRUE(contains(text, "fast         7       4     0 B       3       0    0 B         2s         4s\n"))
      << "6000 ms over 3 builds, the longest 4000\n" << text;
}

TEST(CliTelemetryOutput, Json)
{
  JsonWriter json;
  json.begin_object();
  telemetry_json(json, sample());
  json.end_object();
  ASSERT_TRUE(json.complete());
  const std::string& text = json.text();
  EXPECT_TRUE(contains(text, R"("store_trash":[{"mode":"fast","trash_objects":3,"trash_bytes":2048,)"
                             R"("trash_cut_short":1,"index_replacements":2}])"))
      << text;
  EXPECT_TRUE(contains(text, R"("miss_reasons":{"evicted":0,"new":4,"stale_toolchain":0})")) << text;
  EXPECT_TRUE(contains(text, R"("build_ms_buckets":[{"le_ms":250,"builds":1},)")) << text;
  EXPECT_TRUE(contains(text, R"("games":[{"game":"Game.exe","mode":"fast","hits":7,"misses":4,"builds":3}])"))
      << text;
}

} // namespace
} // namespace d4r::cli
