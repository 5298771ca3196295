// d4r-test-counters SOCKET: prints the daemon's Status counters as name=value lines, one per line.
// The integration tests that use the C client read counters through it, so that they need not
// link the generated protocol a second time (libd4r_kernel_client.so has its own copy).

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>

#include <cstdio>

int main(int argc, char** argv)
{
  if (argc != 2) {
    std::fprintf(stderr, "usage: d4r-test-counters SOCKET\n");
    return 2;
  }
  namespace pb = ::d4r::kernel::v1;
  auto stub = pb::KernelService::NewStub(
      grpc::CreateChannel(std::string("unix:") + argv[1], grpc::InsecureChannelCredentials()));
  pb::StatusReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  grpc::Status status = stub->Status(&context, pb::StatusRequest(), &reply);
  if (!status.ok()) {
    std::fprintf(stderr, "d4r-test-counters: %s\n", status.error_message().c_str());
    return 1;
  }
  for (const auto& [name, value] : reply.counters()) {
    std::printf("%s=%lld\n", name.c_str(), static_cast<long long>(value));
  }
  return 0;
}
