#include "daemon/connection_gate.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>

namespace d4r::daemon {

ConnectionGate::ConnectionGate(int64_t max_served, std::chrono::milliseconds silent_limit)
    : m_max_served(max_served), m_silent_limit(silent_limit)
{
}

ConnectionGate::~ConnectionGate()
{
  for (const Silent& silent : m_silent) {
    close(silent.fd);
  }
}

bool ConnectionGate::hold(int fd, Clock::time_point now)
{
  bool evicted = false;
  if (static_cast<int64_t>(m_silent.size()) >= m_max_served) {
    close(m_silent.front().fd);
    m_silent.pop_front();
    evicted = true;
  }
  m_silent.push_back({fd, now + m_silent_limit});
  return evicted;
}

void ConnectionGate::add_poll_entries(std::vector<pollfd>& fds) const
{
  for (const Silent& silent : m_silent) {
    fds.push_back({silent.fd, POLLIN, 0});
  }
}

std::vector<int> ConnectionGate::take_ready(const std::vector<pollfd>& fds, size_t first,
                                            Clock::time_point now, int64_t& expired)
{
  assert(fds.size() >= first + m_silent.size() && "the poll entries of every silent connection");
  std::vector<int> ready;
  std::deque<Silent> waiting;
  for (size_t i = 0; i < m_silent.size(); ++i) {
    const Silent& silent = m_silent[i];
    short events = fds[first + i].revents;
    if ((events & POLLIN) != 0) {
      ready.push_back(silent.fd); // gRPC reads the bytes that woke us, and sees a hang-up itself
    } else if ((events & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
      close(silent.fd);
    } else if (now >= silent.deadline) {
      close(silent.fd);
      ++expired;
    } else {
      waiting.push_back(silent);
    }
  }
  m_silent = std::move(waiting);
  return ready;
}

int ConnectionGate::next_deadline_ms(Clock::time_point now) const
{
  if (m_silent.empty()) {
    return -1;
  }
  auto left = std::chrono::ceil<std::chrono::milliseconds>(m_silent.front().deadline - now);
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, 60'000));
}

bool ConnectionGate::admit_served(int fd)
{
  if (static_cast<int64_t>(m_served.size()) >= m_max_served) {
    prune_served();
  }
  if (static_cast<int64_t>(m_served.size()) >= m_max_served) {
    return false;
  }
  struct stat info {};
  if (fstat(fd, &info) != 0) {
    return false;
  }
  // A served entry whose number this new connection reuses is gone: gRPC closed it.
  std::erase_if(m_served, [fd](const Served& served) { return served.fd == fd; });
  m_served.push_back({fd, info.st_dev, info.st_ino});
  return true;
}

void ConnectionGate::prune_served()
{
  std::erase_if(m_served, [](const Served& served) {
    struct stat info {};
    return fstat(served.fd, &info) != 0 || info.st_dev != served.device ||
           info.st_ino != served.inode;
  });
}

} // namespace d4r::daemon
