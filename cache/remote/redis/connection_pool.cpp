#include "cache/remote/redis/connection_pool.hpp"

namespace d4r::cache::redis {

RedisConnectionPool::Lease::~Lease()
{
  if (m_connection) {
    m_pool->give_back(std::move(m_connection));
  }
}

RedisConnectionPool::RedisConnectionPool(RedisOptions options, int64_t max_connections)
    : m_options(std::move(options)), m_name("redis " + to_string(m_options.endpoint)),
      m_max_connections(max_connections)
{
  assert(max_connections > 0 && "a pool without connections serves nobody");
}

Expected<RedisConnectionPool::Lease> RedisConnectionPool::acquire(Deadline deadline)
{
  std::unique_lock lock(m_mutex);
  for (;;) {
    if (!m_idle.empty()) {
      // The most recently used first: it is the one most likely still connected.
      std::unique_ptr<RedisConnection> connection = std::move(m_idle.back());
      m_idle.pop_back();
      return Lease(*this, std::move(connection));
    }
    if (m_made < m_max_connections) {
      ++m_made;
      return Lease(*this, std::make_unique<RedisConnection>(m_options));
    }
    if (m_returned.wait_until(lock, deadline) == std::cv_status::timeout && m_idle.empty()) {
      return make_error(ErrorCode::timeout, m_name + ": all " + std::to_string(m_max_connections) +
                                                " connections busy until the budget ran out");
    }
  }
}

void RedisConnectionPool::give_back(std::unique_ptr<RedisConnection> connection)
{
  {
    std::lock_guard lock(m_mutex);
    m_idle.push_back(std::move(connection));
  }
  m_returned.notify_one();
}

} // namespace d4r::cache::redis
