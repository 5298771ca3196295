// The build-job stream against a real redis-server, consumers on connections of their own as
// build hosts: a job read by a host that dies before acking is claimed by another after the idle
// timeout (at least once), a live host keeps its long job by touching it, and blocking reads
// wake on a new job but never outlast their budget.

#include "cache/remote/redis/jobs.hpp"
#include "tests/unit/test_cache_redis_support.hpp"

#include <gtest/gtest.h>

namespace d4r::cache::redis {
namespace {

using namespace std::chrono_literals;
using testing::RedisTest;

class RedisJobsTest : public RedisTest {
protected:
  void SetUp() override
  {
    RedisTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) {
      return;
    }
    ASSERT_TRUE(m_jobs_a.ensure_group(in(1s)));
    ASSERT_TRUE(m_jobs_b.ensure_group(in(1s))) << "a second host finds the group made";
  }

  RedisKeyspace m_keys{.prefix = "t:"};
  RedisConnection m_host_a{m_server.unix_options()};
  RedisConnection m_host_b{m_server.unix_options()};
  RedisJobs m_jobs_a{m_host_a, m_keys, "host-a"};
  RedisJobs m_jobs_b{m_host_b, m_keys, "host-b"};
};

TEST_F(RedisJobsTest, EachJobGoesToOneConsumer)
{
  for (int i = 0; i < 4; ++i) {
    ASSERT_TRUE(m_jobs_a.add("job " + std::to_string(i), in(1s)));
  }
  Expected<std::vector<RedisJob>> a = m_jobs_a.read(2, 0ms, in(1s));
  Expected<std::vector<RedisJob>> b = m_jobs_b.read(10, 0ms, in(1s));
  ASSERT_TRUE(a && b);
  ASSERT_EQ(a->size(), 2U);
  ASSERT_EQ(b->size(), 2U);
  EXPECT_EQ((*a)[0].body, "job 0");
  EXPECT_EQ((*b)[1].body, "job 3");
  Expected<int64_t> pending = m_jobs_a.pending_count(in(1s));
  ASSERT_TRUE(pending);
  EXPECT_EQ(*pending, 4);
  for (const RedisJob& job : *a) {
    ASSERT_TRUE(m_jobs_a.ack(job.id, in(1s)));
  }
  pending = m_jobs_a.pending_count(in(1s));
  ASSERT_TRUE(pending);
  EXPECT_EQ(*pending, 2);
  Expected<RedisReply> length = m_host_a.call({"XLEN", m_keys.jobs()}, in(1s));
  ASSERT_TRUE(length);
  EXPECT_EQ(length->integer, 2) << "acked jobs leave the stream";
}

TEST_F(RedisJobsTest, ADeadHostsJobIsClaimedAfterTheIdleTimeout)
{
  Expected<std::string> id = m_jobs_a.add(std::string("build \0 this", 12), in(1s));
  ASSERT_TRUE(id) << id.error().message;
  Expected<std::vector<RedisJob>> taken = m_jobs_a.read(1, 0ms, in(1s));
  ASSERT_TRUE(taken);
  ASSERT_EQ(taken->size(), 1U);
  m_host_a.disconnect(); // host A dies before acking

  Expected<std::vector<RedisJob>> fresh = m_jobs_b.read(1, 0ms, in(1s));
  ASSERT_TRUE(fresh);
  EXPECT_TRUE(fresh->empty()) << "the job was delivered already";
  Expected<std::vector<RedisJob>> early = m_jobs_b.claim_stale(200ms, 10, in(1s));
  ASSERT_TRUE(early) << early.error().message;
  EXPECT_TRUE(early->empty()) << "not idle long enough yet";

  std::this_thread::sleep_for(250ms);
  Expected<std::vector<RedisJob>> claimed = m_jobs_b.claim_stale(200ms, 10, in(1s));
  ASSERT_TRUE(claimed) << claimed.error().message;
  ASSERT_EQ(claimed->size(), 1U);
  EXPECT_EQ((*claimed)[0].id, *id);
  EXPECT_EQ((*claimed)[0].body, std::string("build \0 this", 12));
  ASSERT_TRUE(m_jobs_b.ack((*claimed)[0].id, in(1s)));
  Expected<int64_t> pending = m_jobs_b.pending_count(in(1s));
  ASSERT_TRUE(pending);
  EXPECT_EQ(*pending, 0);
}

// As above with a real process: a child host reads the job on its own connection and exits
// without acking, as a host killed mid-build does.
TEST_F(RedisJobsTest, AKilledProcessesJobIsFinishedByAnother)
{
  Expected<std::string> id = m_jobs_a.add("build k", in(1s));
  ASSERT_TRUE(id) << id.error().message;
  RedisOptions options = m_server.unix_options();
  pid_t child = ::fork();
  if (child == 0) {
    RedisConnection connection(options);
    RedisJobs jobs(connection, RedisKeyspace{.prefix = "t:"}, "host-killed");
    Expected<std::vector<RedisJob>> taken = jobs.read(1, 0ms, Clock::now() + 1s);
    ::_exit(taken && taken->size() == 1 ? 0 : 1);
  }
  ASSERT_GT(child, 0);
  int status = -1;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "the child read the job";

  Expected<std::vector<RedisJob>> fresh = m_jobs_b.read(1, 0ms, in(1s));
  ASSERT_TRUE(fresh);
  EXPECT_TRUE(fresh->empty());
  std::this_thread::sleep_for(250ms);
  Expected<std::vector<RedisJob>> claimed = m_jobs_b.claim_stale(200ms, 10, in(1s));
  ASSERT_TRUE(claimed) << claimed.error().message;
  ASSERT_EQ(claimed->size(), 1U);
  EXPECT_EQ((*claimed)[0].id, *id);
  ASSERT_TRUE(m_jobs_b.ack((*claimed)[0].id, in(1s)));
  Expected<int64_t> pending = m_jobs_b.pending_count(in(1s));
  ASSERT_TRUE(pending);
  EXPECT_EQ(*pending, 0);
}

TEST_F(RedisJobsTest, TouchKeepsALiveHostsLongJob)
{
  ASSERT_TRUE(m_jobs_a.add("long build", in(1s)));
  Expected<std::vector<RedisJob>> taken = m_jobs_a.read(1, 0ms, in(1s));
  ASSERT_TRUE(taken && taken->size() == 1);
  std::vector<std::string> ids{(*taken)[0].id};
  for (int i = 0; i < 3; ++i) {
    std::this_thread::sleep_for(120ms);
    ASSERT_TRUE(m_jobs_a.touch(ids, in(1s)));
    Expected<std::vector<RedisJob>> claimed = m_jobs_b.claim_stale(200ms, 10, in(1s));
    ASSERT_TRUE(claimed);
    EXPECT_TRUE(claimed->empty()) << "touched " << (i + 1) * 120 << " ms in";
  }
}

TEST_F(RedisJobsTest, ABlockingReadWakesOnANewJob)
{
  std::thread producer([this] {
    std::this_thread::sleep_for(100ms);
    RedisConnection connection(m_server.unix_options());
    RedisJobs jobs(connection, m_keys, "producer");
    EXPECT_TRUE(jobs.add("late job", in(1s)));
  });
  Clock::time_point start = Clock::now();
  Expected<std::vector<RedisJob>> read = m_jobs_b.read(1, 3s, in(5s));
  int64_t took = elapsed_ms(start);
  producer.join();
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->size(), 1U);
  EXPECT_EQ((*read)[0].body, "late job");
  EXPECT_GE(took, 90);
  EXPECT_LT(took, 1000);
}

TEST_F(RedisJobsTest, ABlockingReadEndsWithItsBudget)
{
  Clock::time_point start = Clock::now();
  Expected<std::vector<RedisJob>> read = m_jobs_b.read(1, 10s, in(400ms));
  int64_t took = elapsed_ms(start);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->empty());
  EXPECT_GE(took, 250) << "it blocked for the budget less the margin (270 ms)";
  EXPECT_LT(took, 400);
  EXPECT_TRUE(m_host_b.connected()) << "the server answered before the budget ran out";
}

TEST_F(RedisJobsTest, AGoneServerFailsAtOnce)
{
  ASSERT_TRUE(m_jobs_a.add("job", in(1s)));
  m_server.kill();
  Clock::time_point start = Clock::now();
  Expected<std::string> add = m_jobs_a.add("job while down", in(200ms));
  ASSERT_FALSE(add);
  EXPECT_EQ(add.error().code, ErrorCode::unavailable) << add.error().message;
  Expected<std::vector<RedisJob>> read = m_jobs_b.read(1, 5s, in(200ms));
  ASSERT_FALSE(read);
  EXPECT_LT(elapsed_ms(start), 200) << "both calls fail at once, not when the budgets end";
}

TEST_F(RedisJobsTest, TheGroupIsMadeAgainAfterARestart)
{
  m_server.kill();
  ASSERT_TRUE(m_server.start()); // no persistence: stream and group are gone
  Deadline give_up = in(3s);
  Expected<std::string> added = m_jobs_a.add("after restart", in(200ms));
  while (!added && Clock::now() < give_up) {
    std::this_thread::sleep_for(10ms);
    added = m_jobs_a.add("after restart", in(200ms));
  }
  ASSERT_TRUE(added) << added.error().message;
  Expected<std::vector<RedisJob>> read = m_jobs_b.read(1, 0ms, in(1s));
  while (!read && read.error().code == ErrorCode::unavailable && Clock::now() < give_up) {
    std::this_thread::sleep_for(10ms);
    read = m_jobs_b.read(1, 0ms, in(1s));
  }
  ASSERT_TRUE(read) << read.error().message;
  ASSERT_EQ(read->size(), 1U) << "the group starts at the stream's beginning";
  EXPECT_EQ((*read)[0].body, "after restart");
}

} // namespace
} // namespace d4r::cache::redis
