// The Prometheus text scrape, read back line by line as a scraper would (exposition format
// 0.0.4): every sample belongs to the family whose HELP and TYPE came just before, names and
// label names are well formed, label values unescape to what was counted (a hostile game name
// among them), counters end in _total, a histogram's buckets are cumulative and end at +Inf.

#include "daemon/metrics_text.hpp"

#include "daemon/kernel_core.hpp"
#include "daemon/telemetry.hpp"
#include "daemon/wire.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace d4r::daemon {
namespace {

namespace pb = ::d4r::kernel::v1;

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  double value = 0;
};

struct Scrape {
  std::map<std::string, std::string> types; // family -> type
  std::vector<Sample> samples;
  std::vector<std::string> errors;
};

bool is_name(std::string_view name, bool colons)
{
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) {
    return false;
  }
  for (char c : name) {
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || (colons && c == ':'))) {
      return false;
    }
  }
  return true;
}

// name{a="x",b="y"} -> labels; false on any syntax error.
bool parse_labels(std::string_view text, size_t& at, std::map<std::string, std::string>& labels)
{
  ++at; // '{'
  while (at < text.size() && text[at] != '}') {
    size_t eq = text.find('=', at);
    if (eq == std::string_view::npos || eq + 1 >= text.size() || text[eq + 1] != '"') {
      return false;
    }
    std::string name(text.substr(at, eq - at));
    std::string value;
    size_t i = eq + 2;
    for (; i < text.size() && text[i] != '"'; ++i) {
      if (text[i] == '\\') {
        if (++i >= text.size()) {
          return false;
        }
        char e = text[i];
        if (e == 'n') {
          value += '\n';
        } else if (e == '\\' || e == '"') {
          value += e;
        } else {
          return false; // no other escape exists
        }
      } else if (text[i] == '\n') {
        return false;
      } else {
        value += text[i];
      }
    }
    if (i >= text.size() || !is_name(name, false) || labels.contains(name)) {
      return false;
    }
    labels[name] = value;
    at = i + 1;
    if (at < text.size() && text[at] == ',') {
      ++at;
    }
  }
  if (at >= text.size()) {
    return false;
  }
  ++at; // '}'
  return true;
}

std::string family_of(const std::string& name, const std::map<std::string, std::string>& types)
{
  for (const char* suffix : {"_bucket", "_sum", "_count"}) {
    if (name.ends_with(suffix)) {
      std::string base = name.substr(0, name.size() - std::string_view(suffix).size());
      auto found = types.find(base);
      if (found != types.end() && found->second == "histogram") {
        return base;
      }
    }
  }
  return name;
}

Scrape parse(const std::string& text)
{
  Scrape scrape;
  std::set<std::string> helped;
  std::string current; // the family whose samples may follow
  std::set<std::string> seen;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  if (!text.empty() && text.back() != '\n') {
    scrape.errors.push_back("the text does not end with a line feed");
  }
  while (std::getline(lines, line)) {
    ++number;
    auto error = [&](const std::string& what) {
      scrape.errors.push_back("line " + std::to_string(number) + ": " + what + ": " + line);
    };
    if (line.starts_with("# HELP ")) {
      std::string name = line.substr(7, line.find(' ', 7) - 7);
      if (!is_name(name, true) || !helped.insert(name).second) {
        error("bad or repeated HELP");
      }
      continue;
    }
    if (line.starts_with("# TYPE ")) {
      std::istringstream fields(line.substr(7));
      std::string name;
      std::string type;
      fields >> name >> type;
      if (!helped.contains(name) || scrape.types.contains(name)) {
        error("TYPE without its HELP, or repeated");
      }
      if (type != "counter" && type != "gauge" && type != "histogram") {
        error("unknown type");
      }
      scrape.types[name] = type;
      current = name;
      continue;
    }
    if (line.empty() || line[0] == '#') {
      error("stray line");
      continue;
    }
    Sample sample;
    size_t at = 0;
    while (at < line.size() && line[at] != '{' && line[at] != ' ') {
      ++at;
    }
    sample.name = line.substr(0, at);
    if (!is_name(sample.name, true)) {
      error("bad metric name");
    }
    if (at < line.size() && line[at] == '{' && !parse_labels(line, at, sample.labels)) {
      error("bad labels");
      continue;
    }
    if (at >= line.size() || line[at] != ' ') {
      error("no value");
      continue;
    }
    std::string value = line.substr(at + 1);
    char* end = nullptr;
    sample.value = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0') {
      error("value is not a number");
    }
    if (family_of(sample.name, scrape.types) != current) {
      error("sample outside its family (" + current + ")");
    }
    std::ostringstream identity;
    identity << sample.name;
    for (const auto& [k, v] : sample.labels) {
      identity << '|' << k << '=' << v;
    }
    if (!seen.insert(identity.str()).second) {
      error("duplicate sample");
    }
    scrape.samples.push_back(std::move(sample));
  }
  return scrape;
}

double value_of(const Scrape& scrape, const std::string& name,
                const std::map<std::string, std::string>& labels)
{
  for (const Sample& sample : scrape.samples) {
    if (sample.name == name && sample.labels == labels) {
      return sample.value;
    }
  }
  ADD_FAILURE() << "no sample " << name;
  return std::numeric_limits<double>::quiet_NaN();
}

pb::StatusReply status_with(Telemetry& telemetry)
{
  StatusSnapshot snapshot;
  snapshot.detected_target = "gfx1201";
  snapshot.uptime = std::chrono::milliseconds(12345);
  cache::StoreStats fast;
  fast.mode = Mode::fast;
  fast.bytes = 4096;
  fast.trash_objects = 2;
  fast.trash_bytes = 300;
  fast.index_replacements = 1;
  cache::StoreStats accuracy;
  accuracy.mode = Mode::accuracy;
  snapshot.stores = {fast, accuracy};
  snapshot.counters = {{"ready", 3}, {"not_found.not_listed", 1}};
  snapshot.telemetry = telemetry.snapshot();
  pb::StatusReply reply;
  wire::fill_status_reply(snapshot, reply);
  return reply;
}

constexpr const char* k_hostile = "Evil\"Game\\\\x {oops} \\\"=1,mode=\"fast\".exe";

TEST(MetricsText, ParsesLineByLineWithTheRightNamesAndTypes)
{
  Telemetry telemetry;
  AnswerFacts built;
  built.counter = Counter::resolve_ready;
  built.game = "Game.exe";
  built.cache_miss = MissReason::stale_toolchain;
  built.started_build = true;
  built.bytes_served = 777;
  telemetry.record_answer(built);
  AnswerFacts refused;
  refused.counter = Counter::not_found_not_listed;
  refused.game = k_hostile;
  refused.mode = Mode::accuracy;
  telemetry.record_answer(refused);
  telemetry.record_build(Mode::fast, std::chrono::milliseconds(1500), 777, true);

  std::string text = metrics_text(status_with(telemetry));
  Scrape scrape = parse(text);
  for (const std::string& error : scrape.errors) {
    ADD_FAILURE() << error;
  }
  const std::map<std::string, std::string> expected_types = {
      {"d4r_info", "gauge"},
      {"d4r_uptime_seconds", "gauge"},
      {"d4r_resolve_hits_total", "counter"},
      {"d4r_resolve_misses_total", "counter"},
      {"d4r_served_bytes_total", "counter"},
      {"d4r_game_hits_total", "counter"},
      {"d4r_game_misses_total", "counter"},
      {"d4r_game_builds_total", "counter"},
      {"d4r_answers_total", "counter"},
      {"d4r_build_duration_seconds", "histogram"},
      {"d4r_build_duration_max_seconds", "gauge"},
      {"d4r_build_failures_total", "counter"},
      {"d4r_built_bytes_total", "counter"},
      {"d4r_store_bytes", "gauge"},
      {"d4r_store_trash_objects", "gauge"},
      {"d4r_store_trash_bytes", "gauge"},
      {"d4r_store_trash_cut_short_total", "counter"},
      {"d4r_store_index_replacements_total", "counter"},
  };
  for (const auto& [name, type] : expected_types) {
    ASSERT_TRUE(scrape.types.contains(name)) << name << "\n" << text;
    EXPECT_EQ(scrape.types.at(name), type) << name;
  }
  for (const auto& [name, type] : scrape.types) {
    EXPECT_EQ(type == "counter", name.ends_with("_total")) << name << " is a " << type;
  }
  for (const Sample& sample : scrape.samples) {
    if (sample.labels.contains("mode")) {
      EXPECT_TRUE(sample.labels.at("mode") == "fast" || sample.labels.at("mode") == "accuracy")
          << sample.name;
    }
  }
  EXPECT_EQ(value_of(scrape, "d4r_uptime_seconds", {}), 12.345);
  EXPECT_EQ(value_of(scrape, "d4r_resolve_misses_total", {{"mode", "fast"}, {"reason", "stale_toolchain"}}), 1);
  EXPECT_EQ(value_of(scrape, "d4r_resolve_misses_total", {{"mode", "accuracy"}, {"reason", "unlisted_hash"}}), 1);
  EXPECT_EQ(value_of(scrape, "d4r_resolve_misses_total", {{"mode", "fast"}, {"reason", "evicted"}}), 0);
  EXPECT_EQ(value_of(scrape, "d4r_served_bytes_total", {{"mode", "fast"}}), 777);
  EXPECT_EQ(value_of(scrape, "d4r_game_builds_total", {{"game", "Game.exe"}, {"mode", "fast"}}), 1);
  EXPECT_EQ(value_of(scrape, "d4r_game_misses_total", {{"game", k_hostile}, {"mode", "accuracy"}}), 1)
      << "the hostile name reads back as it was counted";
  EXPECT_EQ(value_of(scrape, "d4r_answers_total", {{"counter", "not_found.not_listed"}}), 1);
  EXPECT_EQ(value_of(scrape, "d4r_store_trash_bytes", {{"mode", "fast"}}), 300);
  EXPECT_EQ(value_of(scrape, "d4r_store_index_replacements_total", {{"mode", "fast"}}), 1);
  EXPECT_EQ(value_of(scrape, "d4r_build_duration_seconds_sum", {{"mode", "fast"}}), 1.5);
  EXPECT_EQ(value_of(scrape, "d4r_build_duration_max_seconds", {{"mode", "fast"}}), 1.5);
  EXPECT_EQ(value_of(scrape, "d4r_info", {{"version", status_with(telemetry).version()}, {"target", "gfx1201"}}), 1);
}

TEST(MetricsText, HistogramBucketsAreCumulativeAndEndAtInf)
{
  Telemetry telemetry;
  for (int64_t ms : {10, 900, 4000, 4000, 200000, 999999}) {
    telemetry.record_build(Mode::accuracy, std::chrono::milliseconds(ms), 1, true);
  }
  Scrape scrape = parse(metrics_text(status_with(telemetry)));
  ASSERT_TRUE(scrape.errors.empty()) << scrape.errors.front();
  for (const char* mode : {"fast", "accuracy"}) {
    double last_le = -1;
    double last_count = 0;
    bool inf = false;
    for (const Sample& sample : scrape.samples) {
      if (sample.name != "d4r_build_duration_seconds_bucket" || sample.labels.at("mode") != mode) {
        continue;
      }
      ASSERT_FALSE(inf) << "+Inf is the last bucket";
      const std::string& le = sample.labels.at("le");
      double bound = le == "+Inf" ? std::numeric_limits<double>::infinity() : std::stod(le);
      inf = le == "+Inf";
      EXPECT_GT(bound, last_le);
      EXPECT_GE(sample.value, last_count);
      last_le = bound;
      last_count = sample.value;
    }
    EXPECT_TRUE(inf) << mode;
    EXPECT_EQ(last_count, value_of(scrape, "d4r_build_duration_seconds_count", {{"mode", mode}}));
  }
  EXPECT_EQ(value_of(scrape, "d4r_build_duration_seconds_bucket", {{"mode", "accuracy"}, {"le", "5"}}), 4);
  EXPECT_EQ(value_of(scrape, "d4r_build_duration_seconds_bucket", {{"mode", "accuracy"}, {"le", "0.25"}}), 1);
  EXPECT_EQ(value_of(scrape, "d4r_build_duration_seconds_bucket", {{"mode", "accuracy"}, {"le", "+Inf"}}), 6);
}

TEST(MetricsText, LabelValuesAreEscaped)
{
  EXPECT_EQ(escape_label_value("plain.exe"), "plain.exe");
  EXPECT_EQ(escape_label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
  // A name with a line feed (from a server that does not clean names) stays on its line.
  pb::StatusReply reply;
  pb::GameTelemetry& game = *reply.mutable_telemetry()->add_games();
  game.set_game("two\nlines\"} 99\n# TYPE x counter");
  game.set_hits(5);
  std::string text = metrics_text(reply);
  Scrape scrape = parse(text);
  ASSERT_TRUE(scrape.errors.empty()) << scrape.errors.front() << "\n" << text;
  EXPECT_EQ(value_of(scrape, "d4r_game_hits_total",
                     {{"game", "two\nlines\"} 99\n# TYPE x counter"}, {"mode", "fast"}}),
            5);
  EXPECT_FALSE(scrape.types.contains("x"));
}

TEST(MetricsText, RemoteClientsRefusalsByLimit)
{
  pb::StatusReply reply;
  pb::RemoteStats& remote = *reply.mutable_remote();
  remote.set_listen("0.0.0.0:7467");
  pb::RemoteClient& deck = *remote.add_clients();
  deck.set_name("deck");
  deck.set_requests(30);
  (*deck.mutable_rejected())["rate"] = 12;
  (*deck.mutable_rejected())["module_size"] = 1;
  std::string text = metrics_text(reply);
  Scrape scrape = parse(text);
  ASSERT_TRUE(scrape.errors.empty()) << scrape.errors.front() << "\n" << text;
  EXPECT_EQ(scrape.types.at("d4r_remote_rejected_total"), "counter");
  EXPECT_EQ(value_of(scrape, "d4r_remote_rejected_total", {{"client", "deck"}, {"limit", "rate"}}), 12);
  EXPECT_EQ(value_of(scrape, "d4r_remote_rejected_total", {{"client", "deck"}, {"limit", "module_size"}}), 1);
  EXPECT_EQ(value_of(scrape, "d4r_remote_requests_total", {{"client", "deck"}}), 30);
}

} // namespace
} // namespace d4r::daemon
