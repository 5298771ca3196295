// The storage tiers of a StatusSnapshot as StatusReply sends them (daemon/wire.cpp): every field,
// in order, and the last error cut like every other message the daemon sends.

#include "daemon/wire.hpp"

#include <gtest/gtest.h>

namespace d4r::daemon {
namespace {

namespace pb = ::d4r::kernel::v1;

TEST(StatusWire, TiersAreSentInOrderWithEveryField)
{
  StatusSnapshot snapshot;
  cache::TierHealth local;
  local.name = "local";
  local.hits = 9;
  local.misses = 2;
  local.stores = 2;
  cache::TierHealth redis;
  redis.name = "redis";
  redis.misses = 2;
  redis.failures = 3;
  redis.timeouts = 1;
  redis.skipped = 5;
  redis.mismatches = 4;
  redis.backed_off = true;
  redis.last_error = std::string(5000, 'e');
  snapshot.tiers = {local, redis};
  pb::StatusReply reply;
  wire::fill_status_reply(snapshot, reply);
  ASSERT_EQ(reply.tiers_size(), 2);
  const pb::TierHealth& first = reply.tiers(0);
  EXPECT_EQ(first.name(), "local");
  EXPECT_EQ(first.hits(), 9);
  EXPECT_EQ(first.misses(), 2);
  EXPECT_EQ(first.stores(), 2);
  EXPECT_FALSE(first.backed_off());
  EXPECT_EQ(first.last_error(), "");
  const pb::TierHealth& second = reply.tiers(1);
  EXPECT_EQ(second.name(), "redis");
  EXPECT_EQ(second.hits(), 0);
  EXPECT_EQ(second.misses(), 2);
  EXPECT_EQ(second.failures(), 3);
  EXPECT_EQ(second.timeouts(), 1);
  EXPECT_EQ(second.skipped(), 5);
  EXPECT_EQ(second.mismatches(), 4);
  EXPECT_EQ(second.stores(), 0);
  EXPECT_TRUE(second.backed_off());
  EXPECT_EQ(second.last_error(), std::string(1024, 'e')) << "cut at 1 KiB";
  // Serialised and read back, as the CLI gets it.
  pb::StatusReply parsed;
  ASSERT_TRUE(parsed.ParseFromString(reply.SerializeAsString()));
  EXPECT_EQ(parsed.tiers(1).skipped(), 5);
  EXPECT_TRUE(parsed.tiers(1).backed_off());
}

TEST(StatusWire, NoTiersNoneSent)
{
  pb::StatusReply reply;
  wire::fill_status_reply(StatusSnapshot{}, reply);
  EXPECT_EQ(reply.tiers_size(), 0);
}

} // namespace
} // namespace d4r::daemon
