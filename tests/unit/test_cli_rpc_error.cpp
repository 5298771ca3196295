#include "cli/daemon_client.hpp"

#include <gtest/gtest.h>

#include <grpcpp/support/status.h>

namespace {

using d4r::ErrorCode;

TEST(CliRpcError, ADaemonRefusalKeepsItsReason)
{
  d4r::Error error = d4r::cli::rpc_error(
      {grpc::StatusCode::RESOURCE_EXHAUSTED,
       "upload memory: 3 uploads hold 900 MiB, this one would pass --upload-memory 1 GiB"},
      "/run/k.sock", "PutModule", 5000);
  EXPECT_EQ(error.code, ErrorCode::resource_exhausted);
  EXPECT_NE(error.message.find("refused PutModule for want of room: upload memory: 3 uploads"),
            std::string::npos)
      << error.message;
}

TEST(CliRpcError, TheTransportsRefusalNamesTheSetting)
{
  d4r::Error error = d4r::cli::rpc_error(
      {grpc::StatusCode::RESOURCE_EXHAUSTED, "Received RST_STREAM with error code 11"},
      "/run/k.sock", "PutModule", 5000);
  EXPECT_EQ(error.code, ErrorCode::resource_exhausted);
  EXPECT_NE(error.message.find("--transport-memory"), std::string::npos) << error.message;
}

} // namespace
