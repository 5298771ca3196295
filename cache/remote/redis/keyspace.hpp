#pragma once
// The names of everything the Redis tier keeps, under one prefix, so that several deployments
// (or tests) can share a server and `redis-cli --scan --pattern 'd4r:*'` shows all of ours.

#include "util/digest.hpp"

#include <string>
#include <string_view>

namespace d4r::cache::redis {

struct RedisKeyspace {
  std::string prefix = "d4r:";

  // Content-addressed objects: the name is the SHA-256 of the bytes.
  [[nodiscard]] std::string object(const Sha256& digest) const
  {
    return prefix + "obj:" + to_hex(digest);
  }
  // A cache key's text form to its object digest and launch metadata.
  [[nodiscard]] std::string index(std::string_view key) const
  {
    return prefix + "idx:" + std::string(key);
  }
  // Single flight across hosts: who builds this key now.
  [[nodiscard]] std::string lock(std::string_view key) const
  {
    return prefix + "lock:" + std::string(key);
  }
  // Where a finished build of this key is announced.
  [[nodiscard]] std::string done_channel(std::string_view key) const
  {
    return prefix + "done:" + std::string(key);
  }
  [[nodiscard]] std::string done_pattern() const { return prefix + "done:*"; }
  [[nodiscard]] std::string jobs() const { return prefix + "jobs"; }
  [[nodiscard]] std::string job_group() const { return "builders"; }
  [[nodiscard]] std::string host(std::string_view name) const
  {
    return prefix + "host:" + std::string(name);
  }
  [[nodiscard]] std::string host_pattern() const { return prefix + "host:*"; }
};

} // namespace d4r::cache::redis
