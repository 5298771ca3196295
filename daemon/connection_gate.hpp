#pragma once
// The connections the accept loop holds before and after gRPC has them, each kind bounded.
// A new connection stays here, silent, until its first byte arrives: gRPC never sees a peer that
// connects and sends nothing, so a flood of those costs a descriptor each, not a transport's
// buffers, and a real client (whose preface follows its connect at once) is not queued behind
// them. Silent connections are closed after their time limit, and the oldest goes first when as
// many wait as gRPC may serve. A connection that speaks is handed to gRPC while fewer than
// max_served are open there; past that it is closed at once ("connection limit").

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

  ConnectionGate(int64_t max_served, std::chrono::milliseconds silent_limit);
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

  // Counts a connection handed to gRPC, or false when max_served are open there (gRPC closes
  // its connections itself: those gone are found by their descriptors' identity).
  [[nodiscard]] bool admit_served(int fd);
  [[nodiscard]] int64_t served() const { return static_cast<int64_t>(m_served.size()); }

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
  };
  void prune_served();

  int64_t m_max_served;
  std::chrono::milliseconds m_silent_limit;
  std::deque<Silent> m_silent; // oldest first
  std::vector<Served> m_served;
};

} // namespace d4r::daemon
