#pragma once
// Answers the connections the accept loop may not serve with a gRPC status (http2_refusal.hpp)
// instead of a bare hang-up, on a thread of its own so that the loop never waits for a client.
// A refused connection gets the server's preface at once and waits here until its client has
// opened its calls (a gRPC client sends them once it has the preface), at most k_wait_for_calls; then each call it opened gets the
// status, the connection a GOAWAY, and it is closed. At most k_max_waiting connections wait: past
// that (a flood) a connection is closed at once, as before, and costs nothing more.

#include <grpcpp/support/status.h>

#include <chrono>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace d4r::daemon {

class RefusalResponder {
public:
  static constexpr size_t k_max_waiting = 64;
  static constexpr std::chrono::milliseconds k_wait_for_calls{250};
  static constexpr size_t k_max_message = 512;

  RefusalResponder();
  ~RefusalResponder(); // stops the thread; connections still waiting are closed
  RefusalResponder(const RefusalResponder&) = delete;
  RefusalResponder& operator=(const RefusalResponder&) = delete;

  // Takes `fd` (a connected stream socket). False when it was closed at once instead: the
  // responder is full, or could not start.
  bool refuse(int fd, grpc::StatusCode code, std::string message);

private:
  struct Waiting {
    int fd;
    std::chrono::steady_clock::time_point deadline;
    grpc::StatusCode code;
    std::string message;
    std::string received;
  };
  void run();

  int m_wake = -1; // an eventfd: new connections, or stop
  std::mutex m_mutex;
  std::vector<Waiting> m_incoming; // guarded by m_mutex
  size_t m_count = 0;              // incoming and waiting; guarded by m_mutex
  bool m_stop = false;             // guarded by m_mutex
  std::thread m_thread;
};

} // namespace d4r::daemon
