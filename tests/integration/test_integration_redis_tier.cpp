// Two real daemons share builds through a real redis-server (--redis): what one built, the other
// serves from Redis without building; sixteen requests for one kernel spread over both make one
// build; a host killed while it builds a kernel has it built by the other once its claim
// expires; a host whose worker is busy has a game's build taken by an idle host from the job
// stream; with Redis gone, a daemon with an empty cache builds locally within the request's
// budget, and once Redis is back the hosts share again. Skipped only when redis-server is not
// installed.

#include "daemon_process.hpp"
#include "tests/unit/test_cache_redis_support.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <csignal>
#include <fstream>
#include <set>
#include <future>
#include <thread>
#include <vector>

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
std::string build_recipe(const DaemonProcess& daemon, uint32_t wait_ms = k_wait_ms,
                         const std::string& kernel = "d4r_example_layer")
{
  pb::BuildRequest request;
  request.set_kernel(kernel);
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

pb::BuildStats builds_of(const DaemonProcess& daemon)
{
  pb::StatusReply reply;
  grpc::ClientContext context;
  EXPECT_TRUE(stub_of(daemon)->Status(&context, pb::StatusRequest(), &reply).ok());
  return reply.builds();
}

int64_t builds_done(const DaemonProcess& daemon)
{
  return builds_of(daemon).done();
}

// Builds this host compiled itself (done, less what another machine built for it).
int64_t compiled_here(const DaemonProcess& daemon)
{
  pb::BuildStats builds = builds_of(daemon);
  return builds.done() - builds.elsewhere();
}

// A clang driver that says it is 19.1.7 (so that every host has one toolchain fingerprint)
// and, with `first_run`, runs that shell once before its first compile.
std::filesystem::path clang_driver(const std::filesystem::path& dir, const std::string& name,
                                   const std::string& first_run = "")
{
  std::filesystem::path path = dir / name;
  std::filesystem::path flag = dir / (name + ".first-run");
  std::ofstream out(path);
  out << "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo \"clang version 19.1.7\"; exit 0; fi\n";
  if (!first_run.empty()) {
    out << "if [ ! -e " << flag.string() << " ]; then : > " << flag.string() << "; " << first_run
        << "; fi\n";
  }
  out << "exec /usr/lib/llvm-19/bin/clang++ \"$@\"\n";
  out.close();
  chmod(path.c_str(), 0755);
  return path;
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

// Each test's own redis-server (skipped where none is installed) and folder for its hosts.
class IntegrationRedisTier : public ::testing::Test {
protected:
  void SetUp() override
  {
    if (!server.installed()) {
      GTEST_SKIP() << "redis-server is not installed (scripts/install-deps.sh installs it)";
    }
    ASSERT_TRUE(server.start());
  }

  // A host building with `clang` (clang_driver) on the llvm backend, with `build_args` added;
  // its worker may write the slow driver's mark in the test's folder.
  [[nodiscard]] DaemonOptions builder(const std::string& name, const std::filesystem::path& clang,
                                      std::vector<std::string> build_args) const
  {
    DaemonOptions options = options_of(dir.path() / name, server);
    options.extra_args.insert(options.extra_args.end(), {"--backend", "llvm", "--clang", clang.string()});
    options.extra_args.insert(options.extra_args.end(), build_args.begin(), build_args.end());
    options.extra_env.push_back("D4R_WORKER_TEST_FAULTS=1");
    options.extra_env.push_back("D4R_WORKER_TEST_WRITABLE=" + dir.path().string());
    return options;
  }

  // Asks `host` for d4r_example_layer without waiting (PENDING) and returns once its compile
  // has started: the slow driver's mark exists. False when it did not start.
  [[nodiscard]] bool start_slow_build(const DaemonProcess& host) const
  {
    pb::BuildRequest request;
    request.set_kernel("d4r_example_layer");
    request.mutable_selection()->set_target("gfx1101");
    request.mutable_selection()->set_mode(pb::MODE_FAST);
    request.set_wait_budget_ms(1);
    pb::ResolveReply pending;
    grpc::ClientContext context;
    if (!stub_of(host)->Build(&context, request, &pending).ok() ||
        pending.outcome() != pb::ResolveReply::PENDING) {
      return false;
    }
    const std::filesystem::path slow_mark = dir.path() / "clang-slow.first-run";
    for (int i = 0; i < 1000 && !std::filesystem::exists(slow_mark); ++i) {
      std::this_thread::sleep_for(20ms);
    }
    return std::filesystem::exists(slow_mark);
  }

  RedisServer server;
  TempDir dir;
};

// Sixteen requests at once for one kernel, eight on each host: each host's own single flight
// makes one job of its eight, and the Redis claim on the key makes one build of the two jobs.
TEST_F(IntegrationRedisTier, SixteenRequestsOnTwoHostsMakeOneBuild)
{
  DaemonProcess a(options_of(dir.path() / "host-a", server));
  DaemonProcess b(options_of(dir.path() / "host-b", server));
  ASSERT_TRUE(a.start());
  ASSERT_TRUE(b.start());
  std::vector<std::future<std::string>> answers;
  for (int i = 0; i < 16; ++i) {
    const DaemonProcess& host = i % 2 == 0 ? a : b;
    answers.push_back(std::async(std::launch::async, [&host] { return build_recipe(host); }));
  }
  std::vector<std::string> objects;
  for (std::future<std::string>& answer : answers) {
    objects.push_back(answer.get());
  }
  ASSERT_FALSE(objects.front().empty());
  for (const std::string& object : objects) {
    EXPECT_TRUE(object == objects.front()) << "every request got the one object";
  }
  EXPECT_EQ(compiled_here(a) + compiled_here(b), 1) << "one build for sixteen requests on two hosts";
  EXPECT_EQ(builds_of(a).elsewhere() + builds_of(b).elsewhere(), 1)
      << "the other host's job waited for that build and took its object";
}

// Host A dies (SIGKILL) while its compile of a kernel runs (its driver's first compile sleeps);
// B, asked for the same kernel meanwhile, waits on A's claim, takes it over once it expires (the
// build wall limit, 20 s here, plus 10 s) and builds the kernel itself.
TEST_F(IntegrationRedisTier, AHostKilledDuringABuildHasTheOtherBuildIt)
{
  DaemonProcess a(builder("host-a", clang_driver(dir.path(), "clang-slow", "sleep 120"),
                          {"--build-wall-seconds", "20"}));
  DaemonProcess b(builder("host-b", clang_driver(dir.path(), "clang-quick"), {"--build-wall-seconds", "20"}));
  ASSERT_TRUE(a.start());
  ASSERT_TRUE(b.start());
  ASSERT_EQ(builds_of(a).toolchains().at("gfx1101"), builds_of(b).toolchains().at("gfx1101"))
      << "the hosts must build under one key for this test";
  ASSERT_TRUE(start_slow_build(a)) << "A's compile did not start";

  auto asked = std::chrono::steady_clock::now();
  std::future<std::string> from_b = std::async(std::launch::async, [&b] { return build_recipe(b); });
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(compiled_here(b), 0) << "B waits on A's claim instead of building\nA:\n"
                                  << read_file(dir.path() / "host-a" / "daemon.log") << "\nB:\n"
                                  << read_file(dir.path() / "host-b" / "daemon.log");
  a.send_signal(SIGKILL);
  std::string object = from_b.get();
  EXPECT_FALSE(object.empty());
  EXPECT_LT(std::chrono::steady_clock::now() - asked, 100s);
  EXPECT_EQ(compiled_here(b), 1) << "B built it after A's claim expired";
}

// Host A has one worker, busy with a slow compile (its driver's first compile sleeps 20 s); a
// game's request for another kernel there must wait for it, so A offers that build on the job
// stream. Host B, idle, takes it and builds it, and A answers the request with B's object as
// soon as it is in Redis: well before A's own worker is free, and without compiling it.
TEST_F(IntegrationRedisTier, AnIdleHostBuildsWhatABusyHostOffers)
{
  const std::vector<std::string> one_worker = {"--build-jobs", "1", "--build-wall-seconds", "60"};
  DaemonProcess a(builder("host-a", clang_driver(dir.path(), "clang-slow", "sleep 20"), one_worker));
  DaemonProcess b(builder("host-b", clang_driver(dir.path(), "clang-quick"), one_worker));
  ASSERT_TRUE(a.start());
  ASSERT_TRUE(b.start());
  ASSERT_EQ(builds_of(a).toolchains().at("gfx1101"), builds_of(b).toolchains().at("gfx1101"))
      << "the hosts must build under one key for this test";
  ASSERT_TRUE(start_slow_build(a)) << "A's slow compile did not start";

  auto asked = std::chrono::steady_clock::now();
  std::string object = build_recipe(a, k_wait_ms, "d4r_example_wave64");
  auto answered = std::chrono::steady_clock::now() - asked;
  EXPECT_FALSE(object.empty());
  EXPECT_LT(answered, 14s) << "answered only once A's own worker was free";
  EXPECT_EQ(compiled_here(b), 1) << "B built the offered kernel\nA:\n"
                                  << read_file(dir.path() / "host-a" / "daemon.log") << "\nB:\n"
                                  << read_file(dir.path() / "host-b" / "daemon.log");
  EXPECT_EQ(builds_of(a).elsewhere(), 1) << "A served B's build";
  EXPECT_NE(read_file(dir.path() / "host-b" / "daemon.log").find("shared build of d4r_example_wave64"),
            std::string::npos);
  // A's own worker, once free, does not build it again: its queued job was answered.
  std::this_thread::sleep_for(1s);
  EXPECT_EQ(build_recipe(a, k_wait_ms, "d4r_example_layer").empty(), false);
  EXPECT_EQ(compiled_here(a), 1) << "A compiled only its slow kernel";
}

// The daemon's Redis tier as its Status reports it (a test failure when it has none).
pb::TierHealth redis_tier_of(const DaemonProcess& daemon)
{
  pb::StatusReply reply;
  grpc::ClientContext context;
  EXPECT_TRUE(stub_of(daemon)->Status(&context, pb::StatusRequest(), &reply).ok());
  for (const pb::TierHealth& tier : reply.tiers()) {
    if (tier.name().starts_with("redis:")) {
      return tier;
    }
  }
  ADD_FAILURE() << "no Redis tier in Status";
  return {};
}

// The Redis tier's build hosts alive, as a daemon's Status lists them.
std::vector<std::string> hosts_alive(const DaemonProcess& daemon)
{
  pb::TierHealth tier = redis_tier_of(daemon);
  return {tier.hosts().begin(), tier.hosts().end()};
}

// Each host's heartbeat: a daemon's status lists both hosts (host:pid); one that stops takes its
// heartbeat away, and one killed drops out once its heartbeat expires (6 s).
TEST_F(IntegrationRedisTier, StatusListsTheBuildHostsAlive)
{
  DaemonProcess a(options_of(dir.path() / "host-a", server));
  DaemonProcess b(options_of(dir.path() / "host-b", server));
  DaemonProcess c(options_of(dir.path() / "host-c", server));
  ASSERT_TRUE(a.start());
  ASSERT_TRUE(b.start());
  ASSERT_TRUE(c.start());
  auto pid_of = [](const std::string& host) { return host.substr(host.rfind(':') + 1); };
  std::vector<std::string> hosts = hosts_alive(a);
  ASSERT_EQ(hosts.size(), 3U);
  std::set<std::string> pids;
  for (const std::string& host : hosts) {
    pids.insert(pid_of(host));
  }
  EXPECT_EQ(pids, (std::set<std::string>{std::to_string(a.pid()), std::to_string(b.pid()),
                                         std::to_string(c.pid())}));
  EXPECT_EQ(b.stop(), 0);
  EXPECT_EQ(hosts_alive(a).size(), 2U) << "a host that stops takes its heartbeat away";
  c.send_signal(SIGKILL);
  EXPECT_EQ(hosts_alive(a).size(), 2U) << "a killed host is listed until its heartbeat expires";
  std::this_thread::sleep_for(7s);
  ASSERT_EQ(hosts_alive(a).size(), 1U);
  EXPECT_EQ(pid_of(hosts_alive(a).front()), std::to_string(a.pid()));
}

// Whether the daemon's Redis tier is backed off now (Status).
bool redis_backed_off(const DaemonProcess& daemon)
{
  return redis_tier_of(daemon).backed_off();
}

// Redis dies while two hosts serve: each builds for itself. Redis comes back (empty, as a
// restarted cache server does): once their backoff ends, a new build on one is served by the
// other from Redis again.
TEST_F(IntegrationRedisTier, RedisKilledThenBackTheHostsCatchUp)
{
  DaemonProcess a(options_of(dir.path() / "host-a", server));
  DaemonProcess b(options_of(dir.path() / "host-b", server));
  ASSERT_TRUE(a.start());
  ASSERT_TRUE(b.start());
  server.kill();
  std::string local_a = build_recipe(a, k_local_wait_ms);
  std::string local_b = build_recipe(b, k_local_wait_ms);
  EXPECT_TRUE(!local_a.empty() && local_a == local_b);
  EXPECT_EQ(compiled_here(a), 1);
  EXPECT_EQ(compiled_here(b), 1) << "no Redis: each host builds for itself";

  ASSERT_TRUE(server.start());
  // Past both backoffs: the chain's (1 s after one failure) and each connection's (at most 5 s).
  std::this_thread::sleep_for(6s);
  bool back = false;
  for (auto end = std::chrono::steady_clock::now() + 90s; !back && std::chrono::steady_clock::now() < end;) {
    back = !redis_backed_off(a) && !redis_backed_off(b);
    std::this_thread::sleep_for(200ms);
  }
  ASSERT_TRUE(back) << "the hosts still skip Redis";
  const std::string kernel = "d4r_example_wave64";
  std::string built = build_recipe(a, k_wait_ms, kernel);
  ASSERT_FALSE(built.empty());
  EXPECT_EQ(compiled_here(a), 2);
  EXPECT_GT(redis_keys(server), 0) << "A's new build was offered to the Redis that came back";
  EXPECT_EQ(build_recipe(b, k_wait_ms, kernel), built);
  EXPECT_EQ(compiled_here(b), 1) << "B served A's build from Redis";
}

TEST_F(IntegrationRedisTier, ABuildOnOneDaemonIsServedByAnotherFromRedis)
{
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
