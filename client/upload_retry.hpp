#pragma once
// Retries of a background upload (PutModule) that the daemon's transport refused for want of
// memory: past --transport-memory gRPC abandons a call while it arrives (RESOURCE_EXHAUSTED) or
// sends a connection away (UNAVAILABLE), whatever the call, so that an upload among many at once
// is dropped at random. Such an upload is tried again after a bounded exponential backoff with
// full jitter (a delay drawn from [0, min(cap, first * 2^attempt)]), so that the clients refused
// together do not come back together; after max_attempts the last error is reported, naming the
// attempts. Only uploads: a game's resolve has its own budget and falls back instead.

#include <grpcpp/support/status.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace d4r::client {

struct UploadRetryPolicy {
  int max_attempts = 8;
  std::chrono::milliseconds first{50};
  std::chrono::milliseconds cap{2000};
};

// Whether `status` is the transport's refusal, worth another attempt.
[[nodiscard]] bool is_transport_refusal(const grpc::Status& status);

// The delay before attempt `attempt` + 1 (attempt counts from 0), from a uniform `random`.
[[nodiscard]] std::chrono::milliseconds upload_backoff(const UploadRetryPolicy& policy, int attempt,
                                                       uint64_t random);

struct UploadOutcome {
  grpc::Status status;
  int attempts = 0;
};

// Calls `attempt` until it succeeds, fails otherwise than by a transport refusal, or
// max_attempts are spent; between attempts `wait(delay)` is called and ends the retries when it
// returns false (the client is closing).
[[nodiscard]] UploadOutcome upload_with_retry(
    const UploadRetryPolicy& policy, const std::function<grpc::Status()>& attempt,
    const std::function<bool(std::chrono::milliseconds)>& wait);

// "status 8: ... (after 8 attempts: the daemon's transport memory stayed full)" and the like.
[[nodiscard]] std::string describe_upload_failure(const UploadOutcome& outcome);

} // namespace d4r::client
