// Two real daemons share builds through a real redis-server (--redis): what one built, the other
// serves from Redis without building; with Redis gone, a daemon with an empty cache builds
// locally within the request's budget. Skipped only when redis-server is not installed.

#include "daemon_process.hpp"
#include "tests/unit/test_cache_redis_support.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;
using cache::redis::testing::RedisServer;
using namespace std::chrono_literals;

constexpr uint32_t k_wait_ms = 120000;
constexpr uint32_t k_local_wait_ms = 30000; // this recipe builds in about a second here

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  return pb::KernelService::NewStub(grpc::CreateCustomChannel(
      "unix:" + daemon.socket_path().string(), grpc::InsecureChannelCredentials(), args));
}

// The Build RPC for a shipped recipe: its object, READY expected.
std::string build_recipe(const DaemonProcess& daemon, uint32_t wait_ms = k_wait_ms)
{
  pb::BuildRequest request;
  request.set_kernel("d4r_example_layer");
  request.mutable_selection()->set_target("gfx1101");
  request.mutable_selection()->set_mode(pb::MODE_FAST);
  request.set_wait_budget_ms(wait_ms);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(wait_ms) + 30s);
  grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
  return reply.object().data();
}

int64_t builds_done(const DaemonProcess& daemon)
{
  pb::StatusReply reply;
  grpc::ClientContext context;
  EXPECT_TRUE(stub_of(daemon)->Status(&context, pb::StatusRequest(), &reply).ok());
  return reply.builds().done();
}

// Keys in Redis (the tier's index entries and objects), or -1 when it cannot be asked.
int64_t redis_keys(const RedisServer& server)
{
  cache::redis::RedisConnection connection(server.unix_options());
  Expected<cache::redis::RedisReply> reply =
      connection.call({"DBSIZE"}, cache::redis::Clock::now() + 500ms);
  return reply ? reply->integer : -1;
}

DaemonOptions options_of(const std::filesystem::path& root, const RedisServer& server)
{
  DaemonOptions options(root);
  options.native_dir = std::filesystem::path(); // everything comes from recipes
  options.recipes_dir = shipped_recipes();
  options.extra_args = {"--redis", "unix:" + server.socket_path(), "--redis-budget-ms", "200",
                        "--log-level", "info"};
  options.log_file = root / "daemon.log";
  std::filesystem::create_directories(root);
  return options;
}

TEST(IntegrationRedisTier, ABuildOnOneDaemonIsServedByAnotherFromRedis)
{
  RedisServer server;
  if (!server.installed()) {
    GTEST_SKIP() << "redis-server is not installed (scripts/install-deps.sh installs it)";
  }
  ASSERT_TRUE(server.start());
  TempDir dir;
  DaemonProcess a(options_of(dir.path() / "host-a", server));
  ASSERT_TRUE(a.start());
  std::string built = build_recipe(a);
  ASSERT_FALSE(built.empty());
  EXPECT_EQ(builds_done(a), 1);
  EXPECT_GT(redis_keys(server), 0) << "the build was not offered to Redis";
  EXPECT_NE(read_file(dir.path() / "host-a" / "daemon.log").find("redis tier unix:"),
            std::string::npos);

  {
    DaemonProcess b(options_of(dir.path() / "host-b", server));
    ASSERT_TRUE(b.start());
    EXPECT_EQ(build_recipe(b), built);
    EXPECT_EQ(builds_done(b), 0) << "B built what Redis had";
  }

  // Redis gone: B, its cache emptied, builds by itself and answers READY within the request's
  // wait budget (a Resolve that waited on Redis past it would come back PENDING or late).
  server.kill();
  std::filesystem::remove_all(dir.path() / "host-b" / "cache");
  DaemonProcess b(options_of(dir.path() / "host-b", server));
  ASSERT_TRUE(b.start());
  auto started = std::chrono::steady_clock::now();
  EXPECT_EQ(build_recipe(b, k_local_wait_ms), built);
  auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(builds_done(b), 1);
  EXPECT_LT(elapsed, std::chrono::milliseconds(k_local_wait_ms));
}

} // namespace
} // namespace d4r::testing
