#include "daemon/metrics_text.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

namespace d4r::daemon {

namespace {

namespace pb = ::d4r::kernel::v1;

using Labels = std::vector<std::pair<std::string, std::string>>;

std::string mode_name(pb::Mode mode)
{
  return mode == pb::MODE_ACCURACY ? "accuracy" : "fast";
}

// Milliseconds as seconds, exactly: "1.25", "300", "0.001".
std::string seconds_of(int64_t ms)
{
  std::string text = std::to_string(ms / 1000);
  int64_t rest = ms % 1000;
  if (rest != 0) {
    std::string fraction = std::to_string(1000 + rest).substr(1);
    while (fraction.back() == '0') {
      fraction.pop_back();
    }
    text += '.' + fraction;
  }
  return text;
}

std::string escape_help(std::string_view text)
{
  std::string out;
  for (char c : text) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

class Writer {
public:
  void family(std::string_view name, std::string_view type, std::string_view help)
  {
    m_text += "# HELP " + std::string(name) + ' ' + escape_help(help) + '\n';
    m_text += "# TYPE " + std::string(name) + ' ' + std::string(type) + '\n';
  }
  void sample(std::string_view name, const Labels& labels, const std::string& value)
  {
    m_text += name;
    if (!labels.empty()) {
      m_text += '{';
      for (size_t i = 0; i < labels.size(); ++i) {
        m_text += (i ? "," : "") + labels[i].first + "=\"" + escape_label_value(labels[i].second) + '"';
      }
      m_text += '}';
    }
    m_text += ' ' + value + '\n';
  }
  void sample(std::string_view name, const Labels& labels, int64_t value)
  {
    sample(name, labels, std::to_string(value));
  }
  [[nodiscard]] std::string take() { return std::move(m_text); }

private:
  std::string m_text;
};

// One family with a sample per mode of the telemetry.
void per_mode(Writer& out, const pb::StatusReply& status, std::string_view name,
              std::string_view type, std::string_view help,
              const std::function<int64_t(const pb::ModeTelemetry&)>& value)
{
  out.family(name, type, help);
  for (const pb::ModeTelemetry& mode : status.telemetry().modes()) {
    out.sample(name, {{"mode", mode_name(mode.mode())}}, value(mode));
  }
}

void per_store(Writer& out, const pb::StatusReply& status, std::string_view name,
               std::string_view type, std::string_view help,
               const std::function<int64_t(const pb::StoreStats&)>& value)
{
  out.family(name, type, help);
  for (const pb::StoreStats& store : status.stores()) {
    out.sample(name, {{"mode", mode_name(store.mode())}}, value(store));
  }
}

void per_game(Writer& out, const pb::StatusReply& status, std::string_view name,
              std::string_view help, const std::function<int64_t(const pb::GameTelemetry&)>& value)
{
  out.family(name, "counter", help);
  for (const pb::GameTelemetry& game : status.telemetry().games()) {
    out.sample(name, {{"game", game.game()}, {"mode", mode_name(game.mode())}}, value(game));
  }
}

void write_requests(Writer& out, const pb::StatusReply& status)
{
  per_mode(out, status, "d4r_resolve_hits_total", "counter",
           "Resolve answers served from the store at once",
           [](const pb::ModeTelemetry& m) { return m.hits(); });
  out.family("d4r_resolve_misses_total", "counter",
             "Resolve answers not served from the store at once, by why they missed");
  for (const pb::ModeTelemetry& mode : status.telemetry().modes()) {
    std::map<std::string, int64_t> reasons(mode.miss_reasons().begin(), mode.miss_reasons().end());
    for (const auto& [reason, count] : reasons) {
      out.sample("d4r_resolve_misses_total", {{"mode", mode_name(mode.mode())}, {"reason", reason}},
                 count);
    }
  }
  per_mode(out, status, "d4r_served_bytes_total", "counter", "Code object bytes of READY answers",
           [](const pb::ModeTelemetry& m) { return m.bytes_served(); });
  per_game(out, status, "d4r_game_hits_total", "Resolve hits per game (its executable's name)",
           [](const pb::GameTelemetry& g) { return g.hits(); });
  per_game(out, status, "d4r_game_misses_total", "Resolve misses per game",
           [](const pb::GameTelemetry& g) { return g.misses(); });
  per_game(out, status, "d4r_game_builds_total", "Builds a game's requests started",
           [](const pb::GameTelemetry& g) { return g.builds(); });
  out.family("d4r_answers_total", "counter", "Daemon answers and events by counter name");
  std::map<std::string, int64_t> counters(status.counters().begin(), status.counters().end());
  for (const auto& [name, value] : counters) {
    out.sample("d4r_answers_total", {{"counter", name}}, value);
  }
}

void write_builds(Writer& out, const pb::StatusReply& status)
{
  const char* histogram = "d4r_build_duration_seconds";
  out.family(histogram, "histogram", "Wall time of finished builds (done or failed)");
  for (const pb::ModeTelemetry& mode : status.telemetry().modes()) {
    std::string name = mode_name(mode.mode());
    for (int i = 0; i < mode.build_ms_bounds_size() && i < mode.build_ms_buckets_size(); ++i) {
      out.sample(std::string(histogram) + "_bucket",
                 {{"mode", name}, {"le", seconds_of(mode.build_ms_bounds(i))}},
                 mode.build_ms_buckets(i));
    }
    out.sample(std::string(histogram) + "_bucket", {{"mode", name}, {"le", "+Inf"}}, mode.builds());
    out.sample(std::string(histogram) + "_sum", {{"mode", name}}, seconds_of(mode.build_ms_total()));
    out.sample(std::string(histogram) + "_count", {{"mode", name}}, mode.builds());
  }
  out.family("d4r_build_duration_max_seconds", "gauge", "The longest build since the daemon started");
  for (const pb::ModeTelemetry& mode : status.telemetry().modes()) {
    out.sample("d4r_build_duration_max_seconds", {{"mode", mode_name(mode.mode())}},
               seconds_of(mode.build_ms_max()));
  }
  per_mode(out, status, "d4r_build_failures_total", "counter", "Builds that failed",
           [](const pb::ModeTelemetry& m) { return m.build_failures(); });
  per_mode(out, status, "d4r_built_bytes_total", "counter", "Code object bytes builds produced",
           [](const pb::ModeTelemetry& m) { return m.bytes_built(); });
  out.family("d4r_builds_queued", "gauge", "Builds waiting for a worker");
  out.sample("d4r_builds_queued", {}, status.builds().queued());
  out.family("d4r_builds_running", "gauge", "Builds running now");
  out.sample("d4r_builds_running", {}, status.builds().running());
}

void write_stores(Writer& out, const pb::StatusReply& status)
{
  using S = const pb::StoreStats&;
  per_store(out, status, "d4r_store_entries", "gauge", "Index rows of the store",
            [](S s) { return s.entries(); });
  per_store(out, status, "d4r_store_bytes", "gauge", "Distinct objects' bytes on disk",
            [](S s) { return s.bytes(); });
  per_store(out, status, "d4r_store_max_bytes", "gauge", "The store's size cap",
            [](S s) { return s.max_bytes(); });
  per_store(out, status, "d4r_store_lookup_hits_total", "counter", "Index lookups that found a row",
            [](S s) { return s.hits(); });
  per_store(out, status, "d4r_store_lookup_misses_total", "counter", "Index lookups that found none",
            [](S s) { return s.misses(); });
  per_store(out, status, "d4r_store_inserts_total", "counter", "Objects stored",
            [](S s) { return s.inserts(); });
  per_store(out, status, "d4r_store_evictions_total", "counter", "Entries evicted by the size cap",
            [](S s) { return s.evictions(); });
  per_store(out, status, "d4r_store_quarantined_total", "counter",
            "Objects that failed their digest, set aside", [](S s) { return s.quarantined(); });
  per_store(out, status, "d4r_store_trash_objects", "gauge",
            "Removed objects whose files wait out their grace period",
            [](S s) { return s.trash_objects(); });
  per_store(out, status, "d4r_store_trash_bytes", "gauge", "Bytes of the trashed objects",
            [](S s) { return s.trash_bytes(); });
  per_store(out, status, "d4r_store_trash_cut_short_total", "counter",
            "Trashed files the size cap removed before their grace ended",
            [](S s) { return s.trash_cut_short(); });
  per_store(out, status, "d4r_store_index_replacements_total", "counter",
            "Damaged indexes replaced while running", [](S s) { return s.index_replacements(); });
}

// The build server's side (--listen): only when it listens, so a desktop's scrape stays as it was.
void write_remote(Writer& out, const pb::StatusReply& status)
{
  const pb::RemoteStats& remote = status.remote();
  if (remote.listen().empty()) {
    return;
  }
  out.family("d4r_remote_unauthenticated_total", "counter",
             "TCP calls refused for their token, by why (missing, unknown, revoked)");
  out.sample("d4r_remote_unauthenticated_total", {{"reason", "missing"}}, remote.unauthenticated_missing());
  out.sample("d4r_remote_unauthenticated_total", {{"reason", "unknown"}}, remote.unauthenticated_unknown());
  out.sample("d4r_remote_unauthenticated_total", {{"reason", "revoked"}}, remote.unauthenticated_revoked());
  out.family("d4r_remote_requests_total", "counter", "TCP calls per client (its token's name)");
  for (const pb::RemoteClient& client : remote.clients()) {
    out.sample("d4r_remote_requests_total", {{"client", client.name()}}, client.requests());
  }
  out.family("d4r_remote_failed_total", "counter", "TCP calls per client answered with an error");
  for (const pb::RemoteClient& client : remote.clients()) {
    out.sample("d4r_remote_failed_total", {{"client", client.name()}}, client.failed());
  }
  out.family("d4r_remote_refused_total", "counter", "TCP calls refused for a client's revoked token");
  for (const pb::RemoteClient& client : remote.clients()) {
    out.sample("d4r_remote_refused_total", {{"client", client.name()}}, client.refused());
  }
  out.family("d4r_remote_rejected_total", "counter",
             "TCP calls per client refused by a client limit (--client-*), by limit");
  for (const pb::RemoteClient& client : remote.clients()) {
    std::map<std::string, int64_t> by_limit(client.rejected().begin(), client.rejected().end());
    for (const auto& [limit, calls] : by_limit) {
      out.sample("d4r_remote_rejected_total", {{"client", client.name()}, {"limit", limit}}, calls);
    }
  }
}

} // namespace

std::string escape_label_value(std::string_view value)
{
  std::string out;
  for (char c : value) {
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

std::string metrics_text(const pb::StatusReply& status)
{
  Writer out;
  out.family("d4r_info", "gauge", "The daemon's version and detected GPU target");
  out.sample("d4r_info", {{"version", status.version()}, {"target", status.detected_target()}}, 1);
  out.family("d4r_uptime_seconds", "gauge", "Seconds since the daemon started");
  out.sample("d4r_uptime_seconds", {}, seconds_of(status.uptime_ms()));
  write_requests(out, status);
  write_builds(out, status);
  write_stores(out, status);
  write_remote(out, status);
  return out.take();
}

} // namespace d4r::daemon
