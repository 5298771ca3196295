#include "daemon/telemetry_wire.hpp"

namespace d4r::daemon::wire {

namespace {

namespace pb = ::d4r::kernel::v1;

pb::Mode proto_mode(Mode mode)
{
  return mode == Mode::accuracy ? pb::MODE_ACCURACY : pb::MODE_FAST;
}

} // namespace

void fill_telemetry(const TelemetrySnapshot& telemetry, const std::vector<cache::StoreStats>& stores,
                    pb::Telemetry& out)
{
  for (const ModeTelemetry& mode : telemetry.modes) {
    pb::ModeTelemetry& row = *out.add_modes();
    row.set_mode(proto_mode(mode.mode));
    row.set_hits(mode.hits);
    row.set_misses(mode.misses);
    for (size_t i = 0; i < k_miss_reasons; ++i) {
      (*row.mutable_miss_reasons())[to_string(static_cast<MissReason>(i))] = mode.miss_reasons[i];
    }
    row.set_builds(mode.builds);
    row.set_build_failures(mode.build_failures);
    row.set_build_ms_total(mode.build_ms_total);
    row.set_build_ms_max(mode.build_ms_max);
    for (size_t i = 0; i < k_build_ms_bounds.size(); ++i) {
      row.add_build_ms_bounds(k_build_ms_bounds[i]);
      row.add_build_ms_buckets(mode.build_ms_buckets[i]);
    }
    row.set_bytes_served(mode.bytes_served);
    row.set_bytes_built(mode.bytes_built);
    for (const cache::StoreStats& store : stores) {
      if (store.mode == mode.mode) {
        row.set_bytes_stored(store.bytes);
      }
    }
  }
  for (const GameTelemetry& game : telemetry.games) {
    pb::GameTelemetry& row = *out.add_games();
    row.set_game(game.game);
    row.set_mode(proto_mode(game.mode));
    row.set_hits(game.hits);
    row.set_misses(game.misses);
    row.set_builds(game.builds);
  }
}

} // namespace d4r::daemon::wire
