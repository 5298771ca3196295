// BuildPool (daemon/build_pool.hpp): a game's build starts while warm work holds every build
// thread, warm work does not start while the threads are busy, and warm threads run niced.

#include "daemon/build_pool.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <latch>

#include <sys/resource.h>
#include <unistd.h>

namespace d4r::daemon {
namespace {

using namespace std::chrono_literals;

TEST(BuildPool, AGameBuildStartsWhileWarmWorkHoldsEveryThread)
{
  BuildPool pool(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::latch warm_started(1);
  ASSERT_TRUE(pool.submit(Priority::background, [&] {
    warm_started.count_down();
    released.wait();
  }));
  warm_started.wait();
  std::promise<void> game_ran;
  ASSERT_TRUE(pool.submit(Priority::interactive, [&] { game_ran.set_value(); }));
  // TaskPool would hold the game's task until the warm task ends (never, here).
  EXPECT_EQ(game_ran.get_future().wait_for(10s), std::future_status::ready);
  EXPECT_EQ(pool.running(Priority::background), 1);
  release.set_value();
}

TEST(BuildPool, WarmWorkWaitsWhileTheThreadsAreBusy)
{
  BuildPool pool(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::latch game_started(1);
  ASSERT_TRUE(pool.submit(Priority::interactive, [&] {
    game_started.count_down();
    released.wait();
  }));
  game_started.wait();
  std::atomic<bool> warm_ran{false};
  std::promise<void> warm_done;
  ASSERT_TRUE(pool.submit(Priority::background, [&] {
    warm_ran = true;
    warm_done.set_value();
  }));
  std::this_thread::sleep_for(300ms);
  EXPECT_FALSE(warm_ran.load()) << "one build thread, and a game's build holds it";
  EXPECT_EQ(pool.queued(), 1);
  release.set_value();
  EXPECT_EQ(warm_done.get_future().wait_for(10s), std::future_status::ready);
}

TEST(BuildPool, WarmThreadsRunAtALowerPriority)
{
  BuildPool pool(2);
  auto nice_of_this_thread = [] {
    errno = 0;
    return ::getpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()));
  };
  std::promise<int> game;
  std::promise<int> warm;
  ASSERT_TRUE(pool.submit(Priority::interactive, [&] { game.set_value(nice_of_this_thread()); }));
  ASSERT_TRUE(pool.submit(Priority::background, [&] { warm.set_value(nice_of_this_thread()); }));
  int game_nice = game.get_future().get();
  int warm_nice = warm.get_future().get();
  EXPECT_EQ(game_nice, nice_of_this_thread());
  EXPECT_EQ(warm_nice, std::min(19, game_nice + BuildPool::k_background_nice));
  // A process forked there inherits it: the worker a warm build starts.
  std::promise<int> child_nice;
  ASSERT_TRUE(pool.submit(Priority::background, [&] {
    int pipe_fds[2];
    ASSERT_EQ(::pipe(pipe_fds), 0);
    pid_t pid = ::fork();
    if (pid == 0) {
      int value = ::getpriority(PRIO_PROCESS, 0);
      ssize_t ignored = ::write(pipe_fds[1], &value, sizeof value);
      (void)ignored;
      ::_exit(0);
    }
    int value = -100;
    ssize_t got = ::read(pipe_fds[0], &value, sizeof value);
    (void)got;
    ::waitpid(pid, nullptr, 0);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
    child_nice.set_value(value);
  }));
  EXPECT_EQ(child_nice.get_future().get(), warm_nice);
}

TEST(BuildPool, ShutdownDrainsAndDiscardDrops)
{
  BuildPool pool(1);
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::latch started(1);
  ASSERT_TRUE(pool.submit(Priority::interactive, [&] {
    started.count_down();
    released.wait();
  }));
  started.wait();
  std::atomic<int> ran{0};
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(pool.submit(Priority::background, [&] { ++ran; }));
  }
  ASSERT_TRUE(pool.submit(Priority::interactive, [&] { ++ran; }));
  // One thread per kind, the game's holds it: nothing else may start.
  EXPECT_EQ(pool.discard_queued(), 4);
  EXPECT_EQ(ran.load(), 0);
  ASSERT_TRUE(pool.submit(Priority::background, [&] { ran += 10; }));
  release.set_value();
  pool.shutdown();
  EXPECT_GE(ran.load(), 10) << "a queued task runs before shutdown returns";
  EXPECT_FALSE(pool.submit(Priority::interactive, [] {}));
}

} // namespace
} // namespace d4r::daemon
