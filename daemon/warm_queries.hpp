#pragma once
// The Resolve requests last answered READY, so that the next identical one is answered on the
// gRPC thread that received it (kernel_service.cpp) instead of hopping to the request pool: a warm
// hit costs the core ~20 us, and the hop two thread switches each way, which on a loaded machine
// were most of a warm Resolve's latency. Where the answer came with a ReadyCheck, the reply itself
// is kept too, and sent again while the check holds: no core work at all but its few stats.
// Bounded: past k_max_keys the set starts again empty (a forgotten key only costs its next
// request the hop).

#include "daemon/kernel_core.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

namespace d4r::daemon {

struct WarmAnswer {
  ::d4r::kernel::v1::ResolveReply reply;
  std::shared_ptr<const ReadyCheck> check; // never null
};

class WarmQueries {
public:
  static constexpr size_t k_max_keys = 4096;

  [[nodiscard]] bool contains(const std::string& key) const;
  // `ready`: the request's last answer was READY (kept with `answer` when it may be sent again);
  // otherwise it is forgotten, with any reply kept for it.
  void note(const std::string& key, bool ready, std::shared_ptr<const WarmAnswer> answer = nullptr);
  // The reply kept for `key`, or null.
  [[nodiscard]] std::shared_ptr<const WarmAnswer> answer(const std::string& key) const;
  [[nodiscard]] size_t size() const;

private:
  mutable std::mutex m_mutex;
  std::unordered_map<std::string, std::shared_ptr<const WarmAnswer>> m_keys;
};

} // namespace d4r::daemon
