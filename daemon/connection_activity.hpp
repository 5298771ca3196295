#pragma once
// Which connections handed to gRPC are idle, and since when: the calls gRPC runs on each (a
// server interceptor counts them, by the "fd:N" peer name gRPC gives a connection adopted from a
// descriptor) and when the last one ended. The connection gate (connection_gate.hpp) reads it to
// send the longest-idle connection away when every slot is taken, instead of refusing a new
// client: an idle connection costs its client only a reconnect on its next call.
//
// Thread-safe: gRPC's threads record, the accept loop reads.

#include <grpcpp/support/server_interceptor.h>

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string_view>
#include <unordered_map>

namespace d4r::daemon {

class ConnectionActivity {
public:
  using Clock = std::chrono::steady_clock;

  // A new connection on `fd`: idle since `now` (a number reused forgets the old connection).
  void adopted(int fd, Clock::time_point now);
  void call_started(int fd);
  void call_finished(int fd, Clock::time_point now);
  // Since when no call has run on `fd`; nullopt while one runs. Unknown descriptors: nullopt.
  [[nodiscard]] std::optional<Clock::time_point> idle_since(int fd) const;

  // For ServerBuilder::experimental().SetInterceptorCreators.
  [[nodiscard]] std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>
  interceptor_factory();

  // The descriptor in a peer name "fd:N", or -1.
  [[nodiscard]] static int fd_of_peer(std::string_view peer);

private:
  struct Entry {
    int64_t calls = 0;
    Clock::time_point last{};
  };
  mutable std::mutex m_mutex;
  std::unordered_map<int, Entry> m_entries;
};

} // namespace d4r::daemon
