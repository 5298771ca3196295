// What the gRPC transport itself may take, seen from outside over the real socket: uploads that
// arrive together are refused before their bodies are buffered past --transport-memory, and a
// flood of connections that never send is bounded (--max-connections, --idle-connection-ms) while
// a real client is still answered. Figures (peak RSS, threads) are printed; the assertions are on
// refusals and their reasons, not on timings.

#include "daemon_process.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <grpcpp/create_channel.h>
#include <grpcpp/generic/generic_stub.h>
#include <gtest/gtest.h>

#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;
using namespace std::chrono_literals;

// A channel with a connection of its own: channels to one target share a subchannel by default,
// and the floods here are meant to arrive on many connections.
std::shared_ptr<grpc::Channel> own_channel(const DaemonProcess& daemon)
{
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return grpc::CreateCustomChannel("unix:" + daemon.socket_path().string(),
                                   grpc::InsecureChannelCredentials(), args);
}

// One Status call on `channel`; with `wait_for_ready`, it waits out a reconnection.
grpc::Status status_call(const std::shared_ptr<grpc::Channel>& channel,
                         std::chrono::seconds deadline, bool wait_for_ready = false)
{
  pb::StatusReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + deadline);
  context.set_wait_for_ready(wait_for_ready);
  return pb::KernelService::NewStub(channel)->Status(&context, pb::StatusRequest(), &reply);
}

// A field of /proc/PID/status ("VmHWM:" in KiB, "Threads:"), or -1.
int64_t proc_status(pid_t pid, const std::string& field)
{
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.starts_with(field)) {
      return std::strtoll(line.c_str() + field.size(), nullptr, 10);
    }
  }
  return -1;
}

int env_or(const char* name, int fallback)
{
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::atoi(value) : fallback;
}

// One serialized PutModule body of about `bytes`, shared by every call that sends it (a ByteBuffer
// copy references the same slice), so that the test's own memory stays at one module.
grpc::ByteBuffer upload_body(size_t bytes)
{
  std::string ptx = "// d4r transport test module\n" + std::string(bytes, 'x') + "\n";
  pb::PutModuleRequest request;
  request.mutable_module()->set_fnv1a64(ptx_module_hash(ptx));
  Sha256 digest = sha256(ptx);
  request.mutable_module()->set_sha256(digest.data(), digest.size());
  request.set_ptx(std::move(ptx));
  grpc::Slice slice(request.SerializeAsString());
  return grpc::ByteBuffer(&slice, 1);
}

struct UploadTally {
  int stored = 0;
  int refused = 0;              // RESOURCE_EXHAUSTED
  std::vector<std::string> reasons; // of the refusals, and of anything else that failed
  int other = 0;
};

// `uploads` PutModule calls started at once, each on its own connection.
UploadTally upload_flood(const DaemonProcess& daemon, const grpc::ByteBuffer& body, int uploads)
{
  std::vector<std::shared_ptr<grpc::Channel>> channels;
  for (int i = 0; i < uploads; ++i) {
    channels.push_back(own_channel(daemon));
    channels.back()->WaitForConnected(std::chrono::system_clock::now() + 10s);
  }
  std::mutex mutex;
  std::condition_variable finished;
  UploadTally tally;
  int done = 0;
  std::vector<std::unique_ptr<grpc::ClientContext>> contexts;
  std::vector<grpc::ByteBuffer> replies(static_cast<size_t>(uploads));
  std::vector<std::unique_ptr<grpc::GenericStub>> stubs;
  for (int i = 0; i < uploads; ++i) {
    contexts.push_back(std::make_unique<grpc::ClientContext>());
    contexts.back()->set_deadline(std::chrono::system_clock::now() + 60s);
    stubs.push_back(std::make_unique<grpc::GenericStub>(channels[static_cast<size_t>(i)]));
    stubs.back()->UnaryCall(contexts.back().get(), "/d4r.kernel.v1.KernelService/PutModule",
                            grpc::StubOptions(), &body, &replies[static_cast<size_t>(i)],
                            [&](grpc::Status status) {
                              std::lock_guard lock(mutex);
                              if (status.ok()) {
                                ++tally.stored;
                              } else {
                                if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED) {
                                  ++tally.refused;
                                } else {
                                  ++tally.other;
                                }
                                tally.reasons.push_back(std::to_string(status.error_code()) + " " +
                                                        status.error_message());
                              }
                              ++done;
                              finished.notify_all();
                            });
  }
  std::unique_lock lock(mutex);
  finished.wait(lock, [&] { return done == uploads; });
  return tally;
}

void print_tally(const char* label, const DaemonProcess& daemon, const UploadTally& tally,
                 int64_t hwm_before_kib)
{
  int64_t hwm = proc_status(daemon.pid(), "VmHWM:");
  std::printf("%s: stored %d, refused %d, other %d; daemon VmHWM %lld -> %lld KiB, threads %lld\n",
              label, tally.stored, tally.refused, tally.other, static_cast<long long>(hwm_before_kib),
              static_cast<long long>(hwm),
              static_cast<long long>(proc_status(daemon.pid(), "Threads:")));
  for (size_t i = 0; i < tally.reasons.size() && i < 4; ++i) {
    std::printf("  %s\n", tally.reasons[i].c_str());
  }
}

// The figure the issue asks for (D4R_TRANSPORT_UPLOADS x D4R_TRANSPORT_UPLOAD_MIB, 16 x 64 MiB
// by hand; smaller in CI; D4R_TRANSPORT_MEMORY for --transport-memory), printed with no bound
// asserted but the daemon's survival.
TEST(Transport, FiguresOfParallelUploads)
{
  int uploads = env_or("D4R_TRANSPORT_UPLOADS", 16);
  int mib = env_or("D4R_TRANSPORT_UPLOAD_MIB", 8);
  TempDir dir;
  DaemonOptions options(dir.path());
  options.extra_args = {"--max-ptx-bytes", std::to_string(mib + 1) + "M"};
  if (const char* memory = std::getenv("D4R_TRANSPORT_MEMORY")) {
    options.extra_args.insert(options.extra_args.end(), {"--transport-memory", memory});
  }
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  grpc::ByteBuffer body = upload_body(static_cast<size_t>(mib) << 20);
  int64_t before = proc_status(daemon.pid(), "VmHWM:");
  UploadTally tally = upload_flood(daemon, body, uploads);
  std::string label = std::to_string(uploads) + " x " + std::to_string(mib) + " MiB uploads";
  print_tally(label.c_str(), daemon, tally, before);
  EXPECT_EQ(tally.other, 0) << tally.reasons.front();
  EXPECT_GE(daemon.counter("connections"), uploads) << "the daemon still answers";
}

int open_fds(pid_t pid)
{
  std::error_code ec;
  int count = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++count;
  }
  return count;
}

// A Unix-socket connection that never sends a byte, or -1 when the backlog is full.
int silent_connection(const std::filesystem::path& socket_path)
{
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", socket_path.c_str());
  if (fd >= 0 && connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// A normal client's Resolve on a fresh connection: its outcome and how long it took.
std::pair<pb::ResolveReply, std::chrono::milliseconds> timed_resolve(const DaemonProcess& daemon)
{
  auto start = std::chrono::steady_clock::now();
  pb::ResolveRequest request;
  request.set_module_hash(k_sr_module_hash);
  request.set_kernel("d4r_test_layer");
  request.mutable_selection()->set_target("gfx1101");
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 20s);
  grpc::Status status = pb::KernelService::NewStub(own_channel(daemon))->Resolve(&context, request, &reply);
  if (!status.ok()) {
    reply.set_reason(status.error_message()); // the outcome stays unspecified
  }
  return {reply, std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start)};
}

std::pair<pb::ResolveReply, std::chrono::milliseconds> timed_resolve(const DaemonProcess& daemon);

int64_t kib_to_mib(int64_t kib)
{
  return kib / 1024;
}

// Uploads that arrive together are refused by gRPC while they arrive, once the bodies being
// received pass --transport-memory: before the fix all 16 were received whole (and then stored,
// --upload-memory being large here), and the daemon's peak grew by all of them.
TEST(Transport, UploadsArrivingTogetherAreRefusedWhileTheyArrive)
{
  constexpr int k_uploads = 16;
  constexpr int k_mib = 8;
  TempDir dir;
  DaemonOptions options(dir.path());
  options.extra_args = {"--max-ptx-bytes", "9M", "--upload-memory", "1G", "--transport-memory",
                        "24M"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  grpc::ByteBuffer body = upload_body(static_cast<size_t>(k_mib) << 20);
  int64_t before = proc_status(daemon.pid(), "VmHWM:");
  // A game's resolves meanwhile, on a connection of their own: printed, not asserted (gRPC may
  // abandon any call being received while its quota is spent, and the client fails open).
  std::atomic<bool> flooding{true};
  std::atomic<int> resolved{0};
  std::atomic<int> unresolved{0};
  std::thread game([&] {
    while (flooding) {
      (timed_resolve(daemon).first.outcome() == pb::ResolveReply::READY ? resolved : unresolved)++;
      std::this_thread::sleep_for(20ms);
    }
  });
  auto started = std::chrono::steady_clock::now();
  UploadTally tally = upload_flood(daemon, body, k_uploads);
  auto flooded = std::chrono::steady_clock::now();
  flooding = false;
  game.join();
  // Not asserted: in some runs one call of the flood (or the upload after it) waits ~10 s.
  std::printf("  the flood took %lld ms\n",
              static_cast<long long>(
                  std::chrono::duration_cast<std::chrono::milliseconds>(flooded - started).count()));
  print_tally("16 x 8 MiB uploads, --transport-memory 24M", daemon, tally, before);
  std::printf("  resolves meanwhile: %d READY, %d not; rejected.transport_memory %lld, "
              "closed.idle_for_memory %lld\n",
              resolved.load(), unresolved.load(),
              static_cast<long long>(daemon.counter("rejected.transport_memory")),
              static_cast<long long>(daemon.counter("closed.idle_for_memory")));
  int64_t grown_mib = kib_to_mib(proc_status(daemon.pid(), "VmHWM:") - before);
  // Refused as RESOURCE_EXHAUSTED (gRPC's ENHANCE_YOUR_CALM on the stream), or UNAVAILABLE
  // where gRPC sent the whole connection away to free memory before the upload's stream began.
  EXPECT_EQ(tally.stored + tally.refused + tally.other, k_uploads);
  EXPECT_GE(tally.refused, 4) << "16 x 8 MiB at once cannot all fit in 24 MiB";
  for (const std::string& reason : tally.reasons) {
    EXPECT_TRUE(reason.find("RST_STREAM with error code 11") != std::string::npos ||
                reason.starts_with(std::to_string(grpc::StatusCode::UNAVAILABLE) + " "))
        << reason;
  }
  int64_t counted = daemon.counter("rejected.transport_memory");
  EXPECT_GE(counted, tally.refused) << "each refusal counted";
  EXPECT_LE(counted, k_uploads + resolved + unresolved) << "and nothing else";
  // Before the fix the peak grew by 170-210 MiB (every body received whole, then parsed).
  EXPECT_LT(grown_mib, k_uploads * k_mib) << "the bodies were not all held at once";
  // The transport's memory is given back: one upload alone, and a Resolve, pass afterwards.
  UploadTally after = upload_flood(daemon, body, 1);
  EXPECT_EQ(after.stored, 1) << (after.reasons.empty() ? "" : after.reasons.front());
  pb::ResolveReply resolved_after = timed_resolve(daemon).first;
  EXPECT_EQ(resolved_after.outcome(), pb::ResolveReply::READY) << resolved_after.reason();
}

// 2 000 connections that never send a byte: gRPC never sees them (before the fix each became a
// transport: ~14 KiB and a descriptor, for ever), at most --max-connections wait (the oldest is
// closed first), each is closed after --silent-connection-ms, and a real client is answered
// while the flood is on.
TEST(Transport, SilentConnectionsAreHeldOutsideGrpcAndClosed)
{
  int flood = env_or("D4R_TRANSPORT_CONNECTIONS", 2000);
  TempDir dir;
  DaemonOptions options(dir.path());
  options.extra_args = {"--max-connections", "64", "--silent-connection-ms", "1500"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  int64_t served_before = daemon.counter("connections");
  int64_t rss_before = proc_status(daemon.pid(), "VmRSS:");
  int64_t threads_before = proc_status(daemon.pid(), "Threads:");
  std::vector<int> connections;
  for (int i = 0; i < flood; ++i) {
    int fd = silent_connection(daemon.socket_path());
    if (fd < 0) {
      std::this_thread::sleep_for(10ms); // the backlog is full: let the daemon take some
      continue;
    }
    connections.push_back(fd);
  }
  int daemon_fds = open_fds(daemon.pid());
  auto [reply, took] = timed_resolve(daemon);
  std::printf("%zu silent connections: daemon VmRSS %lld -> %lld KiB, threads %lld -> %lld, fds "
              "%d; a Resolve on a new connection meanwhile: %s in %lld ms\n",
              connections.size(), static_cast<long long>(rss_before),
              static_cast<long long>(proc_status(daemon.pid(), "VmRSS:")),
              static_cast<long long>(threads_before),
              static_cast<long long>(proc_status(daemon.pid(), "Threads:")), daemon_fds,
              pb::ResolveReply::Outcome_Name(reply.outcome()).c_str(),
              static_cast<long long>(took.count()));
  EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
  EXPECT_EQ(connections.size(), static_cast<size_t>(flood));
  EXPECT_LT(daemon_fds, 64 + 64) << "at most 64 silent ones held, besides the daemon's own";
  EXPECT_LE(proc_status(daemon.pid(), "Threads:"), threads_before + 4);
  std::this_thread::sleep_for(3s); // past the silent limit
  EXPECT_EQ(daemon.counter("closed.silent_connection"), static_cast<int64_t>(connections.size()))
      << "every silent one closed, evicted or timed out";
  EXPECT_LE(daemon.counter("connections") - served_before, 8) << "gRPC saw only real clients";
  for (int fd : connections) {
    close(fd);
  }
}

// Past --max-connections served at once, the connection idle longest makes room for a new one
// (before the fix four idle clients held every slot for --idle-connection-ms and the new client
// was closed at once, UNAVAILABLE); the client sent away reconnects on its next call.
TEST(Transport, WhenConnectionsAreFullTheLongestIdleMakesRoom)
{
  TempDir dir;
  DaemonOptions options(dir.path());
  options.extra_args = {"--max-connections", "4"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  std::vector<std::shared_ptr<grpc::Channel>> held;
  for (int i = 0; i < 4; ++i) {
    held.push_back(own_channel(daemon));
    ASSERT_TRUE(held.back()->WaitForConnected(std::chrono::system_clock::now() + 20s));
  }
  std::this_thread::sleep_for(1300ms); // past the gate's k_min_idle (1 s)
  for (int i = 0; i < 3; ++i) {
    grpc::Status status = status_call(own_channel(daemon), 5s);
    EXPECT_TRUE(status.ok()) << "new client " << i << ": " << status.error_message();
  }
  EXPECT_GE(daemon.counter("closed.idle_for_connection"), 1);
  EXPECT_EQ(daemon.counter("rejected.connection_limit"), 0);
  // Each held client is answered again (reconnecting where it was sent away).
  for (const std::shared_ptr<grpc::Channel>& channel : held) {
    grpc::Status status = status_call(channel, 10s, true);
    EXPECT_TRUE(status.ok()) << status.error_message();
  }
}

// Past --max-connections, with every served connection in use within the last second, a new
// client's call ends with RESOURCE_EXHAUSTED and the reason (before: the connection was closed
// unanswered and the client saw only UNAVAILABLE "Socket closed"); the clients served go on.
TEST(Transport, AClientPastTheConnectionLimitIsToldWhy)
{
  TempDir dir;
  DaemonOptions options(dir.path());
  options.extra_args = {"--max-connections", "2"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  std::vector<std::shared_ptr<grpc::Channel>> served = {own_channel(daemon), own_channel(daemon)};
  for (const std::shared_ptr<grpc::Channel>& channel : served) {
    grpc::Status status = status_call(channel, 10s);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  // Both were busy a moment ago: less than the gate's k_min_idle (1 s).
  grpc::Status refused = status_call(own_channel(daemon), 10s);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED)
      << refused.error_code() << ": " << refused.error_message();
  EXPECT_NE(refused.error_message().find("connection limit: 2 connections served already"),
            std::string::npos)
      << refused.error_message();
  for (const std::shared_ptr<grpc::Channel>& channel : served) {
    grpc::Status status = status_call(channel, 10s);
    EXPECT_TRUE(status.ok()) << status.error_message();
  }
  std::this_thread::sleep_for(1100ms); // the counter's own connection is let in
  EXPECT_EQ(daemon.counter("rejected.connection_limit"), 1);
}

// A connection with no call for --idle-connection-ms is sent away; its client reconnects.
TEST(Transport, IdleConnectionsAreSentAway)
{
  TempDir dir;
  DaemonOptions options(dir.path());
  options.extra_args = {"--idle-connection-ms", "500"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  std::shared_ptr<grpc::Channel> channel = own_channel(daemon);
  ASSERT_TRUE(channel->WaitForConnected(std::chrono::system_clock::now() + 20s));
  grpc_connectivity_state state = channel->GetState(false);
  for (int i = 0; i < 100 && state == GRPC_CHANNEL_READY; ++i) {
    channel->WaitForStateChange(state, std::chrono::system_clock::now() + 100ms);
    state = channel->GetState(false);
  }
  EXPECT_NE(state, GRPC_CHANNEL_READY) << "the daemon closed the idle connection";
  pb::ResolveRequest request;
  request.set_module_hash(k_sr_module_hash);
  request.set_kernel("d4r_test_layer");
  request.mutable_selection()->set_target("gfx1101");
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 20s);
  grpc::Status status = pb::KernelService::NewStub(channel)->Resolve(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << "after reconnecting";
}

} // namespace
} // namespace d4r::testing
