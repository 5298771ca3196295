#include "daemon/connection_gate.hpp"

#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cassert>

namespace d4r::daemon {

ConnectionGate::ConnectionGate(int64_t max_served, std::chrono::milliseconds silent_limit,
                               ConnectionActivity* activity)
    : m_max_served(max_served), m_silent_limit(silent_limit), m_activity(activity)
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

int64_t ConnectionGate::served() const
{
  return static_cast<int64_t>(
      std::count_if(m_served.begin(), m_served.end(), [](const Served& s) { return !s.shut_down; }));
}

bool ConnectionGate::evict_idlest(Clock::time_point now)
{
  if (m_activity == nullptr) {
    return false;
  }
  Served* idlest = nullptr;
  Clock::time_point idlest_since = now - k_min_idle;
  for (Served& served : m_served) {
    std::optional<Clock::time_point> since = served.shut_down ? std::nullopt
                                                               : m_activity->idle_since(served.fd);
    if (since && *since <= idlest_since) {
      idlest = &served;
      idlest_since = *since;
    }
  }
  if (idlest == nullptr) {
    return false;
  }
  // Not close(): gRPC owns the descriptor and closes it once it sees the hang-up; a number closed
  // under it could be reused by the next accept and then closed by gRPC.
  ::shutdown(idlest->fd, SHUT_RDWR);
  idlest->shut_down = true;
  return true;
}

bool ConnectionGate::admit_served(int fd, Clock::time_point now, bool& evicted)
{
  evicted = false;
  if (served() >= m_max_served) {
    prune_served();
  }
  if (served() >= m_max_served) {
    evicted = evict_idlest(now);
    if (!evicted) {
      return false;
    }
  }
  struct stat info {};
  if (fstat(fd, &info) != 0) {
    return false;
  }
  // A served entry whose number this new connection reuses is gone: gRPC closed it.
  std::erase_if(m_served, [fd](const Served& served) { return served.fd == fd; });
  m_served.push_back({fd, info.st_dev, info.st_ino});
  if (m_activity != nullptr) {
    m_activity->adopted(fd, now);
  }
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
