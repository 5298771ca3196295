// A daemon with an upstream (--upstream): a second real daemon serves it over loopback TLS with a
// CA this test makes, a bearer token and its signing key. What the server built, the other
// daemon takes from it byte for byte, signed, and builds nothing; what neither has, the server
// builds when asked (the game's module sent to it once); a server key other than the one
// pinned, a token the server does not know, or a server that is not there each cost a local build
// within the request's budget and show in the tier's health, never a wrong object.

#include "daemon_process.hpp"
#include "tls_loopback.hpp"

#include "cache/cache.hpp"
#include "d4r/kernel/v1/kernel.grpc.pb.h"
#include "tests/support/tool_run.hpp"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"
#include "util/tokens.hpp"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <fstream>
#include <thread>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;
using namespace std::chrono_literals;

constexpr std::string_view k_token = "d4r_token-of-the-handheld-for-this-test-only-00";
constexpr uint32_t k_wait_ms = 120000;

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  return pb::KernelService::NewStub(grpc::CreateCustomChannel(
      "unix:" + daemon.socket_path().string(), grpc::InsecureChannelCredentials(), args));
}

// A shipped recipe's kernel through the Build RPC: its object's bytes (READY expected).
std::string build_recipe(const DaemonProcess& daemon, pb::Mode mode = pb::MODE_FAST,
                         const std::string& kernel = "d4r_example_layer")
{
  pb::BuildRequest request;
  request.set_kernel(kernel);
  request.mutable_selection()->set_target("gfx1101");
  request.mutable_selection()->set_mode(mode);
  request.set_wait_budget_ms(k_wait_ms);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(k_wait_ms) + 30s);
  grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
  return reply.object().data();
}

pb::StatusReply status_of(const DaemonProcess& daemon)
{
  pb::StatusReply reply;
  grpc::ClientContext context;
  EXPECT_TRUE(stub_of(daemon)->Status(&context, pb::StatusRequest(), &reply).ok());
  return reply;
}

// The health of the daemon's upstream tier, as Status reports it.
pb::TierHealth upstream_health(const DaemonProcess& daemon)
{
  pb::StatusReply status = status_of(daemon);
  for (const pb::TierHealth& tier : status.tiers()) {
    if (tier.name().starts_with("upstream:")) {
      return tier;
    }
  }
  ADD_FAILURE() << "no upstream tier in Status";
  return {};
}

// The public key of a signing key file, as a user would pin it (the key is made when absent).
std::string public_key_of(const std::filesystem::path& key_file)
{
  std::string cli = (std::filesystem::path(D4R_BINARY_DIR) / "cli" / "d4r-kernel").string();
  ToolRun run = run_tool({cli, "key", "show", "--key-file", key_file.string()});
  EXPECT_EQ(run.exit_code, 0) << run.output;
  size_t at = run.output.find("ed25519:");
  return at == std::string::npos ? "" : run.output.substr(at, run.output.find('\n', at) - at);
}

class Upstream : public ::testing::Test {
protected:
  void SetUp() override
  {
    if (!openssl_installed()) {
      GTEST_SKIP() << "the openssl tool makes this test's CA; it is not installed";
    }
    ASSERT_TRUE(make_certificates(m_dir.path())) << "openssl could not make the test CA";
    TokenFile tokens;
    tokens.clients.push_back({"handheld", token_hash(k_token), 1764680000, 0});
    ASSERT_TRUE(write_token_file(m_dir.path() / "tokens", tokens));
    std::ofstream(m_dir.path() / "handheld.token") << k_token << "\n";
    std::ofstream(m_dir.path() / "unknown.token") << "d4r_a-token-the-server-never-gave-out-000\n";
    m_server_key = public_key_of(m_dir.path() / "server-signing.key");
    ASSERT_TRUE(m_server_key.starts_with("ed25519:")) << m_server_key;
  }

  void start_server(std::optional<std::filesystem::path> recipes = std::nullopt)
  {
    m_port = free_port();
    ASSERT_GT(m_port, 0);
    DaemonOptions options = host(m_dir.path() / "desktop", recipes);
    options.extra_args = {"--listen", "127.0.0.1:" + std::to_string(m_port),
                          "--tls-cert", (m_dir.path() / "server.crt").string(),
                          "--tls-key", (m_dir.path() / "server.key").string(),
                          "--token-file", (m_dir.path() / "tokens").string(),
                          "--signing-key", (m_dir.path() / "server-signing.key").string(),
                          "--log-level", "info"};
    m_server = std::make_unique<DaemonProcess>(std::move(options));
    ASSERT_TRUE(m_server->start());
    ASSERT_TRUE(wait_for_port(m_port)) << "nothing listens on 127.0.0.1:" << m_port;
  }

  // The handheld's daemon: its own cache, the same recipes, asking `port` first.
  DaemonOptions handheld(const std::string& name, int port, const std::string& pinned,
                         const std::string& token_file = "handheld.token",
                         const std::string& sample = "0",
                         std::optional<std::filesystem::path> recipes = std::nullopt) const
  {
    DaemonOptions options = host(m_dir.path() / name, recipes);
    options.extra_args = {"--upstream", "127.0.0.1:" + std::to_string(port),
                          "--upstream-ca", (m_dir.path() / "ca.crt").string(),
                          "--upstream-token-file", (m_dir.path() / token_file).string(),
                          "--upstream-key", pinned,
                          "--upstream-budget-ms", "2000",
                          "--verify-remote-sample", sample,
                          "--log-level", "info"};
    return options;
  }

  static DaemonOptions host(const std::filesystem::path& root,
                            std::optional<std::filesystem::path> recipes = std::nullopt)
  {
    std::filesystem::create_directories(root);
    DaemonOptions options(root);
    options.native_dir = std::filesystem::path(); // everything comes from recipes
    options.recipes_dir = recipes ? *recipes : shipped_recipes();
    options.log_file = root / "daemon.log";
    return options;
  }

  TempDir m_dir;
  int m_port = -1;
  std::string m_server_key;
  std::unique_ptr<DaemonProcess> m_server;
};

TEST_F(Upstream, WhatTheServerBuiltIsFetchedSignedAndNotBuiltAgain)
{
  start_server();
  std::string built = build_recipe(*m_server);
  ASSERT_FALSE(built.empty());

  DaemonProcess deck(handheld("deck", m_port, m_server_key));
  ASSERT_TRUE(deck.start());
  EXPECT_EQ(build_recipe(deck), built) << "the server's object, byte for byte";
  EXPECT_EQ(status_of(deck).builds().done(), 0) << "the handheld built what the server had";
  pb::TierHealth health = upstream_health(deck);
  EXPECT_EQ(health.name(), "upstream:127.0.0.1:" + std::to_string(m_port));
  EXPECT_EQ(health.hits(), 1);
  EXPECT_EQ(health.failures(), 0) << health.last_error();
  EXPECT_EQ(m_server->counter("upstream.served"), 1);

  // Kept locally: asked again, the handheld answers from its own store.
  EXPECT_EQ(build_recipe(deck), built);
  EXPECT_EQ(upstream_health(deck).hits(), 1) << "not fetched a second time";
  EXPECT_EQ(m_server->counter("upstream.served"), 1);
  pb::StatusReply server = status_of(*m_server);
  ASSERT_EQ(server.remote().clients_size(), 1);
  EXPECT_EQ(server.remote().clients(0).name(), "handheld");
}

// The object of this machine's store for `kernel`, as a cache entry (its source says who built it).
std::optional<cache::Entry> stored_entry(const std::filesystem::path& root, Mode mode,
                                         const std::string& kernel)
{
  Expected<std::unique_ptr<cache::Cache>> store = cache::Cache::open(cache::CacheOptions{root / "cache"});
  if (!store) {
    ADD_FAILURE() << store.error().message;
    return std::nullopt;
  }
  Expected<std::vector<cache::Entry>> entries = (*store)->list(mode);
  if (entries) {
    for (const cache::Entry& entry : *entries) {
      if (entry.key.kernel == kernel) {
        return entry;
      }
    }
  }
  return std::nullopt;
}

// Neither store has the kernel: the handheld asks the server to build it (a native-source
// recipe: the Build call), fetches it signed, and compiles nothing itself.
TEST_F(Upstream, WhatNeitherHasTheServerBuildsWhenAsked)
{
  start_server();
  DaemonProcess deck(handheld("deck", m_port, m_server_key));
  ASSERT_TRUE(deck.start());
  std::string served = build_recipe(deck);
  ASSERT_FALSE(served.empty());
  EXPECT_EQ(status_of(*m_server).builds().done(), 1) << "built on the server";
  pb::TierHealth health = upstream_health(deck);
  EXPECT_EQ(health.builds(), 1);
  EXPECT_EQ(health.hits(), 1) << "then fetched from it, signed";
  EXPECT_EQ(health.failures(), 0) << health.last_error();
  EXPECT_EQ(m_server->counter("upstream.served"), 1);
  EXPECT_EQ(build_recipe(*m_server), served) << "the server's own object, byte for byte";
  ASSERT_EQ(deck.stop(), 0);
  std::optional<cache::Entry> kept = stored_entry(m_dir.path() / "deck", Mode::fast, "d4r_example_layer");
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->source, "upstream:127.0.0.1:" + std::to_string(m_port)) << "not compiled here";
}

// A ptx recipe: the game's module is on the handheld only. The server is asked whether it has
// it (by SHA-256), sent it once, builds the first kernel from it and the second without another
// upload.
TEST_F(Upstream, APtxRecipesModuleIsSentToTheServerOnce)
{
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/isa/alu_int.sm_90.ptx");
  uint64_t hash = ptx_module_hash(ptx);
  std::filesystem::path recipes = m_dir.path() / "ptx-recipes";
  std::filesystem::create_directories(recipes);
  std::ofstream(recipes / "alu.recipe") << "recipe = ptx_alu\nversion = 1\nkernels = int_arith32 int_arith64\n"
                                        << "modules = " << hash_to_hex(hash) << "\nlanguage = ptx\n";
  start_server(recipes);
  DaemonProcess deck(handheld("deck", m_port, m_server_key, "handheld.token", "0", recipes));
  ASSERT_TRUE(deck.start());
  {
    pb::PutModuleRequest request;
    Sha256 digest = sha256(std::string_view(ptx));
    request.mutable_module()->set_fnv1a64(hash);
    request.mutable_module()->set_sha256(std::string(digest.begin(), digest.end()));
    request.set_ptx(ptx);
    pb::PutModuleReply reply;
    grpc::ClientContext context;
    ASSERT_TRUE(stub_of(deck)->PutModule(&context, request, &reply).ok());
  }
  auto resolve = [&](const std::string& kernel) {
    pb::ResolveRequest request;
    request.set_module_hash(hash);
    request.set_kernel(kernel);
    request.mutable_selection()->set_target("gfx1201");
    request.mutable_selection()->set_mode(pb::MODE_FAST);
    request.set_wait_budget_ms(k_wait_ms);
    pb::ResolveReply reply;
    grpc::ClientContext context;
    EXPECT_TRUE(stub_of(deck)->Resolve(&context, request, &reply).ok());
    EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << kernel << ": " << reply.reason();
    return reply;
  };
  resolve("int_arith32");
  EXPECT_EQ(m_server->counter("put_module"), 1) << "the server lacked the module";
  EXPECT_EQ(status_of(*m_server).builds().done(), 1);
  resolve("int_arith64");
  EXPECT_EQ(m_server->counter("put_module"), 1) << "it has it now: not sent again";
  EXPECT_EQ(status_of(*m_server).builds().done(), 2);
  pb::TierHealth health = upstream_health(deck);
  EXPECT_EQ(health.builds(), 2);
  EXPECT_EQ(health.hits(), 2);
  EXPECT_EQ(health.failures(), 0) << health.last_error();
}

TEST_F(Upstream, AnotherSignerIsRefusedAndTheKernelBuiltHere)
{
  start_server();
  std::string built = build_recipe(*m_server);
  std::string other_key = public_key_of(m_dir.path() / "someone-else.key");
  ASSERT_NE(other_key, m_server_key);

  DaemonProcess deck(handheld("deck", m_port, other_key));
  ASSERT_TRUE(deck.start());
  // Builds are deterministic: the local build is the same object, now built and trusted here.
  EXPECT_EQ(build_recipe(deck), built);
  EXPECT_EQ(status_of(deck).builds().done(), 1);
  pb::TierHealth health = upstream_health(deck);
  EXPECT_EQ(health.hits(), 0);
  EXPECT_EQ(health.failures(), 1);
  EXPECT_NE(health.last_error().find("signed by " + m_server_key + ", not by the pinned " + other_key),
            std::string::npos)
      << health.last_error();
  EXPECT_NE(read_file(m_dir.path() / "deck" / "daemon.log").find("refused"), std::string::npos);
}

TEST_F(Upstream, AnUnknownTokenIsRefusedByTheServerAndTheKernelBuiltHere)
{
  start_server();
  std::string built = build_recipe(*m_server);
  DaemonProcess deck(handheld("deck", m_port, m_server_key, "unknown.token"));
  ASSERT_TRUE(deck.start());
  EXPECT_EQ(build_recipe(deck), built);
  EXPECT_EQ(status_of(deck).builds().done(), 1);
  pb::TierHealth health = upstream_health(deck);
  EXPECT_EQ(health.failures(), 1);
  EXPECT_NE(health.last_error().find("unknown token"), std::string::npos) << health.last_error();
  EXPECT_EQ(m_server->counter("upstream.served"), 0);
}

// Nothing listens there: the first fetch fails at once or within its budget, the build is local,
// and the upstream is then backed off (the next lookup does not wait on it).
TEST_F(Upstream, AServerThatIsNotThereCostsAtMostItsBudget)
{
  int nobody = free_port();
  ASSERT_GT(nobody, 0);
  DaemonProcess deck(handheld("deck", nobody, m_server_key));
  ASSERT_TRUE(deck.start());
  auto started = std::chrono::steady_clock::now();
  EXPECT_FALSE(build_recipe(deck).empty());
  auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_EQ(status_of(deck).builds().done(), 1);
  pb::TierHealth health = upstream_health(deck);
  EXPECT_EQ(health.failures(), 1) << health.last_error();
  EXPECT_LT(elapsed, 60s) << "a local build, not a wait on the missing server";
}

// A server whose key signs an object its key does not build (here: its store's fast entry of
// d4r_example_accuracy given the accuracy build's bytes, which keep the kernel's launch contract
// but divide otherwise) passes every signature
// check. The handheld, sampling every fetched object (--verify-remote-sample 1), builds the key
// itself in the background, finds other bytes, serves its own object from then on and never
// asks that server again.
TEST_F(Upstream, ARebuildThatDiffersDistrustsTheServerAndKeepsTheLocalObject)
{
  start_server();
  const std::string kernel = "d4r_example_accuracy";
  std::string honest = build_recipe(*m_server, pb::MODE_FAST, kernel);
  std::string other = build_recipe(*m_server, pb::MODE_ACCURACY, kernel);
  ASSERT_TRUE(honest != other) << "the two modes must build different objects for this test";
  ASSERT_EQ(m_server->stop(), 0);
  {
    Expected<std::unique_ptr<cache::Cache>> store =
        cache::Cache::open(cache::CacheOptions{m_dir.path() / "desktop" / "cache"});
    ASSERT_TRUE(store) << store.error().message;
    Expected<std::vector<cache::Entry>> fast = (*store)->list(Mode::fast);
    Expected<std::vector<cache::Entry>> accurate = (*store)->list(Mode::accuracy);
    ASSERT_TRUE(fast && accurate && fast->size() == 1 && accurate->size() == 1);
    Expected<std::optional<cache::Hit>> accurate_hit =
        (*store)->lookup(Mode::accuracy, accurate->front().key);
    ASSERT_TRUE(accurate_hit && *accurate_hit);
    std::span<const std::byte> bytes(reinterpret_cast<const std::byte*>(other.data()), other.size());
    ASSERT_TRUE((*store)->insert(Mode::fast, fast->front().key, bytes, (*accurate_hit)->metadata,
                                 "swapped by the test"));
  }
  start_server();

  DaemonProcess deck(handheld("deck", m_port, m_server_key, "handheld.token", "1"));
  ASSERT_TRUE(deck.start());
  EXPECT_TRUE(build_recipe(deck, pb::MODE_FAST, kernel) == other)
      << "signed by the pinned key: served at first";
  bool distrusted = false;
  for (auto end = std::chrono::steady_clock::now() + 120s;
       !distrusted && std::chrono::steady_clock::now() < end;) {
    distrusted = upstream_health(deck).distrusted();
    std::this_thread::sleep_for(100ms);
  }
  ASSERT_TRUE(distrusted) << "the background rebuild did not distrust the server";
  pb::TierHealth health = upstream_health(deck);
  EXPECT_NE(health.last_error().find("upstream:127.0.0.1:" + std::to_string(m_port)),
            std::string::npos)
      << health.last_error();
  EXPECT_TRUE(build_recipe(deck, pb::MODE_FAST, kernel) == honest)
      << "this machine's own object replaced the one served";
  EXPECT_EQ(status_of(deck).builds().done(), 0) << "the check is not a build anyone asked for";
  // The server has the accuracy object too; a distrusted server is not asked for it.
  EXPECT_TRUE(build_recipe(deck, pb::MODE_ACCURACY, kernel) == other);
  EXPECT_EQ(status_of(deck).builds().done(), 1) << "built here";
  health = upstream_health(deck);
  EXPECT_EQ(health.hits(), 1) << "not asked again";
  EXPECT_GE(health.skipped(), 1);
  EXPECT_NE(read_file(m_dir.path() / "deck" / "daemon.log").find("distrusted"), std::string::npos);
}

TEST(UpstreamFlags, AnUpstreamWithoutAPinnedKeyDoesNotStart)
{
  TempDir dir;
  std::ofstream(dir.path() / "token") << k_token << "\n";
  DaemonOptions options(dir.path());
  options.extra_args = {"--upstream", "127.0.0.1:7467", "--upstream-token-file",
                        (dir.path() / "token").string()};
  options.log_file = dir.path() / "daemon.log";
  DaemonProcess daemon(options);
  EXPECT_FALSE(daemon.start()) << "unsigned code must never be taken";
  EXPECT_NE(read_file(dir.path() / "daemon.log").find("--upstream needs --upstream-key"),
            std::string::npos)
      << read_file(dir.path() / "daemon.log");

  DaemonOptions unreadable(dir.path());
  unreadable.extra_args = {"--upstream", "127.0.0.1:7467", "--upstream-token-file",
                           (dir.path() / "missing").string(), "--upstream-key",
                           "ed25519:gsJ4H1zjSeRn6IEGNmd5QOnRthNSLyDPoGK3ixtlhfc="};
  unreadable.log_file = dir.path() / "daemon2.log";
  DaemonProcess second(unreadable);
  EXPECT_FALSE(second.start()) << "a token file that cannot be read refuses to start";
  EXPECT_NE(read_file(dir.path() / "daemon2.log").find("cannot be read"), std::string::npos)
      << read_file(dir.path() / "daemon2.log");
}

} // namespace
} // namespace d4r::testing
