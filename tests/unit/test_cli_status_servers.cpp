// `d4r-kernel status`'s build-server and storage-tier sections, text and --json, from a reply.

#include "cli/json_writer.hpp"
#include "cli/output.hpp"
#include "cli/status_servers.hpp"

#include <gtest/gtest.h>

namespace d4r::cli {
namespace {

pb::StatusReply with_remote()
{
  pb::StatusReply reply;
  pb::RemoteStats* remote = reply.mutable_remote();
  remote->set_listen("0.0.0.0:7443");
  remote->set_mutual_tls(true);
  remote->set_unauthenticated_missing(3);
  remote->set_unauthenticated_unknown(2);
  remote->set_unauthenticated_revoked(1);
  pb::RemoteClient* ci = remote->add_clients();
  ci->set_name("ci-runner");
  ci->set_requests(40);
  ci->set_failed(4);
  ci->set_refused(0);
  ci->set_last_seen_unix(1'700'000'000);
  (*ci->mutable_rejected())["rate"] = 12;
  (*ci->mutable_rejected())["builds"] = 2;
  pb::RemoteClient* old = remote->add_clients();
  old->set_name("laptop");
  old->set_refused(7);
  return reply;
}

pb::StatusReply with_tiers()
{
  pb::StatusReply reply;
  pb::TierHealth* local = reply.add_tiers();
  local->set_name("local");
  local->set_hits(9);
  local->set_misses(2);
  local->set_stores(2);
  pb::TierHealth* redis = reply.add_tiers();
  redis->set_name("redis unix:/run/redis.sock");
  redis->set_misses(2);
  redis->set_failures(3);
  redis->set_timeouts(1);
  redis->set_skipped(5);
  redis->set_mismatches(1);
  redis->set_backed_off(true);
  redis->set_last_error("connection refused");
  redis->add_hosts("desk:12");
  redis->add_hosts("farm:34");
  pb::TierHealth* upstream = reply.add_tiers();
  upstream->set_name("upstream:desktop:7467");
  upstream->set_hits(3);
  upstream->set_builds(2);
  return reply;
}

TEST(StatusServers, RemoteTextHasListenTlsReasonsAndOneRowPerClient)
{
  std::string text = remote_text(with_remote());
  EXPECT_EQ(text, "\nbuild server: 0.0.0.0:7443, mTLS on; unauthenticated: 3 missing token, "
                  "2 unknown token, 1 revoked token\n"
                  "client     requests  failed  refused  over a limit       last seen\n"
                  "ci-runner        40       4        0  builds 2, rate 12  2023-11-14 22:13:20Z\n"
                  "laptop            0       0        7  -                  never\n");
  pb::StatusReply plain = with_remote();
  plain.mutable_remote()->set_mutual_tls(false);
  plain.mutable_remote()->clear_clients();
  EXPECT_EQ(remote_text(plain), "\nbuild server: 0.0.0.0:7443, mTLS off; unauthenticated: 3 "
                                "missing token, 2 unknown token, 1 revoked token\nno clients yet\n");
}

TEST(StatusServers, NoRemoteSectionWhenTheDaemonDoesNotListen)
{
  pb::StatusReply none;
  EXPECT_EQ(remote_text(none), "");
  none.mutable_remote(); // present but empty: an old daemon, or --listen unset
  EXPECT_EQ(remote_text(none), "");
  JsonWriter json;
  json.begin_object();
  remote_json(json, none);
  json.end_object();
  EXPECT_EQ(json.text(), "{}");
  std::string status = status_text(none, "/s");
  EXPECT_EQ(status.find("build server"), std::string::npos) << status;
  EXPECT_EQ(status.find("tiers"), std::string::npos) << status;
}

TEST(StatusServers, RemoteJson)
{
  JsonWriter json;
  json.begin_object();
  remote_json(json, with_remote());
  json.end_object();
  EXPECT_TRUE(json.complete());
  EXPECT_EQ(json.text(),
            R"({"remote":{"listen":"0.0.0.0:7443","mutual_tls":true,)"
            R"("unauthenticated":{"missing":3,"unknown":2,"revoked":1},"clients":[)"
            R"({"name":"ci-runner","requests":40,"failed":4,"refused":0,"rejected":{"builds":2,"rate":12},)"
            R"("last_seen_unix":1700000000},)"
            R"({"name":"laptop","requests":0,"failed":0,"refused":7,"rejected":{},"last_seen_unix":0}]}})");
}

TEST(StatusServers, TiersTextOneLinePerTierInOrder)
{
  EXPECT_EQ(tiers_text(with_tiers()),
            "\ntiers (asked in this order):\n"
            "  local: 9 hits, 2 misses, 2 stores, 0 failures (0 timeouts), 0 skipped, 0 mismatches\n"
            "  redis unix:/run/redis.sock: 0 hits, 2 misses, 0 stores, 3 failures (1 timeouts), "
            "5 skipped, 1 mismatches; build hosts alive: desk:12, farm:34; backed off; last error: "
            "connection refused\n"
            "  upstream:desktop:7467: 3 hits, 0 misses, 0 stores, 0 failures (0 timeouts), "
            "0 skipped, 0 mismatches, 2 built there\n");
  EXPECT_EQ(tiers_text(pb::StatusReply()), "") << "no tiers, no section";
}

TEST(StatusServers, TiersJson)
{
  JsonWriter json;
  json.begin_object();
  tiers_json(json, with_tiers());
  json.end_object();
  EXPECT_EQ(json.text(),
            R"({"tiers":[{"name":"local","hits":9,"misses":2,"failures":0,"timeouts":0,)"
            R"("skipped":0,"mismatches":0,"stores":2,"builds":0,"backed_off":false,"distrusted":false,)"
            R"("last_error":"","hosts":[]},)"
            R"({"name":"redis unix:/run/redis.sock","hits":0,"misses":2,"failures":3,"timeouts":1,)"
            R"("skipped":5,"mismatches":1,"stores":0,"builds":0,"backed_off":true,"distrusted":false,)"
            R"("last_error":"connection refused","hosts":["desk:12","farm:34"]},)"
            R"({"name":"upstream:desktop:7467","hits":3,"misses":0,"failures":0,"timeouts":0,)"
            R"("skipped":0,"mismatches":0,"stores":0,"builds":2,"backed_off":false,"distrusted":false,)"
            R"("last_error":"","hosts":[]}]})");
}

TEST(StatusServers, StatusTextAndJsonCarryBothSections)
{
  pb::StatusReply reply = with_remote();
  *reply.mutable_tiers() = with_tiers().tiers();
  std::string text = status_text(reply, "/s");
  EXPECT_NE(text.find("\ntiers (asked in this order):\n  local: 9 hits"), std::string::npos)
      << text;
  EXPECT_NE(text.find("\nbuild server: 0.0.0.0:7443, mTLS on"), std::string::npos) << text;
  JsonWriter json;
  status_json(json, reply, "/s");
  EXPECT_TRUE(json.complete());
  EXPECT_NE(json.text().find(R"("tiers":[{"name":"local")"), std::string::npos) << json.text();
  EXPECT_NE(json.text().find(R"("remote":{"listen":"0.0.0.0:7443")"), std::string::npos)
      << json.text();
}

} // namespace
} // namespace d4r::cli
