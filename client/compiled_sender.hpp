#pragma once
// Where d4rk_store_compiled's objects wait to be sent: a queue bounded in bytes and a thread of
// the client's own (started by the first store) that sends them one at a time, each within
// k_store_timeout, outside the game's budget. The game thread only copies the bytes; the digest is
// computed here. Destroying it cancels the store in flight and drops the rest, so that a game's
// exit never waits for the daemon (the next run compiles that module again and offers it again).

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

namespace d4r::client {

inline constexpr auto k_store_timeout = std::chrono::seconds(30);
// A game that compiles many modules while the daemon is slow holds no more than this.
inline constexpr size_t k_max_queued_store_bytes = size_t{128} << 20;

class CompiledSender {
public:
  using Send = std::function<grpc::Status(grpc::ClientContext&,
                                          const d4r::kernel::v1::StoreCompiledRequest&,
                                          d4r::kernel::v1::StoreCompiledReply&)>;
  using Report = std::function<void(const std::string&)>; // a failed store, for the log

  CompiledSender(Send send, Report report) : m_send(std::move(send)), m_report(std::move(report)) {}
  ~CompiledSender();
  CompiledSender(const CompiledSender&) = delete;
  CompiledSender& operator=(const CompiledSender&) = delete;

  // Queues `request` (its sha256 is set before it is sent). False, with why, when the bytes
  // waiting would pass k_max_queued_store_bytes.
  [[nodiscard]] bool enqueue(d4r::kernel::v1::StoreCompiledRequest request, std::string& why);

private:
  void loop();

  Send m_send;
  Report m_report;
  std::mutex m_mutex;
  std::condition_variable m_ready;
  std::deque<d4r::kernel::v1::StoreCompiledRequest> m_queue;
  size_t m_queued_bytes = 0;
  grpc::ClientContext* m_in_flight = nullptr;
  bool m_closing = false;
  std::thread m_thread;
};

} // namespace d4r::client
