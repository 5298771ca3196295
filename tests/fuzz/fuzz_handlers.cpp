// libFuzzer target for the daemon's gRPC handlers (daemon/kernel_service.cpp, wire.cpp and the
// KernelCore calls behind them): the first byte of an input picks a method, the rest is sent as
// that method's request message, byte for byte, to the real KernelService on an in-process gRPC
// server. gRPC decodes it as it decodes a client's; the handler converts, checks and answers over
// a temporary cache (real SQLite, real files) serving the release fixture, with the shipped
// recipes and a worker that always fails (no compiler runs). A crash, a sanitizer report, a hang
// past the deadline or a reply the client cannot decode is a finding; so is a READY answer whose
// bytes do not hash to the digest it names.
//
// Import requests naming a directory are not sent: the target must
// not read the machine's files. The Import of the configured release (a part of the fixture) is.

#include "daemon/config.hpp"
#include "daemon/kernel_core.hpp"
#include "daemon/kernel_service.hpp"
#include "daemon/task_pool.hpp"
#include "util/digest.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <google/protobuf/stubs/logging.h>
#include <grpcpp/grpcpp.h>
#include <grpcpp/impl/client_unary_call.h>
#include <grpcpp/impl/rpc_method.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <unistd.h>

namespace {

namespace pb = ::d4r::kernel::v1;

constexpr const char* k_methods[] = {"Prepare", "PutModule", "Resolve", "Build",
                                     "Status",  "Import",    "List",    "Purge"};

[[noreturn]] void fail(const std::string& what)
{
  std::fprintf(stderr, "fuzz_handlers: %s\n", what.c_str());
  std::abort();
}

// One daemon for the whole run, as a real one serves many requests.
struct World {
  std::filesystem::path root;
  std::filesystem::path release; // a part of the release fixture, copied
  std::unique_ptr<d4r::daemon::KernelCore> core;
  std::unique_ptr<d4r::daemon::TaskPool> pool;
  std::unique_ptr<d4r::daemon::KernelService> service;
  std::unique_ptr<grpc::Server> server;
  std::shared_ptr<grpc::Channel> channel;

  World()
  {
    spdlog::set_level(spdlog::level::off); // every refused request logs a line
    google::protobuf::SetLogHandler(nullptr); // and protobuf each string that is not UTF-8
    std::string pattern = (std::filesystem::temp_directory_path() / "d4r-fuzz-handlers-XXXXXX").string();
    if (mkdtemp(pattern.data()) == nullptr) {
      fail("mkdtemp failed");
    }
    root = pattern;
    // The release fixture's gfx1101 and gfx1201 folders (fast, fp8, accuracy): an Import after a
    // Purge re-imports all of it, which must stay well inside the deadline on a loaded machine.
    const std::filesystem::path fixture = std::filesystem::path(D4R_BINARY_DIR) / "fixtures" / "release";
    release = root / "release";
    for (const char* folder : {"gfx1101", "gfx1201", "gfx1201-fp8", "accuracy"}) {
      std::error_code error;
      std::filesystem::create_directories(release / folder, error);
      std::filesystem::copy(fixture / folder, release / folder,
                            std::filesystem::copy_options::recursive, error);
      if (error) {
        fail("copying the release fixture: " + error.message());
      }
    }
    d4r::daemon::DaemonConfig config;
    config.cache_dir = root / "cache";
    config.native_dir = release;
    config.recipes_dir = std::filesystem::path(D4R_SOURCE_DIR) / "kernels" / "recipes";
    config.worker = "/bin/false"; // builds fail at once, as a broken worker's would
    config.build_jobs = 1;
    config.max_ptx_bytes = 1 << 20;
    config.cache_max_bytes = 8 << 20;
    d4r::Expected<std::unique_ptr<d4r::daemon::KernelCore>> created =
        d4r::daemon::KernelCore::create(config, "gfx1101");
    if (!created) {
      fail("KernelCore::create: " + created.error().message);
    }
    core = std::move(*created);
    pool = std::make_unique<d4r::daemon::TaskPool>(2, 64);
    service = std::make_unique<d4r::daemon::KernelService>(*core, *pool);
    grpc::ServerBuilder builder;
    builder.RegisterService(service.get());
    builder.SetMaxReceiveMessageSize(static_cast<int>(config.max_ptx_bytes + (1 << 20)));
    server = builder.BuildAndStart();
    if (!server) {
      fail("the in-process gRPC server did not start");
    }
    channel = server->InProcessChannel(grpc::ChannelArguments());
  }

  // Joins every thread of the daemon's (the gRPC server's, the request pool's, the build and
  // housekeeping threads KernelCore owns): libFuzzer ends the run with exit(), whose static
  // destructors must not run under a thread still serving (ASan saw a use after free there in
  // 3 of 16 eight-minute runs).
  void stop()
  {
    server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
    server->Wait();
    pool->shutdown();
    service.reset();
    core.reset();
  }
};

World* g_world = nullptr;

World& world()
{
  if (g_world == nullptr) {
    // Never destroyed: libFuzzer leaves by _Exit after a finding, from any thread. A run that
    // ends normally leaves by exit(): the world's threads are stopped first.
    g_world = new World();
    std::atexit([] {
      g_world->stop();
      std::error_code ignored;
      std::filesystem::remove_all(g_world->root, ignored);
    });
  }
  return *g_world;
}

// Import only of the configured release (an empty directory).
bool import_allowed(const std::string& payload)
{
  pb::ImportRequest request;
  if (!request.ParseFromString(payload)) {
    return true; // gRPC refuses it before the handler
  }
  return request.directory().empty();
}

void check_reply(const std::string& method, const std::string& bytes)
{
  if (method != "Resolve" && method != "Build") {
    return;
  }
  pb::ResolveReply reply;
  if (!reply.ParseFromString(bytes)) {
    fail(method + ": the reply does not decode");
  }
  if (reply.outcome() != pb::ResolveReply::READY || !reply.object().has_data()) {
    return;
  }
  d4r::Sha256 digest = d4r::sha256(std::string_view(reply.object().data()));
  if (std::string(digest.begin(), digest.end()) != reply.object().sha256()) {
    fail(method + ": READY bytes do not hash to the digest they are served with");
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  if (size == 0) {
    return 0;
  }
  const std::string method = k_methods[data[0] % std::size(k_methods)];
  const std::string payload(reinterpret_cast<const char*>(data + 1), size - 1);
  if (method == "Import" && !import_allowed(payload)) {
    return 0;
  }
  World& w = world();
  grpc::Slice slice(payload);
  grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  // A hang, not a slow machine: under libFuzzer's -timeout of 10 s (run_fuzzer.sh).
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(8));
  const std::string path = "/d4r.kernel.v1.KernelService/" + method; // RpcMethod keeps the pointer
  grpc::internal::RpcMethod rpc(path.c_str(), grpc::internal::RpcMethod::NORMAL_RPC);
  grpc::Status status = grpc::internal::BlockingUnaryCall<grpc::ByteBuffer, grpc::ByteBuffer>(
      w.channel.get(), rpc, &context, request, &response);
  if (status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED) {
    fail(method + ": no answer within 8 s");
  }
  if (!status.ok()) {
    return 0;
  }
  std::vector<grpc::Slice> slices;
  if (!response.Dump(&slices).ok()) {
    fail(method + ": the reply cannot be read");
  }
  std::string bytes;
  for (const grpc::Slice& part : slices) {
    bytes.append(reinterpret_cast<const char*>(part.begin()), part.size());
  }
  check_reply(method, bytes);
  return 0;
}
