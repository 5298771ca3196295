#include "client/upload_retry.hpp"

#include <algorithm>
#include <random>

namespace d4r::client {

bool is_transport_refusal(const grpc::Status& status)
{
  return status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED ||
         status.error_code() == grpc::StatusCode::UNAVAILABLE;
}

std::chrono::milliseconds upload_backoff(const UploadRetryPolicy& policy, int attempt,
                                         uint64_t random)
{
  int64_t bound = policy.first.count();
  for (int i = 0; i < attempt && bound < policy.cap.count(); ++i) {
    bound *= 2;
  }
  bound = std::min(bound, policy.cap.count());
  return std::chrono::milliseconds(bound <= 0 ? 0 : static_cast<int64_t>(random % (static_cast<uint64_t>(bound) + 1)));
}

UploadOutcome upload_with_retry(const UploadRetryPolicy& policy,
                                const std::function<grpc::Status()>& attempt,
                                const std::function<bool(std::chrono::milliseconds)>& wait)
{
  std::random_device seed;
  std::mt19937_64 random(seed());
  UploadOutcome outcome;
  for (;;) {
    outcome.status = attempt();
    ++outcome.attempts;
    if (outcome.status.ok() || !is_transport_refusal(outcome.status) ||
        outcome.attempts >= policy.max_attempts) {
      return outcome;
    }
    if (!wait(upload_backoff(policy, outcome.attempts - 1, random()))) {
      return outcome;
    }
  }
}

std::string describe_upload_failure(const UploadOutcome& outcome)
{
  std::string text = "status " + std::to_string(static_cast<int>(outcome.status.error_code())) +
                     ": " + outcome.status.error_message();
  if (outcome.attempts > 1) {
    text += " (after " + std::to_string(outcome.attempts) + " attempts";
    text += is_transport_refusal(outcome.status)
                ? ": the daemon's transport stayed full, --transport-memory)"
                : ")";
  }
  return text;
}

} // namespace d4r::client
