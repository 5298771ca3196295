#include "daemon/client_limits.hpp"

#include "util/error.hpp"

#include <algorithm>
#include <cmath>

namespace d4r::daemon {

namespace {

constexpr double k_seconds_per_hour = 3600;

std::string client_label(std::string_view client)
{
  return "client " + std::string(client);
}

} // namespace

std::string_view to_string(LimitReason reason)
{
  switch (reason) {
  case LimitReason::rate:
    return "rate";
  case LimitReason::module_size:
    return "module_size";
  case LimitReason::upload_volume:
    return "upload_volume";
  case LimitReason::builds:
    return "builds";
  }
  D4R_UNREACHABLE("a reason the switch covers");
}

bool ClientLimits::take(Bucket& bucket, double amount, double per_second, double capacity,
                        Clock::time_point now)
{
  if (!bucket.started) {
    bucket = {capacity, now, true};
  } else if (now > bucket.refilled) {
    double elapsed = std::chrono::duration<double>(now - bucket.refilled).count();
    bucket.tokens = std::min(capacity, bucket.tokens + elapsed * per_second);
    bucket.refilled = now;
  }
  if (bucket.tokens < amount) {
    return false;
  }
  bucket.tokens -= amount;
  return true;
}

ClientLimits::ClientState& ClientLimits::state(std::string_view client)
{
  auto found = m_clients.find(client);
  if (found == m_clients.end()) {
    found = m_clients.emplace(std::string(client), ClientState{}).first;
  }
  return found->second;
}

std::optional<LimitRefusal> ClientLimits::admit_call(std::string_view client, Clock::time_point now)
{
  double rate = m_settings.calls_per_second;
  if (rate <= 0) {
    return std::nullopt;
  }
  // A burst of one second's calls, and never less than one call.
  double capacity = std::max(1.0, rate);
  std::lock_guard lock(m_mutex);
  if (take(state(client).calls, 1, rate, capacity, now)) {
    return std::nullopt;
  }
  return LimitRefusal{LimitReason::rate,
                      client_label(client) + " is over its rate of " +
                          std::to_string(static_cast<int64_t>(std::lround(rate))) +
                          " calls a second (--client-rate); try again in a moment"};
}

std::optional<LimitRefusal> ClientLimits::admit_upload(std::string_view client, int64_t bytes,
                                                       Clock::time_point now)
{
  if (m_settings.max_module_bytes > 0 && bytes > m_settings.max_module_bytes) {
    return LimitRefusal{LimitReason::module_size,
                        "a module of " + std::to_string(bytes) + " bytes is over the " +
                            std::to_string(m_settings.max_module_bytes) +
                            " bytes one upload of " + client_label(client) +
                            " may have (--client-max-module)"};
  }
  int64_t volume = m_settings.upload_bytes_per_hour;
  if (volume <= 0) {
    return std::nullopt;
  }
  auto capacity = static_cast<double>(volume);
  std::lock_guard lock(m_mutex);
  if (take(state(client).upload, static_cast<double>(bytes), capacity / k_seconds_per_hour,
           capacity, now)) {
    return std::nullopt;
  }
  return LimitRefusal{LimitReason::upload_volume,
                      client_label(client) + " uploaded its " + std::to_string(volume) +
                          " bytes of the last hour (--client-upload-per-hour); it refills " +
                          "evenly over the hour"};
}

void ClientLimits::enter_build(std::string_view client)
{
  std::lock_guard lock(m_mutex);
  ++state(client).builds_in_flight;
}

void ClientLimits::leave_build(std::string_view client)
{
  std::lock_guard lock(m_mutex);
  ClientState& entry = state(client);
  entry.builds_in_flight = std::max<int64_t>(0, entry.builds_in_flight - 1);
}

std::optional<LimitRefusal> ClientLimits::check_builds(std::string_view client) const
{
  if (m_settings.max_builds <= 0) {
    return std::nullopt;
  }
  std::lock_guard lock(m_mutex);
  auto found = m_clients.find(client);
  int64_t in_flight = found == m_clients.end() ? 0 : found->second.builds_in_flight;
  if (in_flight <= m_settings.max_builds) {
    return std::nullopt;
  }
  return LimitRefusal{LimitReason::builds,
                      client_label(client) + " has " + std::to_string(m_settings.max_builds) +
                          " Resolve and Build calls in flight already (--client-max-builds)"};
}

uint32_t ClientLimits::clamp_wait(uint32_t asked) const
{
  return std::min(asked, m_settings.max_wait_ms);
}

} // namespace d4r::daemon
