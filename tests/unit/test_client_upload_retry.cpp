#include "client/upload_retry.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace {

using d4r::client::UploadOutcome;
using d4r::client::UploadRetryPolicy;
using namespace std::chrono_literals;

const grpc::Status k_refused{grpc::StatusCode::RESOURCE_EXHAUSTED,
                             "Received RST_STREAM with error code 11"};

TEST(UploadRetry, TransportRefusalsAreRetriedWithBoundedJitteredBackoff)
{
  UploadRetryPolicy policy;
  int calls = 0;
  std::vector<std::chrono::milliseconds> waits;
  UploadOutcome outcome = d4r::client::upload_with_retry(
      policy, [&] { return ++calls < 4 ? k_refused : grpc::Status::OK; },
      [&](std::chrono::milliseconds delay) {
        waits.push_back(delay);
        return true;
      });
  EXPECT_TRUE(outcome.status.ok());
  EXPECT_EQ(outcome.attempts, 4);
  ASSERT_EQ(waits.size(), 3u);
  for (size_t i = 0; i < waits.size(); ++i) {
    EXPECT_LE(waits[i], policy.first * (1 << i)) << i;
  }
}

TEST(UploadRetry, GivesUpAfterMaxAttemptsWithAClearError)
{
  UploadRetryPolicy policy;
  int calls = 0;
  UploadOutcome outcome = d4r::client::upload_with_retry(
      policy, [&] { return ++calls, k_refused; }, [](std::chrono::milliseconds) { return true; });
  EXPECT_EQ(calls, policy.max_attempts);
  EXPECT_EQ(outcome.status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  std::string text = d4r::client::describe_upload_failure(outcome);
  EXPECT_NE(text.find("after 8 attempts"), std::string::npos) << text;
  EXPECT_NE(text.find("--transport-memory"), std::string::npos) << text;
}

TEST(UploadRetry, OtherErrorsAndClosingEndAtOnce)
{
  int calls = 0;
  UploadOutcome invalid = d4r::client::upload_with_retry(
      {}, [&] { return ++calls, grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, "bad digest"); },
      [](std::chrono::milliseconds) { return true; });
  EXPECT_EQ(invalid.attempts, 1);
  UploadOutcome closing = d4r::client::upload_with_retry(
      {}, [] { return k_refused; }, [](std::chrono::milliseconds) { return false; });
  EXPECT_EQ(closing.attempts, 1);
}

TEST(UploadRetry, TheBackoffDoublesUpToItsCap)
{
  UploadRetryPolicy policy{8, 50ms, 2000ms};
  EXPECT_EQ(d4r::client::upload_backoff(policy, 0, 50), 50ms);
  EXPECT_EQ(d4r::client::upload_backoff(policy, 0, 51), 0ms);
  for (int attempt = 0; attempt < 12; ++attempt) {
    for (uint64_t random : {uint64_t{0}, uint64_t{12345}, ~uint64_t{0}}) {
      EXPECT_LE(d4r::client::upload_backoff(policy, attempt, random), 2000ms);
    }
  }
  EXPECT_EQ(d4r::client::upload_backoff(policy, 10, 2000), 2000ms);
  EXPECT_EQ(d4r::client::upload_backoff(policy, 1, 100), 100ms);
  EXPECT_EQ(d4r::client::upload_backoff(policy, 1, 101), 0ms);
}

} // namespace
