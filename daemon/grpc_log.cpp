#include "daemon/grpc_log.hpp"

#include <grpc/grpc.h>
#include <grpc/support/log.h>

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <string_view>

namespace d4r::daemon {

namespace {

std::atomic<Counters*> g_counters{nullptr};
std::atomic<int64_t> g_last_warning_ms{0};

// The chttp2 transport's words (src/core/ext/transport/chttp2/transport/chttp2_transport.cc in
// gRPC 1.51) when its destructive reclaimer cancels a stream, and when its benign one sends an
// idle connection away, both for want of quota.
constexpr std::string_view k_abandoned_stream = " - abandon stream id ";
constexpr std::string_view k_idle_sent_away = " - send goaway to free memory";

// At most one warning in ten seconds: a flood of uploads must not flood the journal.
bool warning_due()
{
  int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                    std::chrono::steady_clock::now().time_since_epoch())
                    .count();
  int64_t last = g_last_warning_ms.load(std::memory_order_relaxed);
  return now - last >= 10'000 && g_last_warning_ms.compare_exchange_strong(last, now);
}

void on_grpc_log(gpr_log_func_args* args)
{
  std::string_view message(args->message);
  Counters* counters = g_counters.load(std::memory_order_relaxed);
  if (message.find(k_abandoned_stream) != std::string_view::npos) {
    if (counters != nullptr) {
      counters->add(Counter::rejected_transport_memory);
    }
    if (warning_due()) {
      spdlog::warn("transport memory: gRPC refused a call while receiving it, its buffers held "
                   "what --transport-memory allows (counted as rejected.transport_memory)");
    }
    return;
  }
  if (message.find(k_idle_sent_away) != std::string_view::npos) {
    if (counters != nullptr) {
      counters->add(Counter::closed_idle_for_memory);
    }
    return;
  }
  switch (args->severity) {
  case GPR_LOG_SEVERITY_ERROR:
    spdlog::error("grpc: {}", message);
    break;
  case GPR_LOG_SEVERITY_INFO:
    // The resource-quota trace's other lines, and gRPC's notes.
    spdlog::trace("grpc: {}", message);
    break;
  case GPR_LOG_SEVERITY_DEBUG:
    spdlog::trace("grpc: {}", message);
    break;
  }
}

} // namespace

void forward_grpc_log(Counters& counters)
{
  g_counters.store(&counters, std::memory_order_relaxed);
  gpr_set_log_function(&on_grpc_log);
  // The trace logs at INFO, which gRPC drops before formatting unless asked for.
  gpr_set_log_verbosity(GPR_LOG_SEVERITY_INFO);
  if (grpc_tracer_set_enabled("resource_quota", 1) == 0) {
    spdlog::warn("grpc: no resource_quota trace; transport-memory refusals will not be counted");
  }
}

} // namespace d4r::daemon
