#include "daemon/refusal_responder.hpp"

#include "daemon/http2_refusal.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>

namespace d4r::daemon {
namespace {

using Clock = std::chrono::steady_clock;

// More than a client's preface, settings and a few calls' headers; a client that sends more
// before its first HEADERS frame is answered with what arrived.
constexpr size_t k_max_received = 64 * 1024;

// Writes the answer (a few hundred bytes into an empty socket buffer: one send) and closes. Bytes
// the client sent after its calls' headers may stay unread: a Unix-socket peer still reads what
// was sent to it before it sees the reset.
void answer_and_close(int fd, const std::vector<uint32_t>& streams, grpc::StatusCode code,
                      const std::string& message)
{
  const std::string frames = refusal_frames(streams, code, message);
  (void)::send(fd, frames.data(), frames.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  (void)::shutdown(fd, SHUT_WR);
  ::close(fd);
}

// Reads what the client sent since the last time; false when it hung up or failed.
bool receive(int fd, std::string& received)
{
  char buffer[4096];
  while (received.size() < k_max_received) {
    ssize_t n = ::recv(fd, buffer, sizeof(buffer), MSG_DONTWAIT);
    if (n > 0) {
      received.append(buffer, static_cast<size_t>(n));
      continue;
    }
    if (n < 0 && errno == EINTR) {
      continue;
    }
    return n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
  }
  return true;
}

} // namespace

RefusalResponder::RefusalResponder()
{
  m_wake = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (m_wake >= 0) {
    m_thread = std::thread([this] { run(); });
  }
}

RefusalResponder::~RefusalResponder()
{
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  if (m_thread.joinable()) {
    uint64_t one = 1;
    (void)::write(m_wake, &one, sizeof(one));
    m_thread.join();
  }
  for (const Waiting& waiting : m_incoming) {
    ::close(waiting.fd);
  }
  if (m_wake >= 0) {
    ::close(m_wake);
  }
}

bool RefusalResponder::refuse(int fd, grpc::StatusCode code, std::string message)
{
  {
    std::lock_guard lock(m_mutex);
    if (m_thread.joinable() && !m_stop && m_count < k_max_waiting) {
      message.resize(std::min(message.size(), k_max_message));
      const std::string preface = server_preface();
      (void)::send(fd, preface.data(), preface.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
      m_incoming.push_back(
          Waiting{fd, Clock::now() + k_wait_for_calls, code, std::move(message), {}});
      ++m_count;
      uint64_t one = 1;
      (void)::write(m_wake, &one, sizeof(one));
      return true;
    }
  }
  ::close(fd);
  return false;
}

void RefusalResponder::run()
{
  std::vector<Waiting> waiting;
  std::vector<pollfd> fds;
  for (;;) {
    {
      std::lock_guard lock(m_mutex);
      if (m_stop) {
        break;
      }
      std::move(m_incoming.begin(), m_incoming.end(), std::back_inserter(waiting));
      m_incoming.clear();
    }
    Clock::time_point now = Clock::now();
    int timeout = -1;
    fds.assign({{m_wake, POLLIN, 0}});
    for (const Waiting& connection : waiting) {
      fds.push_back({connection.fd, POLLIN, 0});
      auto left = std::chrono::ceil<std::chrono::milliseconds>(connection.deadline - now).count();
      timeout = static_cast<int>(timeout < 0 ? std::max<int64_t>(left, 0)
                                             : std::clamp<int64_t>(left, 0, timeout));
    }
    if (::poll(fds.data(), fds.size(), timeout) < 0 && errno != EINTR) {
      break;
    }
    if (fds[0].revents & POLLIN) {
      uint64_t count = 0;
      (void)::read(m_wake, &count, sizeof(count));
    }
    now = Clock::now();
    size_t finished = 0;
    for (size_t i = 0; i < waiting.size(); ++i) {
      Waiting& connection = waiting[i];
      bool open = true;
      if (fds[i + 1].revents != 0) {
        open = receive(connection.fd, connection.received);
      }
      ClientFrames frames = read_client_frames(connection.received);
      if (!open || frames.malformed) {
        ::close(connection.fd);
      } else if (!frames.call_streams.empty() || now >= connection.deadline ||
                 connection.received.size() >= k_max_received) {
        answer_and_close(connection.fd, frames.call_streams, connection.code, connection.message);
      } else {
        continue;
      }
      connection.fd = -1;
      ++finished;
    }
    std::erase_if(waiting, [](const Waiting& connection) { return connection.fd < 0; });
    std::lock_guard lock(m_mutex);
    m_count -= finished;
  }
  for (const Waiting& connection : waiting) {
    ::close(connection.fd);
  }
}

} // namespace d4r::daemon
