#include "daemon/connection_gate.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <vector>

namespace {

using d4r::daemon::ConnectionActivity;
using d4r::daemon::ConnectionGate;
using namespace std::chrono_literals;

// One connection: the daemon's end (what the gate holds) and the client's.
struct Pair {
  int daemon = -1;
  int client = -1;
};

class GateTest : public ::testing::Test {
protected:
  void TearDown() override
  {
    for (Pair& pair : m_pairs) {
      ::close(pair.daemon);
      ::close(pair.client);
    }
  }

  Pair connect()
  {
    std::array<int, 2> fds{};
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds.data()), 0);
    m_pairs.push_back({fds[0], fds[1]});
    return m_pairs.back();
  }

  std::vector<Pair> m_pairs;
};

// Whether the daemon's end was shut down: the client reads EOF at once.
bool hung_up(const Pair& pair)
{
  pollfd fd{pair.client, POLLIN, 0};
  if (::poll(&fd, 1, 0) != 1) {
    return false;
  }
  char byte = 0;
  return ::read(pair.client, &byte, 1) == 0;
}

TEST_F(GateTest, WhenFullTheLongestIdleConnectionMakesRoom)
{
  ConnectionActivity activity;
  ConnectionGate gate(2, 5000ms, &activity);
  auto t0 = ConnectionGate::Clock::now();
  Pair a = connect();
  Pair b = connect();
  bool evicted = false;
  ASSERT_TRUE(gate.admit_served(a.daemon, t0, evicted));
  ASSERT_TRUE(gate.admit_served(b.daemon, t0 + 100ms, evicted));
  // Idle for less than k_min_idle: the new one is refused, nobody is sent away.
  Pair c = connect();
  EXPECT_FALSE(gate.admit_served(c.daemon, t0 + 500ms, evicted));
  EXPECT_FALSE(evicted);
  EXPECT_FALSE(hung_up(a));
  EXPECT_FALSE(hung_up(b));
  // a is busy (a call in flight since t0), b idle since t0 + 100 ms: b goes, though a is older.
  activity.call_started(a.daemon);
  EXPECT_TRUE(gate.admit_served(c.daemon, t0 + 3s, evicted));
  EXPECT_TRUE(evicted);
  EXPECT_TRUE(hung_up(b));
  EXPECT_FALSE(hung_up(a));
  EXPECT_EQ(gate.served(), 2) << "b no longer counts while gRPC has yet to close it";
  // A call that ended makes its connection idle from then on.
  activity.call_finished(a.daemon, t0 + 3500ms);
  Pair d = connect();
  EXPECT_TRUE(gate.admit_served(d.daemon, t0 + 4600ms, evicted));
  EXPECT_TRUE(evicted);
  EXPECT_TRUE(hung_up(c)) << "c (idle since t0 + 3 s) before a (since t0 + 3.5 s)";
  EXPECT_FALSE(hung_up(a));
}

TEST_F(GateTest, EveryConnectionBusyRefusesTheNewOne)
{
  ConnectionActivity activity;
  ConnectionGate gate(2, 5000ms, &activity);
  auto t0 = ConnectionGate::Clock::now();
  Pair a = connect();
  Pair b = connect();
  bool evicted = false;
  ASSERT_TRUE(gate.admit_served(a.daemon, t0, evicted));
  ASSERT_TRUE(gate.admit_served(b.daemon, t0, evicted));
  activity.call_started(a.daemon);
  activity.call_started(b.daemon);
  Pair c = connect();
  EXPECT_FALSE(gate.admit_served(c.daemon, t0 + 60s, evicted));
  EXPECT_FALSE(evicted);
  EXPECT_FALSE(hung_up(a));
  EXPECT_FALSE(hung_up(b));
}

TEST_F(GateTest, AConnectionGrpcClosedFreesItsSlot)
{
  ConnectionActivity activity;
  ConnectionGate gate(1, 5000ms, &activity);
  auto t0 = ConnectionGate::Clock::now();
  Pair a = connect();
  bool evicted = false;
  ASSERT_TRUE(gate.admit_served(a.daemon, t0, evicted));
  activity.call_started(a.daemon);
  ::close(a.daemon); // as gRPC does when its client hangs up
  m_pairs.front().daemon = -1;
  Pair b = connect();
  EXPECT_TRUE(gate.admit_served(b.daemon, t0 + 10ms, evicted));
  EXPECT_FALSE(evicted);
}

TEST(ConnectionActivity, PeerNames)
{
  EXPECT_EQ(ConnectionActivity::fd_of_peer("fd:12"), 12);
  EXPECT_EQ(ConnectionActivity::fd_of_peer("fd:"), -1);
  EXPECT_EQ(ConnectionActivity::fd_of_peer("fd:12x"), -1);
  EXPECT_EQ(ConnectionActivity::fd_of_peer("unix:/run/x"), -1);
}

} // namespace
