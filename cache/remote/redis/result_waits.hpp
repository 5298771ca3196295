#pragma once
// Waiting for another host's build without polling Redis for it: one subscriber thread per tier
// listens to every finished build's announcement (results.hpp) and wakes the threads waiting on
// that key. A waiter takes a ticket before it looks in the index, so that an announcement made
// after its look wakes it however soon it comes. A lost subscription (the server restarted) wakes
// every waiter, since announcements may have been missed; while there is none (the server down)
// waits simply run to their deadline, and the caller's own polling is what finds the result.

#include "cache/remote/redis/connection.hpp"
#include "cache/remote/redis/keyspace.hpp"

#include <condition_variable>
#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace d4r::cache::redis {

class RedisResultWaits {
public:
  RedisResultWaits(RedisOptions options, RedisKeyspace keys);
  ~RedisResultWaits();
  RedisResultWaits(const RedisResultWaits&) = delete;
  RedisResultWaits& operator=(const RedisResultWaits&) = delete;

  class Ticket {
  public:
    Ticket(RedisResultWaits& waits, std::string key);
    ~Ticket();
    Ticket(const Ticket&) = delete;
    Ticket& operator=(const Ticket&) = delete;

    // Until the key's build is announced after the ticket was taken (or announcements may have
    // been lost), or the deadline: true when woken by an announcement.
    bool wait(Deadline deadline);

  private:
    RedisResultWaits& m_waits;
    std::string m_key;
    uint64_t m_seen;
  };

private:
  void listen();

  RedisOptions m_options;
  RedisKeyspace m_keys;
  std::mutex m_mutex;
  std::condition_variable m_changed;
  uint64_t m_sequence = 0;                    // one more per announcement heard
  uint64_t m_gap = 0;                         // m_sequence when announcements were last lost
  std::map<std::string, uint64_t> m_announced; // key -> m_sequence of its last announcement
  std::map<std::string, int> m_waiting;        // key -> tickets held (announcements kept only for these)
  bool m_subscribed = false;
  bool m_stop = false;
  std::thread m_thread; // started by the first ticket
};

} // namespace d4r::cache::redis
