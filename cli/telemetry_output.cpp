#include "cli/telemetry_output.hpp"

#include "cli/output.hpp"

#include <map>
#include <set>

namespace d4r::cli {

namespace {

namespace pb = ::d4r::kernel::v1;
using A = Table::Align;

std::string seconds_text(int64_t ms)
{
  return ms < 1000 ? std::to_string(ms) + " ms" : format_duration_ms(ms);
}

std::string requests_text(const pb::Telemetry& telemetry)
{
  Table table({"mode", "hits", "misses", "served", "builds", "failed", "built", "avg build",
               "max build"},
              {A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right,
               A::right});
  for (const pb::ModeTelemetry& m : telemetry.modes()) {
    table.add_row({mode_name(m.mode()), std::to_string(m.hits()), std::to_string(m.misses()),
                   format_bytes(m.bytes_served()), std::to_string(m.builds()),
                   std::to_string(m.build_failures()), format_bytes(m.bytes_built()),
                   m.builds() > 0 ? seconds_text(m.build_ms_total() / m.builds()) : "-",
                   m.builds() > 0 ? seconds_text(m.build_ms_max()) : "-"});
  }
  return table.render();
}

// One row per reason that any mode counted, one column per mode.
std::string reasons_text(const pb::Telemetry& telemetry)
{
  std::vector<std::string> headers{"miss reason"};
  std::vector<A> aligns{A::left};
  std::set<std::string> reasons;
  for (const pb::ModeTelemetry& m : telemetry.modes()) {
    headers.push_back(mode_name(m.mode()));
    aligns.push_back(A::right);
    for (const auto& [reason, count] : m.miss_reasons()) {
      if (count > 0) {
        reasons.insert(reason);
      }
    }
  }
  if (reasons.empty()) {
    return "no misses yet\n";
  }
  Table table(headers, aligns);
  for (const std::string& reason : reasons) {
    std::vector<std::string> row{reason};
    for (const pb::ModeTelemetry& m : telemetry.modes()) {
      auto found = m.miss_reasons().find(reason);
      row.push_back(std::to_string(found == m.miss_reasons().end() ? 0 : found->second));
    }
    table.add_row(row);
  }
  return table.render();
}

// Builds per time bucket (not cumulative, for people): "<= 1s", ..., "more".
std::string histogram_text(const pb::Telemetry& telemetry)
{
  std::vector<std::string> headers{"build time"};
  std::vector<A> aligns{A::left};
  const pb::ModeTelemetry* first = telemetry.modes().empty() ? nullptr : &telemetry.modes(0);
  if (first == nullptr || first->build_ms_bounds_size() == 0) {
    return "";
  }
  for (int64_t bound : first->build_ms_bounds()) {
    headers.push_back("<= " + seconds_text(bound));
    aligns.push_back(A::right);
  }
  headers.push_back("more");
  aligns.push_back(A::right);
  Table table(headers, aligns);
  bool any = false;
  for (const pb::ModeTelemetry& m : telemetry.modes()) {
    std::vector<std::string> row{mode_name(m.mode())};
    int64_t below = 0;
    for (int64_t cumulative : m.build_ms_buckets()) {
      row.push_back(std::to_string(cumulative - below));
      below = cumulative;
    }
    row.push_back(std::to_string(m.builds() - below));
    any = any || m.builds() > 0;
    table.add_row(row);
  }
  return any ? "\n" + table.render() : "";
}

std::string games_text(const pb::Telemetry& telemetry)
{
  if (telemetry.games().empty()) {
    return "no game has asked yet\n";
  }
  Table table({"game", "mode", "hits", "misses", "builds"},
              {A::left, A::left, A::right, A::right, A::right});
  for (const pb::GameTelemetry& g : telemetry.games()) {
    table.add_row({g.game(), mode_name(g.mode()), std::to_string(g.hits()),
                   std::to_string(g.misses()), std::to_string(g.builds())});
  }
  return table.render();
}

std::string trash_text(const pb::StatusReply& reply)
{
  Table table({"mode", "trash objects", "trash bytes", "cut short", "index replaced"},
              {A::left, A::right, A::right, A::right, A::right});
  for (const pb::StoreStats& s : reply.stores()) {
    table.add_row({mode_name(s.mode()), std::to_string(s.trash_objects()),
                   format_bytes(s.trash_bytes()), std::to_string(s.trash_cut_short()),
                   std::to_string(s.index_replacements())});
  }
  return table.render();
}

} // namespace

std::string telemetry_text(const pb::StatusReply& reply)
{
  const pb::Telemetry& telemetry = reply.telemetry();
  std::string out;
  if (!reply.stores().empty()) {
    out += "\n" + trash_text(reply);
  }
  if (telemetry.modes().empty()) {
    return out; // a daemon from before telemetry
  }
  out += "\n" + requests_text(telemetry);
  out += "\n" + reasons_text(telemetry);
  out += histogram_text(telemetry);
  out += "\n" + games_text(telemetry);
  return out;
}

void telemetry_json(JsonWriter& json, const pb::StatusReply& reply)
{
  json.key("store_trash").begin_array();
  for (const pb::StoreStats& s : reply.stores()) {
    json.begin_object();
    json.key("mode").string(mode_name(s.mode()));
    json.key("trash_objects").number(s.trash_objects());
    json.key("trash_bytes").number(s.trash_bytes());
    json.key("trash_cut_short").number(s.trash_cut_short());
    json.key("index_replacements").number(s.index_replacements());
    json.end_object();
  }
  json.end_array();
  json.key("telemetry").begin_object();
  json.key("modes").begin_array();
  for (const pb::ModeTelemetry& m : reply.telemetry().modes()) {
    json.begin_object();
    json.key("mode").string(mode_name(m.mode()));
    json.key("hits").number(m.hits());
    json.key("misses").number(m.misses());
    json.key("miss_reasons").begin_object();
    std::map<std::string, int64_t> reasons(m.miss_reasons().begin(), m.miss_reasons().end());
    for (const auto& [reason, count] : reasons) {
      json.key(reason).number(count);
    }
    json.end_object();
    json.key("builds").number(m.builds());
    json.key("build_failures").number(m.build_failures());
    json.key("build_ms_total").number(m.build_ms_total());
    json.key("build_ms_max").number(m.build_ms_max());
    json.key("build_ms_buckets").begin_array();
    for (int i = 0; i < m.build_ms_bounds_size() && i < m.build_ms_buckets_size(); ++i) {
      json.begin_object();
      json.key("le_ms").number(m.build_ms_bounds(i));
      json.key("builds").number(m.build_ms_buckets(i));
      json.end_object();
    }
    json.end_array();
    json.key("bytes_served").number(m.bytes_served());
    json.key("bytes_built").number(m.bytes_built());
    json.key("bytes_stored").number(m.bytes_stored());
    json.end_object();
  }
  json.end_array();
  json.key("games").begin_array();
  for (const pb::GameTelemetry& g : reply.telemetry().games()) {
    json.begin_object();
    json.key("game").string(g.game());
    json.key("mode").string(mode_name(g.mode()));
    json.key("hits").number(g.hits());
    json.key("misses").number(g.misses());
    json.key("builds").number(g.builds());
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

} // namespace d4r::cli
