#pragma once
// The connections the accept loop holds before and after gRPC has them, each kind bounded.
// A new connection stays here, silent, until its first byte arrives: gRPC never sees a peer that
// connects and sends nothing, so a flood of those costs a descriptor each, not a transport's
// buffers, and a real client (whose preface follows its connect at once) is not queued behind
// them. Silent connections are closed after their time limit, and the oldest goes first when as
// many wait as gRPC may serve. A connection that speaks is handed to gRPC while fewer than
// max_served are open there. When all are taken, the one idle longest (no call in flight for at
// least k_min_idle, by connection_activity.hpp) is shut down to make room: gRPC sees the hang-up
// and closes it, and its client reconnects on its next call. Only when every served connection is
// busy, or was idle for less, is the new one refused ("connection limit", its calls answered by
// refusal_responder.hpp): idle clients that connect and never call can no longer hold every slot
// for --idle-connection-ms.

#include "daemon/connection_activity.hpp"

#include <sys/types.h>

#include <poll.h>

#include <chrono>
#include <cstdint>
#include <deque>
#include <vector>

namespace d4r::daemon {

class ConnectionGate {
public:
  using Clock = std::chrono::steady_clock;

  // A served connection idle for less than this is not sent away for a new one: clients that
  // call now and then would otherwise take each other's connection in turn.
  static constexpr std::chrono::milliseconds k_min_idle{1000};

  // `activity` (may be null: then no served connection is ever taken for a new one) outlives it.
  ConnectionGate(int64_t max_served, std::chrono::milliseconds silent_limit,
                 ConnectionActivity* activity = nullptr);
  ~ConnectionGate(); // closes the silent connections
  ConnectionGate(const ConnectionGate&) = delete;
  ConnectionGate& operator=(const ConnectionGate&) = delete;

  // Holds a new connection until it speaks; true when the oldest silent one had to be closed.
  bool hold(int fd, Clock::time_point now);
  // One pollfd per silent connection, appended to `fds`.
  void add_poll_entries(std::vector<pollfd>& fds) const;
  // After poll (the silent entries start at fds[first]): removes the connections that spoke or
  // hung up, and those past their time limit. The ones that spoke are returned, for gRPC;
  // `expired` counts the ones closed for silence.
  [[nodiscard]] std::vector<int> take_ready(const std::vector<pollfd>& fds, size_t first,
                                            Clock::time_point now, int64_t& expired);
  // Milliseconds until the oldest silent connection's limit (-1: none waits).
  [[nodiscard]] int next_deadline_ms(Clock::time_point now) const;

  // Counts a connection handed to gRPC, or false when max_served are open there and none can be
  // sent away (gRPC closes its connections itself: those gone are found by their descriptors'
  // identity). `evicted` is set when the longest-idle one was shut down to make room.
  [[nodiscard]] bool admit_served(int fd, Clock::time_point now, bool& evicted);
  // Open in gRPC and not being sent away.
  [[nodiscard]] int64_t served() const;

private:
  struct Silent {
    int fd;
    Clock::time_point deadline;
  };
  // A descriptor number is reused once gRPC closes it; the socket's inode tells them apart.
  struct Served {
    int fd;
    dev_t device;
    ino_t inode;
    bool shut_down = false; // sent away for a new connection; gRPC has yet to close it
  };
  void prune_served();
  bool evict_idlest(Clock::time_point now);

  int64_t m_max_served;
  std::chrono::milliseconds m_silent_limit;
  ConnectionActivity* m_activity;
  std::deque<Silent> m_silent; // oldest first
  std::vector<Served> m_served;
};

} // namespace d4r::daemon
