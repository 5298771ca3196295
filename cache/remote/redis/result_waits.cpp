#include "cache/remote/redis/result_waits.hpp"

#include "cache/remote/redis/results.hpp"

namespace d4r::cache::redis {

namespace {

// How long the listener blocks in one read: the longest a stopping tier waits for its thread.
constexpr std::chrono::milliseconds k_listen_slice{200};
// How long the first ticket waits for the subscription to be made: an announcement before it
// would be missed (the caller's polling still finds the result).
constexpr std::chrono::milliseconds k_subscribe_wait{250};

} // namespace

RedisResultWaits::RedisResultWaits(RedisOptions options, RedisKeyspace keys)
    : m_options(std::move(options)), m_keys(std::move(keys))
{
}

RedisResultWaits::~RedisResultWaits()
{
  {
    std::lock_guard lock(m_mutex);
    m_stop = true;
  }
  if (m_thread.joinable()) {
    m_thread.join();
  }
}

void RedisResultWaits::listen()
{
  RedisSubscriber subscriber(m_options, m_keys);
  for (;;) {
    {
      std::lock_guard lock(m_mutex);
      if (m_stop) {
        return;
      }
    }
    Expected<void> subscribed = subscriber.subscribe_all(Clock::now() + m_options.command_timeout);
    Expected<std::optional<RedisMessage>> message =
        subscribed ? subscriber.next(Clock::now() + k_listen_slice)
                   : Expected<std::optional<RedisMessage>>(std::unexpected(subscribed.error()));
    std::unique_lock lock(m_mutex);
    if (!message) {
      // The server is away: nothing to wait for until it is back (its connection backs off).
      m_subscribed = false;
      m_changed.wait_for(lock, k_listen_slice, [&] { return m_stop; });
      continue;
    }
    if (!m_subscribed) {
      m_subscribed = true;
      m_changed.notify_all();
    }
    if (!*message) {
      continue;
    }
    ++m_sequence;
    if ((*message)->gap) {
      m_gap = m_sequence;
    } else if (m_waiting.contains((*message)->key)) {
      m_announced[(*message)->key] = m_sequence;
    } else {
      continue;
    }
    m_changed.notify_all();
  }
}

RedisResultWaits::Ticket::Ticket(RedisResultWaits& waits, std::string key)
    : m_waits(waits), m_key(std::move(key))
{
  std::unique_lock lock(m_waits.m_mutex);
  if (!m_waits.m_thread.joinable()) {
    m_waits.m_thread = std::thread([this_waits = &m_waits] { this_waits->listen(); });
    m_waits.m_changed.wait_for(lock, k_subscribe_wait, [&] { return m_waits.m_subscribed; });
  }
  ++m_waits.m_waiting[m_key];
  m_seen = m_waits.m_sequence;
}

RedisResultWaits::Ticket::~Ticket()
{
  std::lock_guard lock(m_waits.m_mutex);
  if (--m_waits.m_waiting[m_key] == 0) {
    m_waits.m_waiting.erase(m_key);
    m_waits.m_announced.erase(m_key);
  }
}

bool RedisResultWaits::Ticket::wait(Deadline deadline)
{
  std::unique_lock lock(m_waits.m_mutex);
  auto news = [&] {
    auto announced = m_waits.m_announced.find(m_key);
    return m_waits.m_gap > m_seen ||
           (announced != m_waits.m_announced.end() && announced->second > m_seen);
  };
  bool woken = m_waits.m_changed.wait_until(lock, deadline, [&] { return news() || m_waits.m_stop; });
  m_seen = m_waits.m_sequence;
  return woken && !m_waits.m_stop;
}

} // namespace d4r::cache::redis
