#include "cli/status_servers.hpp"

#include "cli/output.hpp"

#include <map>

namespace d4r::cli {

namespace {

// An empty RemoteStats is what an old daemon, or one not listening, leaves: treat both as absent.
bool has_remote(const pb::StatusReply& reply)
{
  return reply.has_remote() && !reply.remote().listen().empty();
}

std::string count(int64_t value, const char* what)
{
  return std::to_string(value) + " " + what;
}

// The calls a client limit refused, by limit, in the limits' order (a protobuf map has none).
std::map<std::string, int64_t> rejected_by_limit(const pb::RemoteClient& client)
{
  return {client.rejected().begin(), client.rejected().end()};
}

std::string rejected_text(const pb::RemoteClient& client)
{
  std::string out;
  for (const auto& [limit, calls] : rejected_by_limit(client)) {
    out += (out.empty() ? "" : ", ") + limit + " " + std::to_string(calls);
  }
  return out.empty() ? "-" : out;
}

} // namespace

std::string remote_text(const pb::StatusReply& reply)
{
  if (!has_remote(reply)) {
    return {};
  }
  const pb::RemoteStats& remote = reply.remote();
  std::string out = "\nbuild server: " + remote.listen() + ", mTLS " +
                    (remote.mutual_tls() ? "on" : "off") + "; unauthenticated: " +
                    count(remote.unauthenticated_missing(), "missing token, ") +
                    count(remote.unauthenticated_unknown(), "unknown token, ") +
                    count(remote.unauthenticated_revoked(), "revoked token") + "\n";
  if (remote.clients().empty()) {
    return out + "no clients yet\n";
  }
  using A = Table::Align;
  Table clients({"client", "requests", "failed", "refused", "over a limit", "last seen"},
                {A::left, A::right, A::right, A::right, A::left, A::left});
  for (const pb::RemoteClient& c : remote.clients()) {
    clients.add_row({c.name(), std::to_string(c.requests()), std::to_string(c.failed()),
                     std::to_string(c.refused()), rejected_text(c),
                     format_unix_ms(c.last_seen_unix() * 1000)});
  }
  return out + clients.render();
}

void remote_json(JsonWriter& json, const pb::StatusReply& reply)
{
  if (!has_remote(reply)) {
    return;
  }
  const pb::RemoteStats& remote = reply.remote();
  json.key("remote").begin_object();
  json.key("listen").string(remote.listen());
  json.key("mutual_tls").boolean(remote.mutual_tls());
  json.key("unauthenticated").begin_object();
  json.key("missing").number(remote.unauthenticated_missing());
  json.key("unknown").number(remote.unauthenticated_unknown());
  json.key("revoked").number(remote.unauthenticated_revoked());
  json.end_object();
  json.key("clients").begin_array();
  for (const pb::RemoteClient& c : remote.clients()) {
    json.begin_object();
    json.key("name").string(c.name());
    json.key("requests").number(c.requests());
    json.key("failed").number(c.failed());
    json.key("refused").number(c.refused());
    json.key("rejected").begin_object();
    for (const auto& [limit, calls] : rejected_by_limit(c)) {
      json.key(limit).number(calls);
    }
    json.end_object();
    json.key("last_seen_unix").number(c.last_seen_unix());
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

std::string tiers_text(const pb::StatusReply& reply)
{
  if (reply.tiers().empty()) {
    return {};
  }
  std::string out = "\ntiers (asked in this order):\n";
  for (const pb::TierHealth& t : reply.tiers()) {
    out += "  " + t.name() + ": " + count(t.hits(), "hits, ") + count(t.misses(), "misses, ") +
           count(t.stores(), "stores, ") + count(t.failures(), "failures (") +
           count(t.timeouts(), "timeouts), ") + count(t.skipped(), "skipped, ") +
           count(t.mismatches(), "mismatches");
    if (t.builds() > 0) {
      out += ", " + count(t.builds(), "built there");
    }
    if (!t.hosts().empty()) {
      std::string hosts;
      for (const std::string& host : t.hosts()) {
        hosts += (hosts.empty() ? "" : ", ") + host;
      }
      out += "; build hosts alive: " + hosts;
    }
    if (t.distrusted()) {
      out += "; distrusted (not asked again until the daemon restarts)";
    } else if (t.backed_off()) {
      out += "; backed off";
    }
    if (!t.last_error().empty()) {
      out += "; last error: " + t.last_error().substr(0, 200);
    }
    out += "\n";
  }
  return out;
}

void tiers_json(JsonWriter& json, const pb::StatusReply& reply)
{
  json.key("tiers").begin_array();
  for (const pb::TierHealth& t : reply.tiers()) {
    json.begin_object();
    json.key("name").string(t.name());
    json.key("hits").number(t.hits());
    json.key("misses").number(t.misses());
    json.key("failures").number(t.failures());
    json.key("timeouts").number(t.timeouts());
    json.key("skipped").number(t.skipped());
    json.key("mismatches").number(t.mismatches());
    json.key("stores").number(t.stores());
    json.key("builds").number(t.builds());
    json.key("backed_off").boolean(t.backed_off());
    json.key("distrusted").boolean(t.distrusted());
    json.key("last_error").string(t.last_error());
    json.key("hosts").begin_array();
    for (const std::string& host : t.hosts()) {
      json.string(host);
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
}

} // namespace d4r::cli
