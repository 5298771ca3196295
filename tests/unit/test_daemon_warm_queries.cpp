// daemon/warm_queries: the set of Resolve requests answered inline. A key is there only while its
// last answer was READY, and the set stays bounded.

#include "daemon/warm_queries.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <string>

namespace d4r::daemon {
namespace {

TEST(WarmQueries, OnlyAReadyAnswerMakesAKeyWarm)
{
  WarmQueries warm;
  EXPECT_FALSE(warm.contains("a"));
  warm.note("a", false);
  EXPECT_FALSE(warm.contains("a"));
  warm.note("a", true);
  EXPECT_TRUE(warm.contains("a"));
  EXPECT_FALSE(warm.contains("b"));
  // A purge, a quarantine or a rebuild makes the next answer something else: forgotten at once.
  warm.note("a", false);
  EXPECT_FALSE(warm.contains("a"));
}

TEST(WarmQueries, AKeptReplyGoesWithAnyOtherAnswer)
{
  WarmQueries warm;
  auto kept = std::make_shared<const WarmAnswer>(
      WarmAnswer{::d4r::kernel::v1::ResolveReply(), std::make_shared<const ReadyCheck>()});
  warm.note("a", true, kept);
  EXPECT_EQ(warm.answer("a"), kept);
  EXPECT_EQ(warm.answer("b"), nullptr);
  // READY again without a check (answered anew): still warm, nothing kept.
  warm.note("a", true);
  EXPECT_TRUE(warm.contains("a"));
  EXPECT_EQ(warm.answer("a"), nullptr);
  warm.note("a", true, kept);
  warm.note("a", false);
  EXPECT_FALSE(warm.contains("a"));
  EXPECT_EQ(warm.answer("a"), nullptr);
}

TEST(WarmQueries, TheSetIsBounded)
{
  WarmQueries warm;
  for (size_t i = 0; i < WarmQueries::k_max_keys; ++i) {
    warm.note("key" + std::to_string(i), true);
  }
  EXPECT_EQ(warm.size(), WarmQueries::k_max_keys);
  warm.note("key0", true); // already there: nothing is dropped
  EXPECT_EQ(warm.size(), WarmQueries::k_max_keys);
  warm.note("one more", true);
  EXPECT_EQ(warm.size(), 1u);
  EXPECT_TRUE(warm.contains("one more"));
  EXPECT_FALSE(warm.contains("key1"));
}

} // namespace
} // namespace d4r::daemon
