// Many uploads at once past --transport-memory, each through the client's retry
// (client/upload_retry.hpp): gRPC refuses some while they arrive; with the bounded, jittered
// retries every upload is stored in the end or fails with an error naming its attempts, none is
// dropped without a word. Figures printed: stored, failed, attempts, the daemon's refusals.

#include "client/upload_retry.hpp"
#include "daemon_process.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <vector>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;
using namespace std::chrono_literals;

pb::PutModuleRequest module_of(int index, size_t bytes)
{
  std::string ptx = "// d4r upload retry module " + std::to_string(index) + "\n" +
                    std::string(bytes, 'x') + "\n";
  pb::PutModuleRequest request;
  request.mutable_module()->set_fnv1a64(ptx_module_hash(ptx));
  Sha256 digest = sha256(ptx);
  request.mutable_module()->set_sha256(digest.data(), digest.size());
  request.set_ptx(std::move(ptx));
  return request;
}

TEST(UploadRetry, ParallelUploadsPastTheTransportMemoryAllEndStoredOrWithAClearError)
{
  constexpr int k_uploads = 16;
  TempDir dir;
  DaemonOptions options(dir.path());
  options.extra_args = {"--max-ptx-bytes", "9M", "--upload-memory", "1G", "--transport-memory",
                        "24M"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  std::mutex mutex;
  std::vector<client::UploadOutcome> outcomes;
  std::vector<std::thread> threads;
  for (int i = 0; i < k_uploads; ++i) {
    threads.emplace_back([&, i] {
      pb::PutModuleRequest request = module_of(i, size_t{8} << 20);
      grpc::ChannelArguments args;
      args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1); // a connection each, as games have
      auto stub = pb::KernelService::NewStub(grpc::CreateCustomChannel(
          "unix:" + daemon.socket_path().string(), grpc::InsecureChannelCredentials(), args));
      client::UploadOutcome outcome = client::upload_with_retry(
          client::UploadRetryPolicy{},
          [&] {
            grpc::ClientContext context;
            context.set_deadline(std::chrono::system_clock::now() + 30s);
            pb::PutModuleReply reply;
            return stub->PutModule(&context, request, &reply);
          },
          [](std::chrono::milliseconds delay) {
            std::this_thread::sleep_for(delay);
            return true;
          });
      std::lock_guard lock(mutex);
      outcomes.push_back(outcome);
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  int stored = 0;
  int retried = 0;
  int attempts = 0;
  for (const client::UploadOutcome& outcome : outcomes) {
    stored += outcome.status.ok() ? 1 : 0;
    retried += outcome.attempts > 1 ? 1 : 0;
    attempts += outcome.attempts;
    if (!outcome.status.ok()) {
      std::string text = client::describe_upload_failure(outcome);
      std::printf("  failed: %s\n", text.c_str());
      EXPECT_NE(text.find("after 8 attempts"), std::string::npos) << text;
    }
  }
  int64_t refused = daemon.counter("rejected.transport_memory");
  std::printf("%d x 8 MiB uploads, --transport-memory 24M, with retries: stored %d, failed %d, "
              "%d retried, %d attempts in all; rejected.transport_memory %lld\n",
              k_uploads, stored, k_uploads - stored, retried, attempts,
              static_cast<long long>(refused));
  ASSERT_EQ(outcomes.size(), static_cast<size_t>(k_uploads)) << "every upload ended";
  EXPECT_GT(refused, 0) << "the transport refused some: the retries were needed";
  EXPECT_GT(retried, 0);
  EXPECT_EQ(stored, k_uploads) << "with the retries every upload got through";
}

} // namespace
} // namespace d4r::testing
