#pragma once
// The Resolve requests last answered READY, so that the next identical one is answered on the
// gRPC thread that received it (kernel_service.cpp) instead of hopping to the request pool: a warm
// hit costs the core ~20 us, and the hop two thread switches each way, which on a loaded machine
// were most of a warm Resolve's latency. Bounded: past k_max_keys the set starts again empty (a
// forgotten key only costs its next request the hop).

#include <cstddef>
#include <mutex>
#include <string>
#include <unordered_set>

namespace d4r::daemon {

class WarmQueries {
public:
  static constexpr size_t k_max_keys = 4096;

  [[nodiscard]] bool contains(const std::string& key) const;
  // `ready`: the request's last answer was READY; otherwise it is forgotten.
  void note(const std::string& key, bool ready);
  [[nodiscard]] size_t size() const;

private:
  mutable std::mutex m_mutex;
  std::unordered_set<std::string> m_keys;
};

} // namespace d4r::daemon
