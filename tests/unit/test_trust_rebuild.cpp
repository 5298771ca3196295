// The sampled rebuild check: which remote results are rebuilt here, and what a comparison says
// and does to the upstream's standing.

#include "trust/rebuild_check.hpp"
#include "trust/rebuild_sample.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <thread>

namespace d4r::trust {
namespace {

RebuildSampler::Secret secret_of(uint8_t fill)
{
  RebuildSampler::Secret secret{};
  secret.fill(fill);
  return secret;
}

RemoteResult buildable(std::string_view key)
{
  return RemoteResult{key, true, true};
}

TEST(TrustSampleRate, ParsesFractionsAndPercents)
{
  EXPECT_EQ(parse_sample_rate("0.05"), 0.05);
  EXPECT_EQ(parse_sample_rate("5%"), 0.05);
  EXPECT_EQ(parse_sample_rate("0"), 0.0);
  EXPECT_EQ(parse_sample_rate("1"), 1.0);
  EXPECT_EQ(parse_sample_rate("100%"), 1.0);
  for (const char* bad : {"", "%", "-0.1", "1.5", "101%", "0.05x", "nan", "inf", "five"}) {
    Expected<double> rate = parse_sample_rate(bad);
    ASSERT_FALSE(rate) << bad;
    EXPECT_NE(rate.error().message.find("--verify-remote-sample"), std::string::npos);
  }
}

TEST(TrustRebuildSample, TheRateIsHonouredOverManyKeys)
{
  RebuildSampler sampler(0.05, secret_of(7));
  int rebuilt = 0;
  constexpr int k_keys = 20000;
  for (int i = 0; i < k_keys; ++i) {
    std::string key = "kernel_" + std::to_string(i) + "|gfx1201|fast";
    rebuilt += sampler.decide(buildable(key)) == SampleDecision::rebuild ? 1 : 0;
  }
  // 5% of 20000 is 1000; the binomial's standard deviation is about 31.
  EXPECT_GT(rebuilt, 850);
  EXPECT_LT(rebuilt, 1150);
}

TEST(TrustRebuildSample, SameKeySameAnswerButTheSecretDecides)
{
  RebuildSampler a(0.5, secret_of(1));
  RebuildSampler b(0.5, secret_of(2));
  int differ = 0;
  for (int i = 0; i < 256; ++i) {
    std::string key = "k" + std::to_string(i);
    EXPECT_EQ(a.decide(buildable(key)), a.decide(buildable(key))) << key;
    differ += a.decide(buildable(key)) != b.decide(buildable(key)) ? 1 : 0;
  }
  // Another secret picks another half: an upstream cannot learn which keys get checked.
  EXPECT_GT(differ, 64);
}

TEST(TrustRebuildSample, NothingToCompareWithIsNeverRebuilt)
{
  RebuildSampler always(1.0, secret_of(3));
  EXPECT_EQ(always.decide(buildable("k")), SampleDecision::rebuild);
  EXPECT_EQ(always.decide({"k", false, false}), SampleDecision::no_local_toolchain);
  EXPECT_EQ(always.decide({"k", true, false}), SampleDecision::other_toolchain);
  RebuildSampler never(0.0, secret_of(3));
  EXPECT_EQ(never.decide(buildable("k")), SampleDecision::disabled);
  Expected<RebuildSampler> random = RebuildSampler::with_random_secret(0.25);
  ASSERT_TRUE(random);
  EXPECT_EQ(random->rate(), 0.25);
}

std::vector<std::byte> bytes(std::string_view text)
{
  std::vector<std::byte> out(text.size());
  std::memcpy(out.data(), text.data(), text.size());
  return out;
}

TEST(TrustRebuildCheck, EqualBytesMatchAndKeepTheUpstreamTrusted)
{
  UpstreamTrust trust("https://build.lan:7443");
  std::vector<std::byte> object = bytes("ELF code object");
  RebuildReport report = compare_rebuild(trust.upstream(), "k|gfx1201", object, object);
  EXPECT_EQ(report.verdict, RebuildVerdict::match);
  EXPECT_EQ(report.first_difference, -1);
  EXPECT_EQ(report.local_digest, report.remote_digest);
  EXPECT_NE(report.message.find("tier https://build.lan:7443: kernel k|gfx1201: local rebuild "
                                "matches"),
            std::string::npos)
      << report.message;
  EXPECT_FALSE(trust.record(report));
  EXPECT_TRUE(trust.trusted());
  EXPECT_EQ(trust.stats().matched, 1);
}

TEST(TrustRebuildCheck, AMismatchDistrustsTheUpstreamOnceAndSaysWhere)
{
  UpstreamTrust trust("https://build.lan:7443");
  std::vector<std::byte> remote = bytes("ELF code object A");
  std::vector<std::byte> local = bytes("ELF code object B");
  RebuildReport report = compare_rebuild(trust.upstream(), "k|gfx1201", remote, local);
  EXPECT_EQ(report.verdict, RebuildVerdict::mismatch);
  EXPECT_EQ(report.first_difference, 16);
  EXPECT_NE(report.message.find("remote sha256 " + to_hex(sha256(std::span<const std::byte>(remote)))),
            std::string::npos)
      << report.message;
  EXPECT_NE(report.message.find("local sha256 " + to_hex(sha256(std::span<const std::byte>(local)))),
            std::string::npos);
  EXPECT_NE(report.message.find("first difference at byte 16; the tier is distrusted"),
            std::string::npos)
      << report.message;
  EXPECT_TRUE(trust.record(report));
  EXPECT_FALSE(trust.trusted());
  EXPECT_EQ(trust.distrust_reason(), report.message);
  // A later match does not restore trust, and a second mismatch is not news.
  EXPECT_FALSE(trust.record(compare_rebuild(trust.upstream(), "k2", remote, remote)));
  EXPECT_FALSE(trust.record(report));
  EXPECT_FALSE(trust.trusted());
  RebuildStats stats = trust.stats();
  EXPECT_EQ(stats.checked, 3);
  EXPECT_EQ(stats.matched, 1);
  EXPECT_EQ(stats.mismatched, 2);
}

TEST(TrustRebuildCheck, APrefixOrALongerObjectIsAMismatch)
{
  std::vector<std::byte> remote = bytes("ELF code");
  std::vector<std::byte> local = bytes("ELF code object");
  RebuildReport report = compare_rebuild("u", "k", remote, local);
  EXPECT_EQ(report.verdict, RebuildVerdict::mismatch);
  EXPECT_EQ(report.first_difference, 8);
  EXPECT_EQ(compare_rebuild("u", "k", local, remote).first_difference, 8);
}

TEST(TrustRebuildCheck, AFailedLocalBuildIsReportedNotHeldAgainstTheUpstream)
{
  UpstreamTrust trust("u");
  Expected<std::vector<std::byte>> failed =
      make_error(ErrorCode::resource_exhausted, "worker: out of memory");
  RebuildReport report = compare_rebuild("u", "k", bytes("x"), failed);
  EXPECT_EQ(report.verdict, RebuildVerdict::local_failed);
  EXPECT_FALSE(report.local_digest);
  EXPECT_NE(report.message.find("(worker: out of memory); the remote object stays unverified"),
            std::string::npos)
      << report.message;
  EXPECT_FALSE(trust.record(report));
  EXPECT_TRUE(trust.trusted());
  EXPECT_EQ(trust.stats().local_failed, 1);
}

TEST(TrustRebuildCheck, ConcurrentRecordsCountEveryReport)
{
  UpstreamTrust trust("u");
  std::vector<std::byte> a = bytes("a");
  std::vector<std::byte> b = bytes("b");
  RebuildReport match = compare_rebuild("u", "k", a, a);
  RebuildReport mismatch = compare_rebuild("u", "k", a, b);
  std::atomic<int> newly_distrusted{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 500; ++i) {
        newly_distrusted += trust.record(t == 3 && i == 100 ? mismatch : match) ? 1 : 0;
        static_cast<void>(trust.trusted());
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(newly_distrusted.load(), 1);
  EXPECT_EQ(trust.stats().checked, 4000);
  EXPECT_EQ(trust.stats().mismatched, 1);
  EXPECT_FALSE(trust.trusted());
}

} // namespace
} // namespace d4r::trust
