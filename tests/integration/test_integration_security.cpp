// The daemon as an attacker on the same machine meets it: a peer of another uid on the socket,
// path tricks in every name and path a request, a recipe or a release manifest carries (../,
// absolute paths, NUL, very long names), and malformed or oversized protobuf into every method.
// Each is refused with the reason, no file outside the cache is created or changed, and the
// daemon serves on. (The libFuzzer target tests/fuzz/fuzz_handlers.cpp goes further in process.)

#include "damage_support.hpp"

#include "util/digest.hpp"
#include "util/kernel_identity.hpp"

#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/rpc_method.h>
#include <gtest/gtest.h>

#include <grp.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <functional>
#include <map>

namespace d4r::testing {
namespace {

// Connects as `uid` (a forked child that drops to it) and reports what the daemon did: 0 when it
// closed the connection unread, 1 when it answered the HTTP/2 preface, 2 when no connection.
int connect_as(uid_t uid, gid_t gid, const std::filesystem::path& socket_path)
{
  pid_t child = fork();
  if (child == 0) {
    if (setgroups(0, nullptr) != 0 || setgid(gid) != 0 || setuid(uid) != 0) {
      _exit(3);
    }
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::snprintf(address.sun_path, sizeof(address.sun_path), "%s", socket_path.c_str());
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, reinterpret_cast<const sockaddr*>(&address), sizeof(address)) != 0) {
      _exit(2);
    }
    // The HTTP/2 client preface and an empty SETTINGS frame: a gRPC server answers with its own.
    static const char k_preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\0\0\0\4\0\0\0\0\0";
    (void)!send(fd, k_preface, sizeof(k_preface) - 1, MSG_NOSIGNAL);
    struct timeval timeout {5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
    char byte = 0;
    ssize_t n = read(fd, &byte, 1);
    _exit(n > 0 ? 1 : 0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(Security, APeerOfAnotherUidIsRefusedBeforeGrpcReadsAByte)
{
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to connect as another uid (uid " << geteuid() << ")";
  }
  const passwd* nobody = getpwnam("nobody");
  ASSERT_NE(nobody, nullptr);
  TempDir dir;
  ::chmod(dir.path().c_str(), 0755);
  DaemonProcess daemon(DaemonOptions{dir.path()});
  ASSERT_TRUE(daemon.start());
  // The folder (0700) and the socket (0600) keep others out already; opened here so that the
  // daemon's own uid check is what stands in the way.
  for (std::filesystem::path path = daemon.socket_path().parent_path(); path != dir.path();
       path = path.parent_path()) {
    ASSERT_EQ(::chmod(path.c_str(), 0755), 0);
  }
  ASSERT_EQ(::chmod(daemon.socket_path().c_str(), 0666), 0);
  EXPECT_EQ(connect_as(getuid(), getgid(), daemon.socket_path()), 1) << "the same uid is served";
  EXPECT_EQ(connect_as(nobody->pw_uid, nobody->pw_gid, daemon.socket_path()), 0)
      << "another uid's connection was answered";
  EXPECT_EQ(daemon.counter("peer_refused"), 1);
  Checker checker;
  EXPECT_EQ(checker.round(daemon).not_served, 0);
}

// Every file under `root` with its size and modification time, but those under `skip`.
std::map<std::string, std::pair<int64_t, int64_t>> tree_of(const std::filesystem::path& root,
                                                           const std::vector<std::string>& skip)
{
  std::map<std::string, std::pair<int64_t, int64_t>> tree;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(root, error), end; !error && it != end;
       it.increment(error)) {
    std::string relative = std::filesystem::relative(it->path(), root).string();
    bool skipped = false;
    for (const std::string& prefix : skip) {
      skipped = skipped || relative.starts_with(prefix);
    }
    struct stat info {};
    if (!skipped && ::lstat(it->path().c_str(), &info) == 0) {
      tree[relative] = {info.st_size, info.st_mtim.tv_sec * 1000000000LL + info.st_mtim.tv_nsec};
    }
  }
  return tree;
}

std::vector<std::string> tricky_names()
{
  return {"../d4r_test_layer",
          "../../../../tmp/x",
          "/etc/passwd",
          "..",
          ".",
          "a/b",
          "a\\b",
          std::string("d4r_test_layer\0/../x", 20),
          std::string(1, '\0'),
          std::string(k_max_kernel_name + 1, 'k'),
          std::string(1 << 20, 'k'),
          "d4r_test_layer\n",
          "d4r test layer",
          "\xff\xfe",
          ""};
}

template <typename Request, typename Reply, typename Call>
grpc::Status call(const DaemonProcess& daemon, const Request& request, Reply& reply, Call method)
{
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return (stub_of(daemon).get()->*method)(&context, request, &reply);
}

TEST(Security, PathTricksInEveryNameARequestCarriesAreRejectedAndTouchNothingOutside)
{
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "outside");
  std::ofstream(dir.path() / "outside" / "secret.hsaco") << "secret";
  DaemonOptions options{dir.path()};
  options.recipes_dir = shipped_recipes();
  options.log_file = dir.path() / "daemon.log";
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  const std::vector<std::string> skip = {"cache", "run", "daemon.log"};
  const auto before = tree_of(dir.path(), skip);
  int rejected = 0;
  for (const std::string& name : tricky_names()) {
    SCOPED_TRACE(::testing::PrintToString(name.substr(0, 40)));
    // As a kernel name and as a target, in Resolve and in Build.
    for (bool as_target : {false, true}) {
      pb::ResolveRequest resolve;
      resolve.set_module_hash(k_sr_module_hash);
      resolve.set_kernel(as_target ? "d4r_test_layer" : name);
      resolve.mutable_selection()->set_target(as_target ? name : "gfx1101");
      pb::ResolveReply reply;
      // (Bytes that are not UTF-8 never leave the client: protobuf refuses to send them.)
      grpc::Status status = call(daemon, resolve, reply, &pb::KernelService::Stub::Resolve);
      if (status.ok() && !(as_target && name.empty())) { // no target: the detected GPU's
        EXPECT_EQ(reply.outcome(), pb::ResolveReply::REJECTED) << reply.reason();
        EXPECT_FALSE(reply.reason().empty());
        rejected += reply.outcome() == pb::ResolveReply::REJECTED ? 1 : 0;
      }
      pb::BuildRequest build;
      build.set_kernel(as_target ? "d4r_example_layer" : name);
      build.mutable_selection()->set_target(as_target ? name : "gfx1101");
      build.set_wait_budget_ms(1);
      pb::ResolveReply built;
      status = call(daemon, build, built, &pb::KernelService::Stub::Build);
      EXPECT_TRUE(!status.ok() || built.outcome() != pb::ResolveReply::READY) << built.reason();
    }
    // As a Prepare entry: never listed as servable.
    pb::PrepareRequest prepare;
    prepare.mutable_module()->set_fnv1a64(k_sr_module_hash);
    prepare.add_entries(name);
    prepare.add_entries("d4r_test_layer");
    pb::PrepareReply prepared;
    grpc::Status status = call(daemon, prepare, prepared, &pb::KernelService::Stub::Prepare);
    if (status.ok()) {
      for (const std::string& entry : prepared.servable_entries()) {
        EXPECT_EQ(entry, "d4r_test_layer");
      }
    }
    // As an import directory (a real path of this user's choosing is allowed: the CLI's import;
    // what does not exist or is not a release is an error, and nothing is written there).
    pb::ImportRequest import;
    if (!name.empty()) { // empty: the configured release
      import.set_directory((dir.path() / "outside" / name).string());
      pb::ImportReply imported;
      status = call(daemon, import, imported, &pb::KernelService::Stub::Import);
      EXPECT_EQ(imported.imported(), 0);
    }
  }
  // A module digest that is not 32 bytes, a module hash with bytes that do not match it.
  for (const std::string& digest : {std::string("../../x"), std::string(31, 'a'), std::string()}) {
    pb::PutModuleRequest put;
    put.mutable_module()->set_fnv1a64(1);
    put.mutable_module()->set_sha256(digest);
    put.set_ptx(".version 8.0\n");
    pb::PutModuleReply reply;
    EXPECT_EQ(call(daemon, put, reply, &pb::KernelService::Stub::PutModule).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
  }
  EXPECT_TRUE(before == tree_of(dir.path(), skip)) << "a file outside the cache changed";
  // Inside the cache, no name came from a request.
  for (const std::filesystem::path& file : files_under(daemon.cache_dir())) {
    EXPECT_EQ(file.string().find(".."), std::string::npos) << file;
  }
  Checker checker;
  EXPECT_EQ(checker.round(daemon).not_served, 0);
  std::printf("security: %d tricky names, %d REJECTED answers; nothing outside the cache changed\n",
              static_cast<int>(tricky_names().size()), rejected);
}

// A release manifest naming ../ and absolute entries: refused by name, nothing outside is read
// into the cache, the good entries serve.
TEST(Security, PathTricksInAReleaseManifestAreRefused)
{
  TempDir dir;
  std::filesystem::path release = dir.path() / "release";
  std::filesystem::create_directories(release / "gfx1101");
  std::filesystem::copy_file(release_fixture() / "gfx1101" / "d4r_test_layer.hsaco",
                             release / "gfx1101" / "d4r_test_layer.hsaco");
  // A valid object outside the release, which a ../ entry would reach.
  std::filesystem::copy_file(release_fixture() / "gfx1101" / "d4r_test_simple.hsaco",
                             dir.path() / "d4r_test_simple.hsaco");
  std::ofstream(release / "gfx1101" / "d4r-kernels.txt")
      << "# sr 8baeb925f177af87 sr_module.ptx\n"
      << "d4r_test_layer 8baeb925f177af87 sr\n"
      << "../d4r_test_simple 8baeb925f177af87 sr\n"
      << dir.path().string() << "/d4r_test_simple 8baeb925f177af87 sr\n";
  DaemonOptions options{dir.path()};
  options.native_dir = release;
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  pb::ImportRequest request;
  pb::ImportReply imported;
  ASSERT_TRUE(call(daemon, request, imported, &pb::KernelService::Stub::Import).ok());
  EXPECT_EQ(imported.imported(), 1);
  int refused = 0;
  for (const std::string& problem : imported.problems()) {
    refused += problem.find("d4r_test_simple") != std::string::npos ? 1 : 0;
  }
  EXPECT_EQ(refused, 2) << ::testing::PrintToString(imported.problems());
  for (const std::string& problem : imported.problems()) {
    EXPECT_NE(problem.find("has a character outside"), std::string::npos) << problem;
  }
  pb::ListReply list;
  ASSERT_TRUE(call(daemon, pb::ListRequest(), list, &pb::KernelService::Stub::List).ok());
  ASSERT_EQ(list.entries_size(), 1);
  EXPECT_EQ(list.entries(0).kernel(), "d4r_test_layer");
}

// Bytes that are no protobuf of the method's request, and messages past the size limit, into
// every method: an error status each, and the daemon serves on.
TEST(Security, MalformedAndOversizedMessagesIntoEveryMethod)
{
  TempDir dir;
  DaemonOptions options{dir.path()};
  options.extra_args = {"--max-ptx-bytes", "1M"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  auto channel = grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                     grpc::InsecureChannelCredentials());
  const std::vector<std::string> methods = {"Prepare", "PutModule", "Resolve", "Build",
                                            "Status",  "Import",    "List",    "Purge"};
  const std::vector<std::string> payloads = {
      std::string("\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 10), // a varint that never ends
      std::string("\x0a\xff\xff\xff\xff\x0f", 6),                 // a 4 GiB length-delimited field
      std::string("\x12\x05" "ab", 4),                            // a field cut short
      std::string("\x07", 1),                                     // wire type 7
      std::string(3 << 20, '\x0a'),                               // 3 MiB, over the 1 MiB limit
  };
  int errors = 0;
  for (const std::string& method : methods) {
    for (const std::string& payload : payloads) {
      grpc::Slice slice(payload);
      grpc::ByteBuffer request(&slice, 1);
      grpc::ByteBuffer response;
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
      const std::string path = "/d4r.kernel.v1.KernelService/" + method; // RpcMethod keeps it
      grpc::internal::RpcMethod rpc(path.c_str(), grpc::internal::RpcMethod::NORMAL_RPC);
      grpc::Status status = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
          channel.get(), rpc, &context, request, &response);
      // Status, List and Purge may read an empty message out of some of these; the rest fail.
      errors += status.ok() ? 0 : 1;
      ASSERT_TRUE(process_alive(daemon.pid())) << method;
    }
  }
  EXPECT_GE(errors, static_cast<int>(methods.size()) * 3);
  Checker checker;
  EXPECT_EQ(checker.round(daemon).not_served, 0);
  std::printf("security: %d malformed or oversized messages, %d refused, the daemon serves on\n",
              static_cast<int>(methods.size() * payloads.size()), errors);
}

} // namespace
} // namespace d4r::testing
