#pragma once
// A few Redis connections shared by the threads of one daemon: each call leases one for its
// duration (a connection serves one thread at a time), new ones are made up to the limit, and a
// caller that finds all of them busy waits only as long as its budget allows.

#include "cache/remote/redis/connection.hpp"

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

namespace d4r::cache::redis {

class RedisConnectionPool {
public:
  class Lease {
  public:
    Lease(RedisConnectionPool& pool, std::unique_ptr<RedisConnection> connection)
        : m_pool(&pool), m_connection(std::move(connection))
    {
    }
    ~Lease();
    Lease(Lease&& other) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;

    [[nodiscard]] RedisConnection& operator*() const { return *m_connection; }
    [[nodiscard]] RedisConnection* operator->() const { return m_connection.get(); }

  private:
    RedisConnectionPool* m_pool;
    std::unique_ptr<RedisConnection> m_connection;
  };

  RedisConnectionPool(RedisOptions options, int64_t max_connections);

  // timeout when every connection stayed busy until the deadline.
  [[nodiscard]] Expected<Lease> acquire(Deadline deadline);
  [[nodiscard]] const std::string& name() const { return m_name; }

private:
  void give_back(std::unique_ptr<RedisConnection> connection);

  RedisOptions m_options;
  std::string m_name;
  int64_t m_max_connections;
  std::mutex m_mutex;
  std::condition_variable m_returned;
  std::vector<std::unique_ptr<RedisConnection>> m_idle;
  int64_t m_made = 0;
};

} // namespace d4r::cache::redis
