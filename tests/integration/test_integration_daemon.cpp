// The daemon's rules seen from outside, over gRPC on its real socket: every answer a hook can get,
// bad input, a corrupt cache object, shutdown and restart, socket activation.

#include "daemon_process.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"
#include "util/digest.hpp"
#include "util/kernel_identity.hpp"
#include "util/ptx_identity.hpp"

#include <grpcpp/create_channel.h>
#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/rpc_method.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <functional>
#include <thread>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  return pb::KernelService::NewStub(grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                                        grpc::InsecureChannelCredentials()));
}

pb::ResolveReply resolve(const DaemonProcess& daemon, uint64_t hash, const std::string& kernel,
                         const std::string& target = "gfx1101", pb::Mode mode = pb::MODE_FAST,
                         grpc::Status* status_out = nullptr,
                         std::function<void(pb::ResolveRequest&)> edit = nullptr)
{
  pb::ResolveRequest request;
  request.set_module_hash(hash);
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(mode);
  if (edit) {
    edit(request);
  }
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  grpc::Status status = stub_of(daemon)->Resolve(&context, request, &reply);
  if (status_out) {
    *status_out = status;
  } else {
    EXPECT_TRUE(status.ok()) << status.error_message();
  }
  return reply;
}

class DaemonIntegration : public ::testing::Test {
protected:
  void start(DaemonOptions options)
  {
    m_daemon = std::make_unique<DaemonProcess>(std::move(options));
    ASSERT_TRUE(m_daemon->start()) << "d4r-kerneld did not start";
  }
  void SetUp() override { start(DaemonOptions(m_dir.path())); }

  TempDir m_dir;
  std::unique_ptr<DaemonProcess> m_daemon;
};

TEST_F(DaemonIntegration, BytesOverGrpcForRemoteClients)
{
  pb::ResolveReply reply = resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer");
  ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
  std::string expected = read_file(release_fixture() / "gfx1101" / "d4r_test_layer.hsaco");
  EXPECT_EQ(reply.object().data(), expected);
  EXPECT_EQ(to_hex(sha256(std::string_view(reply.object().data()))),
            to_hex(std::span<const uint8_t>(
                reinterpret_cast<const uint8_t*>(reply.object().sha256().data()), 32)));
  EXPECT_TRUE(reply.metadata().has_prep());
  EXPECT_EQ(reply.metadata().posts_size(), 2);
}

TEST_F(DaemonIntegration, PathForLocalClientsPointsIntoTheCache)
{
  pb::ResolveReply reply = resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer", "gfx1101",
                                   pb::MODE_FAST, nullptr,
                                   [](pb::ResolveRequest& r) { r.set_accept_path(true); });
  ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
  ASSERT_TRUE(reply.object().has_path());
  std::filesystem::path path = reply.object().path();
  EXPECT_TRUE(path.string().starts_with((m_daemon->cache_dir() / "fast").string())) << path;
  EXPECT_EQ(read_file(path), read_file(release_fixture() / "gfx1101" / "d4r_test_layer.hsaco"));
}

TEST_F(DaemonIntegration, Fp8FolderOnGfx12OnlyWhenSwitchedOn)
{
  pb::ResolveReply fp8 = resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer", "gfx1201");
  ASSERT_EQ(fp8.outcome(), pb::ResolveReply::READY) << fp8.reason();
  EXPECT_EQ(fp8.target(), "gfx1201-fp8");
  pb::ResolveReply plain = resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer", "gfx1201",
                                   pb::MODE_FAST, nullptr, [](pb::ResolveRequest& r) {
                                     r.mutable_selection()->set_fp8_native(false);
                                   });
  ASSERT_EQ(plain.outcome(), pb::ResolveReply::READY) << plain.reason();
  EXPECT_EQ(plain.target(), "gfx1201");
  EXPECT_NE(fp8.object().sha256(), plain.object().sha256());
}

TEST_F(DaemonIntegration, RayReconstructionHashesAuthoriseOnlyTheirKernels)
{
  pb::ResolveReply rr = resolve(*m_daemon, k_rr_module_hash, "cuda_dldn_engine_test_kernel");
  EXPECT_EQ(rr.outcome(), pb::ResolveReply::READY) << rr.reason();
  // The RR module also defines dl4rt_input_kernel, but its hash must not serve the SR object.
  pb::ResolveReply crossed = resolve(*m_daemon, k_rr_module_hash, "dl4rt_input_kernel");
  EXPECT_NE(crossed.outcome(), pb::ResolveReply::READY);
  pb::ResolveReply sr = resolve(*m_daemon, k_sr_module_hash, "dl4rt_input_kernel");
  EXPECT_EQ(sr.outcome(), pb::ResolveReply::READY) << sr.reason();
  pb::ResolveReply sr_for_rr = resolve(*m_daemon, k_sr_module_hash, "cuda_dldn_engine_test_kernel");
  EXPECT_NE(sr_for_rr.outcome(), pb::ResolveReply::READY);
}

TEST_F(DaemonIntegration, SwinEncodersSwitchedOffPerRequestAndPerDaemon)
{
  EXPECT_EQ(resolve(*m_daemon, k_sr_module_hash, "rrlite_enc1_4x4").outcome(),
            pb::ResolveReply::READY);
  pb::ResolveReply off = resolve(*m_daemon, k_sr_module_hash, "rrlite_enc1_4x4", "gfx1101",
                                 pb::MODE_FAST, nullptr, [](pb::ResolveRequest& r) {
                                   r.mutable_selection()->set_native_swin_encoders(false);
                                 });
  EXPECT_EQ(off.outcome(), pb::ResolveReply::NOT_FOUND);
  EXPECT_EQ(m_daemon->counter("not_found.switched_off"), 1);
  m_daemon.reset();
  TempDir other;
  DaemonOptions options(other.path());
  options.extra_env = {"D4R_NATIVE_SWIN_ENCODERS=0"};
  start(options);
  EXPECT_EQ(resolve(*m_daemon, k_sr_module_hash, "rrlite_enc1_4x4").outcome(),
            pb::ResolveReply::NOT_FOUND);
  EXPECT_EQ(resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer").outcome(),
            pb::ResolveReply::READY);
}

TEST_F(DaemonIntegration, BrokenContractsAreRejectedWithTheReason)
{
  pb::ResolveReply prep = resolve(*m_daemon, k_sr_module_hash, "d4r_broken_prep");
  EXPECT_EQ(prep.outcome(), pb::ResolveReply::REJECTED);
  EXPECT_NE(prep.reason().find("prep"), std::string::npos) << prep.reason();
  pb::ResolveReply missing_main = resolve(*m_daemon, k_sr_module_hash, "d4r_missing_main");
  EXPECT_EQ(missing_main.outcome(), pb::ResolveReply::REJECTED);
  EXPECT_NE(missing_main.reason().find("d4r_missing_main"), std::string::npos);
  pb::ResolveReply not_shipped = resolve(*m_daemon, k_sr_module_hash, "d4r_not_shipped");
  EXPECT_EQ(not_shipped.outcome(), pb::ResolveReply::NOT_FOUND);
  EXPECT_NE(not_shipped.reason().find("missing"), std::string::npos) << not_shipped.reason();
  EXPECT_EQ(m_daemon->counter("rejected.broken_contract"), 2);
}

TEST_F(DaemonIntegration, BadRequestsAreRejectedAndChangeNothing)
{
  for (std::string bad : {std::string("../d4r_test_layer"), std::string("a/b"), std::string(".."),
                          std::string("d4r_test_layer\0x", 16), std::string("naïve"),
                          std::string(k_max_kernel_name + 1, 'k'), std::string()}) {
    pb::ResolveReply reply = resolve(*m_daemon, k_sr_module_hash, bad);
    EXPECT_EQ(reply.outcome(), pb::ResolveReply::REJECTED) << bad;
    EXPECT_FALSE(reply.reason().empty());
  }
  EXPECT_EQ(resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer", "gfx9000").outcome(),
            pb::ResolveReply::REJECTED);
  grpc::Status status;
  pb::ResolveReply bad_mode = resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer", "gfx1101",
                                      static_cast<pb::Mode>(7), &status);
  EXPECT_TRUE(status.ok());
  EXPECT_EQ(bad_mode.outcome(), pb::ResolveReply::REJECTED);
  EXPECT_NE(bad_mode.reason().find("mode"), std::string::npos) << bad_mode.reason();
  // Bounds: a wait no build takes, a Prepare of more entries than a module has.
  {
    pb::ResolveRequest request;
    request.set_module_hash(k_sr_module_hash);
    request.set_kernel("d4r_test_layer");
    request.set_wait_budget_ms(3'600'000);
    pb::ResolveReply reply;
    grpc::ClientContext context;
    ASSERT_TRUE(stub_of(*m_daemon)->Resolve(&context, request, &reply).ok());
    EXPECT_EQ(reply.outcome(), pb::ResolveReply::REJECTED);
    EXPECT_NE(reply.reason().find("wait_budget_ms 3600000 is over the limit"), std::string::npos)
        << reply.reason();
  }
  {
    pb::PrepareRequest request;
    request.mutable_module()->set_fnv1a64(k_sr_module_hash);
    for (int i = 0; i < 5000; ++i) {
      request.add_entries("k" + std::to_string(i));
    }
    pb::PrepareReply reply;
    grpc::ClientContext context;
    grpc::Status prepared = stub_of(*m_daemon)->Prepare(&context, request, &reply);
    EXPECT_EQ(prepared.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_NE(prepared.error_message().find("5000 entries is over the limit"), std::string::npos)
        << prepared.error_message();
  }
  // Nothing was cached by any of them, and the daemon still serves.
  pb::ListReply list;
  grpc::ClientContext context;
  ASSERT_TRUE(stub_of(*m_daemon)->List(&context, pb::ListRequest(), &list).ok());
  EXPECT_EQ(list.entries_size(), 0);
  EXPECT_EQ(resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer").outcome(),
            pb::ResolveReply::READY);
}

TEST_F(DaemonIntegration, PtxUploadsAreCheckedAndLimited)
{
  m_daemon.reset();
  TempDir other;
  DaemonOptions options(other.path());
  options.extra_args = {"--max-ptx-bytes", "4K"};
  start(options);
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/rr_module.ptx"); // 1.7 KB
  auto put = [&](const std::string& bytes, uint64_t fnv, const Sha256& digest) {
    pb::PutModuleRequest request;
    request.mutable_module()->set_fnv1a64(fnv);
    request.mutable_module()->set_sha256(std::string(digest.begin(), digest.end()));
    request.set_ptx(bytes);
    pb::PutModuleReply reply;
    grpc::ClientContext context;
    return stub_of(*m_daemon)->PutModule(&context, request, &reply);
  };
  EXPECT_TRUE(put(ptx, ptx_module_hash(ptx), sha256(std::string_view(ptx))).ok());
  std::string big(5000, 'x');
  EXPECT_EQ(put(big, ptx_module_hash(big), sha256(std::string_view(big))).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
  EXPECT_EQ(put(ptx, ptx_module_hash(ptx) ^ 1, sha256(std::string_view(ptx))).error_code(),
            grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(m_daemon->counter("put_module"), 1);
  EXPECT_EQ(m_daemon->counter("put_module.rejected"), 2);
}

TEST_F(DaemonIntegration, CorruptCacheObjectIsQuarantinedAndRebuilt)
{
  pb::ResolveReply first = resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer", "gfx1101",
                                   pb::MODE_FAST, nullptr,
                                   [](pb::ResolveRequest& r) { r.set_accept_path(true); });
  ASSERT_EQ(first.outcome(), pb::ResolveReply::READY);
  std::filesystem::path object = first.object().path();
  chmod(object.c_str(), 0644);
  {
    std::string bytes = read_file(object);
    bytes[bytes.size() / 2] ^= 0x55;
    std::ofstream(object, std::ios::binary | std::ios::trunc) << bytes;
  }
  pb::ResolveReply second = resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer");
  ASSERT_EQ(second.outcome(), pb::ResolveReply::READY) << second.reason();
  EXPECT_EQ(second.object().data(), read_file(release_fixture() / "gfx1101" / "d4r_test_layer.hsaco"));
  EXPECT_EQ(m_daemon->counter("cache.corrupt_object"), 1);
  pb::StatusReply status;
  grpc::ClientContext context;
  ASSERT_TRUE(stub_of(*m_daemon)->Status(&context, pb::StatusRequest(), &status).ok());
  EXPECT_EQ(status.stores(0).quarantined(), 1);
}

TEST_F(DaemonIntegration, SigtermKeepsCommittedEntries)
{
  ASSERT_EQ(resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer").outcome(),
            pb::ResolveReply::READY);
  EXPECT_EQ(m_daemon->stop(), 0);
  start(DaemonOptions(m_dir.path()));
  pb::ListReply list;
  grpc::ClientContext context;
  ASSERT_TRUE(stub_of(*m_daemon)->List(&context, pb::ListRequest(), &list).ok());
  ASSERT_EQ(list.entries_size(), 1);
  EXPECT_EQ(list.entries(0).kernel(), "d4r_test_layer");
  EXPECT_EQ(list.entries(0).module_hash(), k_sr_module_hash);
}

TEST_F(DaemonIntegration, ImportListAndPurge)
{
  pb::ImportRequest request;
  request.set_directory(release_fixture().string());
  pb::ImportReply imported;
  grpc::ClientContext context;
  ASSERT_TRUE(stub_of(*m_daemon)->Import(&context, request, &imported).ok());
  EXPECT_GT(imported.imported(), 10);
  bool names_missing = false;
  bool names_broken = false;
  for (const std::string& problem : imported.problems()) {
    names_missing |= problem.find("d4r_not_shipped") != std::string::npos;
    names_broken |= problem.find("d4r_broken_prep") != std::string::npos;
  }
  EXPECT_TRUE(names_missing);
  EXPECT_TRUE(names_broken);

  pb::ImportReply again;
  grpc::ClientContext context2;
  ASSERT_TRUE(stub_of(*m_daemon)->Import(&context2, request, &again).ok());
  EXPECT_EQ(again.imported(), 0);
  EXPECT_EQ(again.already_present(), imported.imported());

  pb::ListRequest accuracy_only;
  accuracy_only.set_mode(pb::MODE_ACCURACY);
  pb::ListReply list;
  grpc::ClientContext context3;
  ASSERT_TRUE(stub_of(*m_daemon)->List(&context3, accuracy_only, &list).ok());
  ASSERT_GT(list.entries_size(), 0);
  for (const pb::CacheEntry& entry : list.entries()) {
    EXPECT_EQ(entry.mode(), pb::MODE_ACCURACY);
  }

  pb::PurgeReply purged;
  grpc::ClientContext context4;
  ASSERT_TRUE(stub_of(*m_daemon)->Purge(&context4, pb::PurgeRequest(), &purged).ok());
  EXPECT_EQ(purged.removed_entries(), imported.imported());
  pb::ListReply empty;
  grpc::ClientContext context5;
  ASSERT_TRUE(stub_of(*m_daemon)->List(&context5, pb::ListRequest(), &empty).ok());
  EXPECT_EQ(empty.entries_size(), 0);
}

TEST_F(DaemonIntegration, HealthServiceAnswers)
{
  auto channel = grpc::CreateChannel("unix:" + m_daemon->socket_path().string(),
                                     grpc::InsecureChannelCredentials());
  grpc::Slice empty_message("");
  grpc::ByteBuffer request_buffer(&empty_message, 1);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  // grpc.health.v1.HealthCheckRequest with an empty service name is an empty message.
  grpc::ByteBuffer response;
  grpc::internal::RpcMethod method("/grpc.health.v1.Health/Check", grpc::internal::RpcMethod::NORMAL_RPC);
  grpc::Status status = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
      channel.get(), method, &context, request_buffer, &response);
  ASSERT_TRUE(status.ok()) << status.error_message();
  std::vector<grpc::Slice> slices;
  ASSERT_TRUE(response.Dump(&slices).ok());
  std::string bytes;
  for (const grpc::Slice& slice : slices) {
    bytes.append(reinterpret_cast<const char*>(slice.begin()), slice.size());
  }
  EXPECT_EQ(bytes, std::string("\x08\x01", 2)); // status: SERVING
}

TEST_F(DaemonIntegration, GarbageOnTheSocketLeavesTheDaemonServing)
{
  for (int round = 0; round < 20; ++round) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", m_daemon->socket_path().c_str());
    ASSERT_EQ(connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)), 0);
    std::string garbage = round % 2 == 0 ? std::string("GET / HTTP/1.1\r\n\r\n")
                                         : std::string(4096, static_cast<char>(0xA0 + round));
    static_cast<void>(write(fd, garbage.data(), garbage.size()));
    close(fd); // some mid-stream, some before the daemon has read anything
  }
  EXPECT_EQ(resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer").outcome(),
            pb::ResolveReply::READY);
  EXPECT_GE(m_daemon->counter("connections"), 20);
}

// utime + stime of a process, from /proc/PID/stat (fields 14 and 15, after the command's ")").
std::chrono::milliseconds cpu_time_of(pid_t pid)
{
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::istringstream fields(text.substr(text.rfind(')') + 2));
  std::string field;
  int64_t ticks = 0;
  for (int i = 3; i <= 15 && fields >> field; ++i) {
    if (i >= 14) {
      ticks += std::stoll(field);
    }
  }
  return std::chrono::milliseconds(ticks * 1000 / sysconf(_SC_CLK_TCK));
}

TEST_F(DaemonIntegration, RunningOutOfDescriptorsNeitherSpinsNorStopsServing)
{
  rlimit few{64, 64};
  ASSERT_EQ(prlimit(m_daemon->pid(), RLIMIT_NOFILE, &few, nullptr), 0);
  std::vector<int> connections;
  for (int i = 0; i < 120; ++i) {
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", m_daemon->socket_path().c_str());
    if (connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      close(fd); // the backlog is full: enough
      break;
    }
    connections.push_back(fd);
  }
  ASSERT_GT(connections.size(), 64u) << "the daemon never ran out of descriptors";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::chrono::milliseconds before = cpu_time_of(m_daemon->pid());
  std::this_thread::sleep_for(std::chrono::seconds(2));
  std::chrono::milliseconds spent = cpu_time_of(m_daemon->pid()) - before;
  // A spinning accept loop burns the whole two seconds; pausing after each EMFILE, almost none.
  EXPECT_LT(spent, std::chrono::milliseconds(400));
  for (int fd : connections) {
    close(fd);
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  EXPECT_EQ(resolve(*m_daemon, k_sr_module_hash, "d4r_test_layer").outcome(),
            pb::ResolveReply::READY);
}

TEST(DaemonStartup, SecondDaemonOnTheSameSocketRefusesToStart)
{
  TempDir dir;
  DaemonProcess first(DaemonOptions(dir.path()));
  ASSERT_TRUE(first.start());
  std::string command = daemon_binary().string() + " --foreground --gpu-arch gfx1101 --socket '" +
                        first.socket_path().string() + "' --cache-dir '" +
                        (dir.path() / "cache2").string() + "' 2>" + (dir.path() / "err").string();
  int status = std::system(command.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 1);
  EXPECT_NE(read_file(dir.path() / "err").find("already listening"), std::string::npos)
      << read_file(dir.path() / "err");
  EXPECT_GE(first.counter("connections"), 1) << "the first daemon still answers";
}

TEST(DaemonStartup, SocketFolderAndSocketArePrivate)
{
  TempDir dir;
  DaemonProcess daemon(DaemonOptions(dir.path()));
  ASSERT_TRUE(daemon.start());
  struct stat folder {};
  struct stat socket {};
  ASSERT_EQ(stat(daemon.socket_path().parent_path().c_str(), &folder), 0);
  ASSERT_EQ(stat(daemon.socket_path().c_str(), &socket), 0);
  EXPECT_EQ(folder.st_mode & 0777, 0700u);
  EXPECT_EQ(socket.st_mode & 0777, 0600u);
  EXPECT_EQ(daemon.stop(), 0);
  EXPECT_FALSE(std::filesystem::exists(daemon.socket_path())) << "socket removed at exit";
}

// Runs the daemon on `socket` with its own cache; its exit status, or -1 if still running after
// `wait` (then it is stopped).
pid_t spawn_daemon(const std::filesystem::path& socket, const std::filesystem::path& cache,
                   const std::filesystem::path& err)
{
  pid_t pid = fork();
  if (pid == 0) {
    int fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    dup2(fd, STDERR_FILENO);
    std::string binary = daemon_binary().string();
    std::string socket_text = socket.string();
    std::string cache_text = cache.string();
    const char* argv[] = {binary.c_str(), "--foreground", "--gpu-arch", "gfx1101", "--socket",
                          socket_text.c_str(), "--cache-dir", cache_text.c_str(), nullptr};
    execv(argv[0], const_cast<char* const*>(argv));
    _exit(127);
  }
  return pid;
}

TEST(DaemonStartup, DaemonsStartedAtOnceOnOneSocketLeaveExactlyOneServing)
{
  TempDir dir;
  std::filesystem::path socket = dir.path() / "run" / "socket";
  std::vector<pid_t> pids;
  for (int i = 0; i < 6; ++i) {
    pids.push_back(spawn_daemon(socket, dir.path() / ("cache" + std::to_string(i)),
                                dir.path() / ("err" + std::to_string(i))));
  }
  std::this_thread::sleep_for(std::chrono::seconds(3));
  int serving = 0;
  int refused = 0;
  for (size_t i = 0; i < pids.size(); ++i) {
    int status = 0;
    if (waitpid(pids[i], &status, WNOHANG) == 0) {
      ++serving;
      continue;
    }
    std::string err = read_file(dir.path() / ("err" + std::to_string(i)));
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1) << err;
    EXPECT_NE(err.find("already listening"), std::string::npos) << err;
    ++refused;
    pids[i] = -1;
  }
  EXPECT_EQ(serving, 1);
  EXPECT_EQ(refused, 5);
  EXPECT_TRUE(std::filesystem::exists(socket)) << "the one serving lost its socket";
  for (pid_t pid : pids) {
    if (pid > 0) {
      kill(pid, SIGTERM);
      waitpid(pid, nullptr, 0);
    }
  }
}

TEST(DaemonStartup, AnExistingSocketFolderIsCheckedNotChanged)
{
  TempDir dir;
  std::filesystem::path home = dir.path() / "home";
  std::filesystem::create_directories(home);
  ::chmod(home.c_str(), 0755);
  DaemonOptions options(dir.path());
  options.extra_args = {"--socket", (home / "k.sock").string()};
  {
    DaemonProcess daemon(options);
    pid_t pid = spawn_daemon(home / "k.sock", dir.path() / "cache", dir.path() / "err");
    std::this_thread::sleep_for(std::chrono::seconds(2));
    EXPECT_EQ(waitpid(pid, nullptr, WNOHANG), 0) << read_file(dir.path() / "err");
    struct stat info {};
    ASSERT_EQ(stat(home.c_str(), &info), 0);
    EXPECT_EQ(info.st_mode & 0777, 0755u) << "the daemon changed a folder it did not make";
    kill(pid, SIGTERM);
    waitpid(pid, nullptr, 0);
  }
  // A folder others may write to could have the socket replaced under us: refused, unchanged.
  ::chmod(home.c_str(), 0777);
  pid_t pid = spawn_daemon(home / "k.sock", dir.path() / "cache", dir.path() / "err");
  int status = 0;
  waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 1);
  EXPECT_NE(read_file(dir.path() / "err").find("is writable by others (mode 0777)"), std::string::npos)
      << read_file(dir.path() / "err");
  struct stat info {};
  ASSERT_EQ(stat(home.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0777u);
}

} // namespace
} // namespace d4r::testing
