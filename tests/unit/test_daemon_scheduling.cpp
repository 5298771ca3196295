#include "daemon/single_flight.hpp"
#include "daemon/task_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <latch>
#include <thread>

namespace d4r::daemon {
namespace {

TEST(TaskPool, InteractiveWorkGoesBeforeBackgroundWork)
{
  TaskPool pool(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::latch started(1);
  ASSERT_TRUE(pool.submit(Priority::interactive, [&] {
    started.count_down();
    released.wait();
  }));
  started.wait();
  std::mutex mutex;
  std::vector<std::string> order;
  auto record = [&](std::string name) {
    return [&, name] {
      std::lock_guard lock(mutex);
      order.push_back(name);
    };
  };
  ASSERT_TRUE(pool.submit(Priority::background, record("warm-1")));
  ASSERT_TRUE(pool.submit(Priority::background, record("warm-2")));
  ASSERT_TRUE(pool.submit(Priority::interactive, record("game")));
  release.set_value();
  pool.shutdown();
  std::vector<std::string> expected = {"game", "warm-1", "warm-2"};
  EXPECT_EQ(order, expected);
  EXPECT_FALSE(pool.submit(Priority::interactive, [] {})) << "no work after shutdown";
}

TEST(TaskPool, PastItsBoundATaskIsRefusedNotQueued)
{
  TaskPool pool(1, 2);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::latch started(1);
  ASSERT_EQ(pool.admit(Priority::interactive, [&] {
    started.count_down();
    released.wait();
  }), Admission::queued);
  started.wait(); // running, not queued
  std::atomic<int> ran{0};
  EXPECT_EQ(pool.admit(Priority::interactive, [&] { ++ran; }), Admission::queued);
  EXPECT_EQ(pool.admit(Priority::background, [&] { ++ran; }), Admission::queued);
  EXPECT_EQ(pool.admit(Priority::interactive, [&] { ++ran; }), Admission::full);
  EXPECT_EQ(pool.queued(), 2);
  release.set_value();
  pool.shutdown();
  EXPECT_EQ(ran.load(), 2) << "what was queued ran; what was refused did not";
  EXPECT_EQ(pool.admit(Priority::interactive, [] {}), Admission::stopping);
}

TEST(TaskPool, BackgroundWorkLeavesAQuarterOfTheQueueToTheGame)
{
  TaskPool pool(1, 4);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::latch started(1);
  ASSERT_EQ(pool.admit(Priority::interactive, [&] {
    started.count_down();
    released.wait();
  }), Admission::queued);
  started.wait();
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(pool.admit(Priority::background, [] {}), Admission::queued) << i;
  }
  EXPECT_EQ(pool.admit(Priority::background, [] {}), Admission::full) << "warm-ups: 3 of 4";
  EXPECT_EQ(pool.admit(Priority::interactive, [] {}), Admission::queued) << "the game's request";
  EXPECT_EQ(pool.admit(Priority::interactive, [] {}), Admission::full);
  release.set_value();
}

TEST(SingleFlight, ConcurrentCallersShareOneRun)
{
  SingleFlight<int> flights;
  std::atomic<int> runs{0};
  std::atomic<int> shared_count{0};
  std::latch go(16);
  std::vector<std::thread> threads;
  for (int i = 0; i < 16; ++i) {
    threads.emplace_back([&] {
      go.arrive_and_wait();
      bool shared = false;
      std::optional<int> value = flights.run(
          "key",
          [&] {
            ++runs;
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            return 42;
          },
          std::chrono::steady_clock::time_point::max(), &shared);
      EXPECT_EQ(value, 42);
      shared_count += shared ? 1 : 0;
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(runs.load(), 1);
  EXPECT_EQ(shared_count.load(), 15);
}

TEST(SingleFlight, DifferentKeysAndLaterCallsRunAgain)
{
  SingleFlight<int> flights;
  int runs = 0;
  EXPECT_EQ(flights.run("a", [&] { return ++runs; }), 1);
  EXPECT_EQ(flights.run("b", [&] { return ++runs; }), 2);
  EXPECT_EQ(flights.run("a", [&] { return ++runs; }), 3) << "results are not memoised";
}

TEST(SingleFlight, AFollowerWaitsNoLongerThanItsOwnDeadline)
{
  SingleFlight<int> flights;
  std::latch leading(1);
  std::thread leader([&] {
    (void)flights.run("key", [&] {
      leading.count_down();
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      return 1;
    });
  });
  leading.wait();
  auto start = std::chrono::steady_clock::now();
  std::optional<int> followed =
      flights.run("key", [] { return 2; }, start + std::chrono::milliseconds(50));
  EXPECT_FALSE(followed.has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  leader.join();
}

TEST(SingleFlight, AFollowerStopsWaitingWhenItsCallerIsCancelled)
{
  SingleFlight<int> flights;
  std::latch leading(1);
  std::thread leader([&] {
    (void)flights.run("key", [&] {
      leading.count_down();
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      return 1;
    });
  });
  leading.wait();
  auto start = std::chrono::steady_clock::now();
  std::atomic<bool> gone{false};
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    gone = true;
  });
  std::optional<int> followed = flights.run("key", [] { return 2; },
                                            std::chrono::steady_clock::time_point::max(), nullptr,
                                            [&] { return gone.load(); });
  EXPECT_FALSE(followed.has_value()) << "no deadline, but the caller went away";
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  canceller.join();
  leader.join();
}

// The build service's use: the leader starts work that another thread finishes.
TEST(SingleFlight, JoinedFlightsEndWithTheirFinisher)
{
  SingleFlight<int> flights;
  std::optional<SingleFlight<int>::Ticket> first = flights.join("key");
  ASSERT_TRUE(first && first->leader);
  std::optional<SingleFlight<int>::Ticket> second = flights.join("key", [] {
    ADD_FAILURE() << "may_start is asked only when a flight would start";
    return true;
  });
  ASSERT_TRUE(second);
  EXPECT_FALSE(second->leader);
  EXPECT_EQ(second->flight, first->flight);
  EXPECT_FALSE(second->flight->wait(std::chrono::steady_clock::now() + std::chrono::milliseconds(20)))
      << "nothing finished it yet";
  std::thread finisher([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    flights.finish("key", *first->flight, 7);
  });
  EXPECT_EQ(second->flight->wait(std::chrono::steady_clock::time_point::max()), 7);
  finisher.join();
  std::optional<SingleFlight<int>::Ticket> later = flights.join("key");
  ASSERT_TRUE(later);
  EXPECT_TRUE(later->leader) << "a finished flight is not joined again";
  EXPECT_FALSE(flights.join("other", [] { return false; })) << "may_start refused a new flight";
  EXPECT_TRUE(flights.join("other")->leader) << "the refusal left nothing behind";
}

} // namespace
} // namespace d4r::daemon
