#include "bench/build_rpc.hpp"

#include <chrono>
#include <cstdio>

namespace d4r::bench {

double timed_build(const char* tool, pb::KernelService::Stub& stub, const std::string& kernel,
                   const std::string& target, pb::Mode mode)
{
  pb::BuildRequest request;
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(mode);
  request.set_wait_budget_ms(600000);
  request.set_accept_path(true);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  auto start = std::chrono::steady_clock::now();
  grpc::Status status = stub.Build(&context, request, &reply);
  double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!status.ok() || reply.outcome() != pb::ResolveReply::READY) {
    std::fprintf(stderr, "%s: %s %s: %s\n", tool, kernel.c_str(), target.c_str(),
                 status.ok() ? reply.reason().c_str() : status.error_message().c_str());
    return -1;
  }
  return ms;
}

void purge(pb::KernelService::Stub& stub)
{
  pb::PurgeReply reply;
  grpc::ClientContext context;
  static_cast<void>(stub.Purge(&context, pb::PurgeRequest(), &reply));
}

} // namespace d4r::bench
