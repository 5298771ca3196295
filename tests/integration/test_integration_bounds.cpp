// What waits in the daemon's memory is bounded, seen from outside over its real socket: requests
// past --max-queued-requests are REJECTED at once ("request queue full"), upload bodies past
// --upload-memory are refused ("upload memory"), each counted; a wait for a build ends at its
// caller's deadline or cancellation, not at the end of its budget. The one request thread is held by
// a Build whose worker sleeps until it is killed, so that what comes next has to queue.

#include "daemon_process.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include <atomic>
#include <fstream>
#include <thread>
#include <vector>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;
using namespace std::chrono_literals;

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  return pb::KernelService::NewStub(grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                                        grpc::InsecureChannelCredentials()));
}

// A worker that never finishes a build: it sleeps until the daemon kills it. Anything else
// (the daemon's toolchain probe) goes to the real worker.
std::filesystem::path sleeping_worker(const std::filesystem::path& dir)
{
  std::filesystem::path script = dir / "sleeping-worker.sh";
  std::filesystem::path real = std::filesystem::path(D4R_BINARY_DIR) / "compiler" / "d4r-kernel-worker";
  std::ofstream(script) << "#!/bin/sh\ncase \"$1\" in --*) exec '" << real.string()
                        << "' \"$@\";; esac\nexec sleep 60\n";
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  return script;
}

DaemonOptions held_daemon(const TempDir& dir, std::vector<std::string> bounds)
{
  DaemonOptions options(dir.path());
  options.recipes_dir = shipped_recipes();
  options.extra_args = {"--workers", "1", "--build-jobs", "1", "--worker",
                        sleeping_worker(dir.path()).string()};
  options.extra_args.insert(options.extra_args.end(), bounds.begin(), bounds.end());
  return options;
}

// Holds the daemon's one request thread for `hold`: a Build that waits for a build that never ends.
std::thread hold_request_thread(const DaemonProcess& daemon, std::chrono::milliseconds hold)
{
  std::thread holder([&daemon, hold] {
    pb::BuildRequest request;
    request.set_kernel("d4r_example_layer");
    request.mutable_selection()->set_target("gfx1101");
    request.set_wait_budget_ms(static_cast<uint32_t>(hold.count()));
    pb::ResolveReply reply;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + hold + 20s);
    grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
    EXPECT_TRUE(status.ok()) << status.error_message();
    EXPECT_EQ(reply.outcome(), pb::ResolveReply::PENDING) << reply.reason();
  });
  std::this_thread::sleep_for(500ms); // the Build is on the thread, waiting
  return holder;
}

pb::ResolveReply resolve_layer(const DaemonProcess& daemon)
{
  pb::ResolveRequest request;
  request.set_module_hash(k_sr_module_hash);
  request.set_kernel("d4r_test_layer");
  request.mutable_selection()->set_target("gfx1101");
  request.set_accept_path(true);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 30s);
  grpc::Status status = stub_of(daemon)->Resolve(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply;
}

TEST(Bounds, RequestsPastTheQueueBoundAreRejectedAtOnce)
{
  TempDir dir;
  DaemonProcess daemon(held_daemon(dir, {"--max-queued-requests", "4"}));
  ASSERT_TRUE(daemon.start());
  std::thread holder = hold_request_thread(daemon, 4000ms);
  constexpr int k_requests = 12;
  std::atomic<int> rejected{0};
  std::atomic<int> ready{0};
  std::atomic<int64_t> slowest_rejection_ms{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < k_requests; ++i) {
    clients.emplace_back([&] {
      auto start = std::chrono::steady_clock::now();
      pb::ResolveReply reply = resolve_layer(daemon);
      int64_t ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - start)
                       .count();
      if (reply.outcome() == pb::ResolveReply::REJECTED) {
        EXPECT_NE(reply.reason().find("request queue full"), std::string::npos) << reply.reason();
        ++rejected;
        int64_t seen = slowest_rejection_ms.load();
        while (ms > seen && !slowest_rejection_ms.compare_exchange_weak(seen, ms)) {
        }
      } else {
        EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
        ++ready;
      }
    });
  }
  for (std::thread& client : clients) {
    client.join();
  }
  holder.join();
  EXPECT_EQ(ready.load(), 4) << "the queue holds 4 while the one thread is busy";
  EXPECT_EQ(rejected.load(), k_requests - 4);
  EXPECT_LT(slowest_rejection_ms.load(), 2000) << "refused at once, not after the hold";
  EXPECT_EQ(daemon.counter("rejected.request_queue_full"), k_requests - 4);
  EXPECT_EQ(resolve_layer(daemon).outcome(), pb::ResolveReply::READY) << "serving after it";
}

pb::ResolveReply build(const DaemonProcess& daemon, const std::string& target)
{
  pb::BuildRequest request;
  request.set_kernel("d4r_example_layer");
  request.mutable_selection()->set_target(target);
  request.set_wait_budget_ms(1);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 30s);
  grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply;
}

TEST(Bounds, BuildsPastTheBuildQueueBoundAreRejected)
{
  TempDir dir;
  DaemonOptions options = held_daemon(dir, {"--max-queued-builds", "1"});
  options.extra_args[1] = "4"; // request threads: the Builds do not wait long
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  EXPECT_EQ(build(daemon, "gfx1100").outcome(), pb::ResolveReply::PENDING) << "runs (forever)";
  std::this_thread::sleep_for(500ms); // the one build worker has it
  EXPECT_EQ(build(daemon, "gfx1101").outcome(), pb::ResolveReply::PENDING) << "queued";
  pb::ResolveReply full = build(daemon, "gfx1102");
  EXPECT_EQ(full.outcome(), pb::ResolveReply::REJECTED);
  EXPECT_NE(full.reason().find("build queue full"), std::string::npos) << full.reason();
  EXPECT_EQ(build(daemon, "gfx1101").outcome(), pb::ResolveReply::PENDING) << "joined, not refused";
  EXPECT_EQ(daemon.counter("rejected.build_queue_full"), 1);
}

pb::PutModuleRequest module_of_size(size_t bytes, char fill)
{
  std::string ptx = "// d4r bounds test module\n" + std::string(bytes, fill) + "\n";
  pb::PutModuleRequest request;
  request.mutable_module()->set_fnv1a64(ptx_module_hash(ptx));
  Sha256 digest = sha256(ptx);
  request.mutable_module()->set_sha256(digest.data(), digest.size());
  request.set_ptx(ptx);
  return request;
}

grpc::Status put(const DaemonProcess& daemon, const pb::PutModuleRequest& request)
{
  pb::PutModuleReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 30s);
  return stub_of(daemon)->PutModule(&context, request, &reply);
}

TEST(Bounds, UploadsPastTheMemoryBudgetAreRefused)
{
  TempDir dir;
  DaemonProcess daemon(held_daemon(dir, {"--upload-memory", "1M"}));
  ASSERT_TRUE(daemon.start());
  std::thread holder = hold_request_thread(daemon, 3000ms);
  constexpr int k_uploads = 4;
  std::atomic<int> stored{0};
  std::atomic<int> refused{0};
  std::vector<std::thread> clients;
  for (int i = 0; i < k_uploads; ++i) {
    clients.emplace_back([&, i] {
      grpc::Status status = put(daemon, module_of_size(600 << 10, static_cast<char>('a' + i)));
      if (status.ok()) {
        ++stored;
        return;
      }
      EXPECT_EQ(status.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED) << status.error_message();
      EXPECT_NE(status.error_message().find("upload memory"), std::string::npos)
          << status.error_message();
      ++refused;
    });
    std::this_thread::sleep_for(50ms); // each arrives while the ones before are held
  }
  for (std::thread& client : clients) {
    client.join();
  }
  holder.join();
  EXPECT_EQ(stored.load(), 1) << "600 KiB held; a second would pass 1 MiB";
  EXPECT_EQ(refused.load(), k_uploads - 1);
  EXPECT_EQ(daemon.counter("rejected.upload_memory"), k_uploads - 1);
  grpc::Status after = put(daemon, module_of_size(600 << 10, 'z'));
  EXPECT_TRUE(after.ok()) << "the budget is given back once stored: " << after.error_message();
  pb::PutModuleRequest huge = module_of_size(3 << 20, 'h');
  grpc::Status alone = put(daemon, huge);
  EXPECT_TRUE(alone.ok()) << "one upload over the budget passes when none is held: "
                          << alone.error_message();
}

// A Build that waits (up to its budget of 60 s) for a build that never ends, given up by its caller
// after 700 ms: by its deadline, or by cancelling. The next request needs the one thread.
void given_up_build_frees_the_thread(bool by_deadline)
{
  TempDir dir;
  DaemonProcess daemon(held_daemon(dir, {}));
  ASSERT_TRUE(daemon.start());
  grpc::ClientContext context;
  if (by_deadline) {
    context.set_deadline(std::chrono::system_clock::now() + 700ms);
  }
  std::thread caller([&] {
    pb::BuildRequest request;
    request.set_kernel("d4r_example_layer");
    request.mutable_selection()->set_target("gfx1101");
    request.set_wait_budget_ms(60000);
    pb::ResolveReply reply;
    grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
    if (by_deadline && status.ok()) {
      // The daemon ends its wait at the caller's deadline and may get its PENDING out just before
      // the client's own timer fires: a race either side may win, and both free the thread.
      EXPECT_EQ(reply.outcome(), pb::ResolveReply::PENDING) << reply.reason();
      return;
    }
    EXPECT_EQ(status.error_code(),
              by_deadline ? grpc::StatusCode::DEADLINE_EXCEEDED : grpc::StatusCode::CANCELLED);
  });
  if (!by_deadline) {
    std::this_thread::sleep_for(700ms);
    context.TryCancel();
  }
  caller.join();
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(resolve_layer(daemon).outcome(), pb::ResolveReply::READY);
  EXPECT_LT(std::chrono::steady_clock::now() - start, 5s)
      << "the thread waited on for the Build's budget after its caller was gone";
}

TEST(Bounds, AWaitEndsAtItsCallersDeadline)
{
  given_up_build_frees_the_thread(true);
}

TEST(Bounds, AWaitEndsWhenItsCallerCancels)
{
  given_up_build_frees_the_thread(false);
}

} // namespace
} // namespace d4r::testing
