// A build server on loopback TCP: the real daemon with --listen, TLS from a CA this test makes
// (the openssl tool), tokens in a token file, and a real gRPC client over TLS. A right token is
// served the code object's bytes (never a path, even when it asks for one); a wrong, missing or
// revoked token is refused UNAUTHENTICATED and counted; without a client certificate a
// mutual-TLS server refuses the handshake; a plain-text connection gets nothing; methods that
// reach this machine's files are not served on TCP; every call is counted under its client; a
// client past one of its limits is refused with the limit's reason, and counted by limit.

#include "daemon_process.hpp"
#include "tls_loopback.hpp"
#include "warm_support.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"
#include "util/digest.hpp"
#include "util/tokens.hpp"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <future>
#include <thread>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;

constexpr std::string_view k_good = "d4r_good-token-of-deck-for-this-test-only-000";
constexpr std::string_view k_old = "d4r_revoked-token-of-old-laptop-test-only-000";

pb::ResolveRequest ready_request()
{
  pb::ResolveRequest request;
  request.set_module_hash(k_sr_module_hash);
  request.set_kernel("d4r_test_layer");
  request.mutable_selection()->set_target("gfx1101");
  request.mutable_selection()->set_mode(pb::MODE_FAST);
  request.set_accept_path(true); // asked for, as the local client asks: TCP answers bytes anyway
  return request;
}

class RemoteServer : public ::testing::Test {
protected:
  void SetUp() override
  {
    if (!openssl_installed()) {
      GTEST_SKIP() << "the openssl tool makes this test's CA; it is not installed";
    }
    ASSERT_TRUE(make_certificates(m_dir.path())) << "openssl could not make the test CA";
    TokenFile tokens;
    tokens.clients.push_back({"deck", token_hash(k_good), 1764680000, 0});
    tokens.clients.push_back({"old-laptop", token_hash(k_old), 1764000000, 1764600000});
    ASSERT_TRUE(write_token_file(token_file(), tokens));
  }

  void start(bool mutual_tls, std::vector<std::string> extra = {},
             std::optional<std::filesystem::path> recipes = std::nullopt)
  {
    m_port = free_port();
    ASSERT_GT(m_port, 0);
    DaemonOptions options(m_dir.path());
    options.recipes_dir = std::move(recipes);
    options.extra_args = {"--listen", "127.0.0.1:" + std::to_string(m_port),
                          "--tls-cert", (m_dir.path() / "server.crt").string(),
                          "--tls-key", (m_dir.path() / "server.key").string(),
                          "--token-file", token_file().string()};
    if (mutual_tls) {
      options.extra_args.push_back("--tls-client-ca");
      options.extra_args.push_back((m_dir.path() / "ca.crt").string());
    }
    options.extra_args.insert(options.extra_args.end(), extra.begin(), extra.end());
    m_daemon = std::make_unique<DaemonProcess>(std::move(options));
    ASSERT_TRUE(m_daemon->start()) << "d4r-kerneld did not start";
    ASSERT_TRUE(wait_for_port(m_port)) << "nothing listens on 127.0.0.1:" << m_port;
  }

  std::filesystem::path token_file() const { return m_dir.path() / "state" / "tokens"; }

  std::shared_ptr<grpc::Channel> tls_channel(bool with_client_cert) const
  {
    grpc::SslCredentialsOptions options;
    options.pem_root_certs = read_file(m_dir.path() / "ca.crt");
    if (with_client_cert) {
      options.pem_private_key = read_file(m_dir.path() / "client.key");
      options.pem_cert_chain = read_file(m_dir.path() / "client.crt");
    }
    return grpc::CreateChannel("127.0.0.1:" + std::to_string(m_port),
                               grpc::SslCredentials(options));
  }

  grpc::Status resolve(const std::shared_ptr<grpc::Channel>& channel, std::string_view token,
                       pb::ResolveReply& reply) const
  {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    if (!token.empty()) {
      context.AddMetadata("authorization", "Bearer " + std::string(token));
    }
    return pb::KernelService::NewStub(channel)->Resolve(&context, ready_request(), &reply);
  }

  pb::StatusReply local_status() const
  {
    auto stub = pb::KernelService::NewStub(grpc::CreateChannel(
        "unix:" + m_daemon->socket_path().string(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    pb::StatusReply status;
    EXPECT_TRUE(stub->Status(&context, pb::StatusRequest(), &status).ok());
    return status;
  }

  TempDir m_dir;
  int m_port = -1;
  std::unique_ptr<DaemonProcess> m_daemon;
};

TEST_F(RemoteServer, ARightTokenIsServedBytesNeverAPath)
{
  start(false);
  std::shared_ptr<grpc::Channel> channel = tls_channel(false);
  pb::ResolveReply reply;
  grpc::Status status = resolve(channel, k_good, reply);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
  ASSERT_FALSE(reply.object().has_path()) << reply.object().path();
  std::string expected = read_file(release_fixture() / "gfx1101" / "d4r_test_layer.hsaco");
  EXPECT_EQ(reply.object().data(), expected);
  // Again: a warm answer is kept by the request's bytes; TCP's must not be a local one's.
  pb::ResolveReply local;
  {
    auto stub = pb::KernelService::NewStub(grpc::CreateChannel(
        "unix:" + m_daemon->socket_path().string(), grpc::InsecureChannelCredentials()));
    grpc::ClientContext context;
    ASSERT_TRUE(stub->Resolve(&context, ready_request(), &local).ok());
  }
  ASSERT_TRUE(local.object().has_path()) << "the Unix socket's client still maps a path";
  for (int i = 0; i < 3; ++i) {
    pb::ResolveReply again;
    ASSERT_TRUE(resolve(channel, k_good, again).ok());
    ASSERT_EQ(again.outcome(), pb::ResolveReply::READY);
    EXPECT_FALSE(again.object().has_path());
    EXPECT_EQ(again.object().data(), expected);
  }
  pb::StatusReply after = local_status();
  EXPECT_EQ(after.remote().listen(), "127.0.0.1:" + std::to_string(m_port));
  ASSERT_EQ(after.remote().clients_size(), 1);
  EXPECT_EQ(after.remote().clients(0).name(), "deck");
  EXPECT_EQ(after.remote().clients(0).requests(), 4);
  EXPECT_EQ(after.remote().clients(0).failed(), 0);
}

TEST_F(RemoteServer, WrongMissingAndRevokedTokensAreRefusedAndCounted)
{
  start(false);
  std::shared_ptr<grpc::Channel> channel = tls_channel(false);
  pb::ResolveReply reply;
  grpc::Status missing = resolve(channel, "", reply);
  EXPECT_EQ(missing.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(missing.error_message().find("Bearer"), std::string::npos) << missing.error_message();
  grpc::Status wrong = resolve(channel, "d4r_not-a-token-anyone-has", reply);
  EXPECT_EQ(wrong.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(wrong.error_message().find("unknown token"), std::string::npos);
  grpc::Status revoked = resolve(channel, k_old, reply);
  EXPECT_EQ(revoked.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(revoked.error_message().find("old-laptop was revoked"), std::string::npos)
      << revoked.error_message();
  EXPECT_EQ(reply.object().data(), "") << "nothing was served";

  // Revoked while the daemon runs: `d4r-kernel token revoke` rewrites the file, no restart.
  ASSERT_TRUE(resolve(channel, k_good, reply).ok());
  std::string revoke = (std::filesystem::path(D4R_BINARY_DIR) / "cli" / "d4r-kernel").string() +
                       " token revoke deck --token-file " + token_file().string() + " >/dev/null";
  ASSERT_EQ(std::system(revoke.c_str()), 0);
  grpc::Status after_revoke = resolve(channel, k_good, reply);
  EXPECT_EQ(after_revoke.error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_NE(after_revoke.error_message().find("deck was revoked"), std::string::npos);

  pb::StatusReply status = local_status();
  EXPECT_EQ(status.remote().unauthenticated_missing(), 1);
  EXPECT_EQ(status.remote().unauthenticated_unknown(), 1);
  EXPECT_EQ(status.remote().unauthenticated_revoked(), 2);
  std::map<std::string, pb::RemoteClient> clients;
  for (const pb::RemoteClient& client : status.remote().clients()) {
    clients[client.name()] = client;
  }
  EXPECT_EQ(clients["deck"].requests(), 1);
  EXPECT_EQ(clients["deck"].refused(), 1);
  EXPECT_EQ(clients["old-laptop"].refused(), 1);
}

TEST_F(RemoteServer, MethodsThatReachThisMachinesFilesAreNotServedOnTcp)
{
  start(false);
  auto stub = pb::KernelService::NewStub(tls_channel(false));
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + std::string(k_good));
  pb::ImportRequest request;
  request.set_directory("/etc");
  pb::ImportReply reply;
  EXPECT_EQ(stub->Import(&context, request, &reply).error_code(), grpc::StatusCode::UNIMPLEMENTED);
  grpc::ClientContext status_context;
  status_context.AddMetadata("authorization", "Bearer " + std::string(k_good));
  pb::StatusReply status;
  EXPECT_EQ(stub->Status(&status_context, pb::StatusRequest(), &status).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(RemoteServer, MutualTlsRefusesAClientWithoutACertificate)
{
  start(true);
  pb::ResolveReply reply;
  grpc::Status without = resolve(tls_channel(false), k_good, reply);
  EXPECT_EQ(without.error_code(), grpc::StatusCode::UNAVAILABLE) << without.error_message();
  grpc::Status with = resolve(tls_channel(true), k_good, reply);
  ASSERT_TRUE(with.ok()) << with.error_message();
  EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY);
  EXPECT_FALSE(reply.object().data().empty());
  EXPECT_TRUE(local_status().remote().mutual_tls());
}

TEST_F(RemoteServer, PlainTextIsRefused)
{
  start(false);
  auto stub = pb::KernelService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(m_port), grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(3));
  context.AddMetadata("authorization", "Bearer " + std::string(k_good));
  pb::ResolveReply reply;
  grpc::Status status = stub->Resolve(&context, ready_request(), &reply);
  EXPECT_FALSE(status.ok());
  EXPECT_NE(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << "no call got that far";
  EXPECT_TRUE(reply.object().data().empty());
  EXPECT_EQ(local_status().remote().clients_size(), 0);
}

// One client, small limits (4 calls a second, 1 000-byte modules, one Resolve or Build in flight,
// 1.5 s of waiting), a recipe whose build never ends: each limit refuses with its reason, the
// refusals are counted under the client by limit, and a call within the limits is served.
TEST_F(RemoteServer, AClientPastItsLimitsIsRefusedWithTheReasonAndCounted)
{
  start(false,
        {"--client-rate", "4", "--client-max-module", "1000", "--client-max-builds", "1",
         "--client-max-wait-ms", "1500", "--build-cpu-seconds", "60"},
        warm_recipes(m_dir.path(), true));
  std::shared_ptr<grpc::Channel> channel = tls_channel(false);
  auto stub = pb::KernelService::NewStub(channel);
  auto with_token = [](grpc::ClientContext& context) {
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    context.AddMetadata("authorization", "Bearer " + std::string(k_good));
  };

  // The rate: a second's burst of 4 is served, the rest of 12 quick calls mostly refused.
  int ready = 0;
  int rate_refused = 0;
  for (int i = 0; i < 12; ++i) {
    pb::ResolveReply reply;
    ASSERT_TRUE(resolve(channel, k_good, reply).ok());
    if (reply.outcome() == pb::ResolveReply::READY) {
      ++ready;
    } else {
      EXPECT_EQ(reply.outcome(), pb::ResolveReply::REJECTED);
      EXPECT_NE(reply.reason().find("--client-rate"), std::string::npos) << reply.reason();
      ++rate_refused;
    }
  }
  EXPECT_GE(ready, 4);
  EXPECT_GE(rate_refused, 6);
  std::this_thread::sleep_for(std::chrono::milliseconds(1100)); // the bucket is full again

  // One module's size.
  pb::PutModuleRequest big;
  big.mutable_module()->set_fnv1a64(1);
  big.set_ptx(std::string(2000, ' '));
  pb::PutModuleReply put_reply;
  grpc::ClientContext put_context;
  with_token(put_context);
  grpc::Status put = stub->PutModule(&put_context, big, &put_reply);
  EXPECT_EQ(put.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_NE(put.error_message().find("--client-max-module"), std::string::npos) << put.error_message();

  // Builds in flight: one Build asks to wait ten minutes for a build that never ends; it is
  // answered PENDING after the client's 1.5 s. While it waits, a second one is REJECTED.
  auto build = [&] {
    pb::BuildRequest request;
    request.set_kernel("fatbin_scale");
    request.mutable_selection()->set_target("gfx1101");
    request.mutable_selection()->set_mode(pb::MODE_FAST);
    request.set_wait_budget_ms(600'000);
    grpc::ClientContext context;
    with_token(context);
    pb::ResolveReply reply;
    grpc::Status status = stub->Build(&context, request, &reply);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return reply;
  };
  auto asked = std::chrono::steady_clock::now();
  std::future<pb::ResolveReply> first = std::async(std::launch::async, build);
  bool running = false;
  for (auto end = asked + std::chrono::seconds(20); std::chrono::steady_clock::now() < end && !running;) {
    running = local_status().builds().running() == 1;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(running) << "the never-ending build started";
  pb::ResolveReply second = build();
  EXPECT_EQ(second.outcome(), pb::ResolveReply::REJECTED);
  EXPECT_NE(second.reason().find("--client-max-builds"), std::string::npos) << second.reason();
  pb::ResolveReply waited = first.get();
  auto took = std::chrono::steady_clock::now() - asked;
  EXPECT_EQ(waited.outcome(), pb::ResolveReply::PENDING) << waited.reason();
  EXPECT_LT(took, std::chrono::seconds(15)) << "the ten minutes asked were shortened to 1.5 s";
  // Its place is given back: the next Build waits again (the same build, still running).
  std::this_thread::sleep_for(std::chrono::milliseconds(600));
  EXPECT_EQ(build().outcome(), pb::ResolveReply::PENDING);

  pb::StatusReply status = local_status();
  ASSERT_EQ(status.remote().clients_size(), 1);
  const pb::RemoteClient& deck = status.remote().clients(0);
  EXPECT_EQ(deck.name(), "deck");
  EXPECT_EQ(deck.rejected().at("rate"), rate_refused);
  EXPECT_EQ(deck.rejected().at("module_size"), 1);
  EXPECT_EQ(deck.rejected().at("builds"), 1);
  EXPECT_EQ(deck.rejected().count("upload_volume"), 0U);
}

// gRPC's default SO_REUSEPORT would let a second daemon share the port and take some of its
// connections (with another certificate and other tokens): the second one must refuse to start.
TEST_F(RemoteServer, ASecondServerOnTheSamePortDoesNotStart)
{
  start(false);
  TempDir other;
  DaemonOptions options(other.path());
  options.extra_args = {"--listen", "127.0.0.1:" + std::to_string(m_port),
                        "--tls-cert", (m_dir.path() / "server.crt").string(),
                        "--tls-key", (m_dir.path() / "server.key").string(),
                        "--token-file", token_file().string()};
  options.log_file = other.path() / "daemon.log";
  DaemonProcess second(std::move(options));
  // Its Unix socket may answer for a moment before the TCP bind fails and it exits.
  static_cast<void>(second.start());
  bool refused = false;
  for (int i = 0; i < 200 && !refused; ++i) {
    refused = read_file(other.path() / "daemon.log").find("cannot listen there") != std::string::npos;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_TRUE(refused) << "a second server took the port:\n" << read_file(other.path() / "daemon.log");
  EXPECT_NE(second.stop(), 0) << "it must exit with an error";
  pb::ResolveReply reply;
  ASSERT_TRUE(resolve(tls_channel(false), k_good, reply).ok()) << "the first one serves on";
  EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY);
}

TEST(RemoteServerFlags, TcpWithoutTlsDoesNotStart)
{
  TempDir dir;
  DaemonOptions options(dir.path());
  options.extra_args = {"--listen", "127.0.0.1:0"};
  DaemonProcess daemon(std::move(options));
  EXPECT_FALSE(daemon.start()) << "--listen without --tls-cert/--tls-key must refuse to start";
}

} // namespace
} // namespace d4r::testing
