#pragma once
// What one named client of the build server may ask of it (--client-* flags): calls per second,
// the size of one uploaded module, the bytes it uploads in an hour, the Resolve and Build calls
// it has in flight at once, and how long one call may wait for a build. A client past a limit is
// refused with the limit's reason, and only that client: the others keep their own allowance.
//
// Rates are token buckets (a burst of one second's calls; the upload volume refills evenly over
// the hour), kept per client name in memory: a restart forgets them, which only forgives.
// Thread-safe: gRPC's threads admit calls at once. The clock is the caller's, so tests can step it.

#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace d4r::daemon {

struct ClientLimitSettings {
  double calls_per_second = 200;           // --client-rate; 0: unlimited
  int64_t max_module_bytes = 16LL << 20;   // --client-max-module: one PutModule's PTX
  int64_t upload_bytes_per_hour = 1LL << 30; // --client-upload-per-hour; 0: unlimited
  int64_t max_builds = 4;                  // --client-max-builds: Resolve/Build calls in flight
  uint32_t max_wait_ms = 60'000;           // --client-max-wait-ms: a longer wait is shortened
};

enum class LimitReason { rate, module_size, upload_volume, builds };

// "rate", "module_size", "upload_volume", "builds": the key status and metrics count under.
[[nodiscard]] std::string_view to_string(LimitReason reason);

struct LimitRefusal {
  LimitReason reason;
  std::string message; // for the client: which limit, its value, and what to do
};

class ClientLimits {
public:
  using Clock = std::chrono::steady_clock;

  explicit ClientLimits(ClientLimitSettings settings) : m_settings(settings) {}

  // A call begins: one token of the client's call bucket.
  [[nodiscard]] std::optional<LimitRefusal> admit_call(std::string_view client, Clock::time_point now);
  // A module of `bytes` arrives: within one module's size and the client's hourly volume (taken
  // from the volume only when admitted).
  [[nodiscard]] std::optional<LimitRefusal> admit_upload(std::string_view client, int64_t bytes,
                                                         Clock::time_point now);

  // Resolve and Build calls in flight, counted from when the message arrives until the call is
  // over (the call's interceptor enters and leaves); the handler asks whether the count, its own
  // call included, is within the limit.
  void enter_build(std::string_view client);
  void leave_build(std::string_view client);
  [[nodiscard]] std::optional<LimitRefusal> check_builds(std::string_view client) const;

  // The wait a remote call may have: what it asks, at most --client-max-wait-ms (0 stays 0: the
  // daemon's default).
  [[nodiscard]] uint32_t clamp_wait(uint32_t asked) const;

  [[nodiscard]] const ClientLimitSettings& settings() const { return m_settings; }

private:
  struct Bucket {
    double tokens = 0;
    Clock::time_point refilled{};
    bool started = false;
  };
  struct ClientState {
    Bucket calls;
    Bucket upload;
    int64_t builds_in_flight = 0;
  };
  // Refills `bucket` at `per_second` up to `capacity` and takes `amount` if it is there.
  static bool take(Bucket& bucket, double amount, double per_second, double capacity,
                   Clock::time_point now);
  ClientState& state(std::string_view client);

  const ClientLimitSettings m_settings;
  mutable std::mutex m_mutex;
  std::map<std::string, ClientState, std::less<>> m_clients;
};

} // namespace d4r::daemon
