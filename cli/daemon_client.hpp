#pragma once
// The CLI's side of the gRPC connection to d4r-kerneld: one channel on the Unix socket, one
// deadline per call, and every failure turned into one message that names the socket and says what
// to do.

#include "util/error.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace d4r::cli {

namespace pb = d4r::kernel::v1;

class DaemonClient {
public:
  DaemonClient(std::string socket_path, int64_t timeout_ms);

  [[nodiscard]] Expected<pb::StatusReply> status();
  // The deadline is the timeout plus the request's wait budget, so a build the daemon waits for
  // is not cut short by the CLI.
  [[nodiscard]] Expected<pb::ResolveReply> resolve(const pb::ResolveRequest& request);
  [[nodiscard]] Expected<pb::ResolveReply> build(const pb::BuildRequest& request);
  [[nodiscard]] Expected<pb::ImportReply> import(const pb::ImportRequest& request);
  [[nodiscard]] Expected<pb::ListReply> list(const pb::ListRequest& request);
  [[nodiscard]] Expected<pb::PurgeReply> purge(const pb::PurgeRequest& request);

private:
  void set_deadline(grpc::ClientContext& context, int64_t extra_ms) const;
  [[nodiscard]] Error to_error(const grpc::Status& status, std::string_view rpc,
                               int64_t extra_ms) const;

  std::string m_socket_path;
  int64_t m_timeout_ms;
  std::unique_ptr<pb::KernelService::Stub> m_stub;
};

// The message for an RPC that failed: "cannot reach d4r-kerneld at ..." when nothing answers.
[[nodiscard]] Error rpc_error(const grpc::Status& status, std::string_view socket_path,
                              std::string_view rpc, int64_t deadline_ms);

} // namespace d4r::cli
