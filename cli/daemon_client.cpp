#include "cli/daemon_client.hpp"

#include <grpcpp/grpcpp.h>

#include <chrono>

namespace d4r::cli {

namespace {

// Code objects are usually hundreds of KiB; gRPC's default 4 MiB receive limit would cut off a
// large one, and the peer is our own daemon.
constexpr int k_max_receive_bytes = 512 * 1024 * 1024;

std::shared_ptr<grpc::Channel> make_channel(const std::string& socket_path)
{
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(k_max_receive_bytes);
  return grpc::CreateCustomChannel("unix:" + socket_path, grpc::InsecureChannelCredentials(), args);
}

} // namespace

Error rpc_error(const grpc::Status& status, std::string_view socket_path, std::string_view rpc,
                int64_t deadline_ms)
{
  std::string where = "d4r-kerneld at " + std::string(socket_path);
  switch (status.error_code()) {
  case grpc::StatusCode::UNAVAILABLE:
    return Error{ErrorCode::unavailable,
                 "cannot reach " + where + ": " + status.error_message() +
                     " (is it running? systemctl --user start d4r-kerneld.socket)"};
  case grpc::StatusCode::DEADLINE_EXCEEDED:
    return Error{ErrorCode::timeout, where + " did not answer " + std::string(rpc) + " within " +
                                         std::to_string(deadline_ms) + " ms (--timeout-ms)"};
  case grpc::StatusCode::INVALID_ARGUMENT:
  case grpc::StatusCode::FAILED_PRECONDITION:
  case grpc::StatusCode::OUT_OF_RANGE:
    return Error{ErrorCode::invalid_argument,
                 where + " refused " + std::string(rpc) + ": " + status.error_message()};
  case grpc::StatusCode::RESOURCE_EXHAUSTED:
    // The daemon's bounds (a full queue, the upload budget) say which in their message; gRPC's
    // resource quota says only RST_STREAM code 11.
    return Error{ErrorCode::resource_exhausted,
                 where + " refused " + std::string(rpc) + " for want of room: " +
                     status.error_message() +
                     (status.error_message().find("RST_STREAM with error code 11") !=
                              std::string::npos
                          ? " (its transport memory was full: --transport-memory; try again)"
                          : "")};
  case grpc::StatusCode::PERMISSION_DENIED:
  case grpc::StatusCode::UNAUTHENTICATED:
    return Error{ErrorCode::permission_denied,
                 where + " denied " + std::string(rpc) + ": " + status.error_message()};
  case grpc::StatusCode::OK:
  case grpc::StatusCode::CANCELLED:
  case grpc::StatusCode::UNKNOWN:
  case grpc::StatusCode::NOT_FOUND:
  case grpc::StatusCode::ALREADY_EXISTS:
  case grpc::StatusCode::ABORTED:
  case grpc::StatusCode::UNIMPLEMENTED:
  case grpc::StatusCode::INTERNAL:
  case grpc::StatusCode::DATA_LOSS:
  case grpc::StatusCode::DO_NOT_USE:
    break;
  }
  return Error{ErrorCode::internal, where + ": " + std::string(rpc) + " failed (gRPC code " +
                                        std::to_string(static_cast<int>(status.error_code())) +
                                        "): " + status.error_message()};
}

DaemonClient::DaemonClient(std::string socket_path, int64_t timeout_ms)
    : m_socket_path(std::move(socket_path)), m_timeout_ms(timeout_ms),
      m_stub(pb::KernelService::NewStub(make_channel(m_socket_path)))
{
}

void DaemonClient::set_deadline(grpc::ClientContext& context, int64_t extra_ms) const
{
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(m_timeout_ms + extra_ms));
}

Error DaemonClient::to_error(const grpc::Status& status, std::string_view rpc,
                             int64_t extra_ms) const
{
  return rpc_error(status, m_socket_path, rpc, m_timeout_ms + extra_ms);
}

Expected<pb::StatusReply> DaemonClient::status()
{
  grpc::ClientContext context;
  set_deadline(context, 0);
  pb::StatusReply reply;
  grpc::Status status = m_stub->Status(&context, pb::StatusRequest(), &reply);
  if (!status.ok()) {
    return std::unexpected(to_error(status, "Status", 0));
  }
  return reply;
}

Expected<pb::ResolveReply> DaemonClient::resolve(const pb::ResolveRequest& request)
{
  grpc::ClientContext context;
  int64_t extra_ms = request.wait_budget_ms();
  set_deadline(context, extra_ms);
  pb::ResolveReply reply;
  grpc::Status status = m_stub->Resolve(&context, request, &reply);
  if (!status.ok()) {
    return std::unexpected(to_error(status, "Resolve", extra_ms));
  }
  return reply;
}

Expected<pb::ResolveReply> DaemonClient::build(const pb::BuildRequest& request)
{
  grpc::ClientContext context;
  int64_t extra_ms = request.wait_budget_ms();
  set_deadline(context, extra_ms);
  pb::ResolveReply reply;
  grpc::Status status = m_stub->Build(&context, request, &reply);
  if (!status.ok()) {
    return std::unexpected(to_error(status, "Build", extra_ms));
  }
  return reply;
}

Expected<pb::ImportReply> DaemonClient::import(const pb::ImportRequest& request)
{
  grpc::ClientContext context;
  set_deadline(context, 0);
  pb::ImportReply reply;
  grpc::Status status = m_stub->Import(&context, request, &reply);
  if (!status.ok()) {
    return std::unexpected(to_error(status, "Import", 0));
  }
  return reply;
}

Expected<pb::ListReply> DaemonClient::list(const pb::ListRequest& request)
{
  grpc::ClientContext context;
  set_deadline(context, 0);
  pb::ListReply reply;
  grpc::Status status = m_stub->List(&context, request, &reply);
  if (!status.ok()) {
    return std::unexpected(to_error(status, "List", 0));
  }
  return reply;
}

Expected<pb::PurgeReply> DaemonClient::purge(const pb::PurgeRequest& request)
{
  grpc::ClientContext context;
  set_deadline(context, 0);
  pb::PurgeReply reply;
  grpc::Status status = m_stub->Purge(&context, request, &reply);
  if (!status.ok()) {
    return std::unexpected(to_error(status, "Purge", 0));
  }
  return reply;
}

} // namespace d4r::cli
