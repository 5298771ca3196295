// d4r-load-agitator SOCKET SUMMARY PERIOD_MS: the second process of the load run (d4r-load). Until
// SIGTERM it cycles, every PERIOD_MS: a Purge (fast, accuracy, then both: the objects the load's
// clients read go, so their next resolves import or build them again), a Build of a recipe kernel
// for a target and mode the clients do not ask for (a miss that builds), and two PutModule
// uploads of 16 KiB to 2 MiB. It checks every answer and writes one summary line to SUMMARY:
//   builds=N ready=N pending=N refused=N uploads=N upload_refused=N purges=N errors=N
// An answer the daemon's bounds give ("build queue full", "request queue full", "upload memory")
// is refused, not an error; a build that fails, a transport error or a failed purge is an error.
// It links the generated protocol, which the load's own process (the C client's) must not.

#include "d4r/kernel/v1/kernel.grpc.pb.h"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <grpcpp/create_channel.h>

#include <csignal>
#include <cstdio>
#include <fstream>
#include <random>
#include <string>
#include <thread>

namespace {

namespace pb = ::d4r::kernel::v1;
using namespace std::chrono_literals;

volatile std::sig_atomic_t g_stop = 0;

void on_term(int /*signal*/)
{
  g_stop = 1;
}

constexpr const char* k_kernels[] = {"d4r_example_layer", "d4r_example_wave64",
                                     "d4r_example_accuracy", "d4r_example_fp8"};
// The load's clients resolve for gfx1101: these builds are the agitator's own misses.
constexpr const char* k_targets[] = {"gfx1100", "gfx1102", "gfx1103", "gfx1200", "gfx1201"};

struct Tally {
  int64_t builds = 0;
  int64_t ready = 0;
  int64_t pending = 0;
  int64_t refused = 0;
  int64_t uploads = 0;
  int64_t upload_refused = 0;
  int64_t purges = 0;
  int64_t errors = 0;
};

bool is_bound(const std::string& reason)
{
  return reason.find("queue full") != std::string::npos ||
         reason.find("upload memory") != std::string::npos;
}

void error(Tally& tally, const std::string& what)
{
  ++tally.errors;
  std::fprintf(stderr, "d4r-load-agitator: error: %s\n", what.c_str());
}

void build(pb::KernelService::Stub& stub, int64_t cycle, Tally& tally)
{
  pb::BuildRequest request;
  const char* kernel = k_kernels[cycle % 4];
  const char* target = k_targets[(cycle / 4) % 5];
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(cycle % 2 == 0 ? pb::MODE_FAST : pb::MODE_ACCURACY);
  request.set_wait_budget_ms(60000);
  request.set_accept_path(true);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 90s);
  grpc::Status status = stub.Build(&context, request, &reply);
  ++tally.builds;
  std::string what = std::string("build ") + kernel + " for " + target;
  if (!status.ok()) {
    error(tally, what + ": " + status.error_message());
  } else if (reply.outcome() == pb::ResolveReply::READY) {
    ++tally.ready;
  } else if (reply.outcome() == pb::ResolveReply::PENDING) {
    ++tally.pending;
  } else if (reply.outcome() == pb::ResolveReply::REJECTED && is_bound(reply.reason())) {
    ++tally.refused;
  } else {
    error(tally, what + ": outcome " + std::to_string(reply.outcome()) + ": " + reply.reason());
  }
}

void upload(pb::KernelService::Stub& stub, std::mt19937_64& random, Tally& tally)
{
  size_t size = std::uniform_int_distribution<size_t>(16 << 10, 2 << 20)(random);
  std::string ptx = "// d4r load module " + std::to_string(random()) + "\n";
  ptx.reserve(size);
  while (ptx.size() < size) {
    ptx += static_cast<char>('a' + random() % 26);
  }
  pb::PutModuleRequest request;
  request.mutable_module()->set_fnv1a64(d4r::ptx_module_hash(ptx));
  d4r::Sha256 digest = d4r::sha256(ptx);
  request.mutable_module()->set_sha256(digest.data(), digest.size());
  request.set_ptx(std::move(ptx));
  pb::PutModuleReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 30s);
  grpc::Status status = stub.PutModule(&context, request, &reply);
  ++tally.uploads;
  if (status.ok() && reply.stored_bytes() == static_cast<int64_t>(size)) {
    return;
  }
  if (status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED && is_bound(status.error_message())) {
    ++tally.upload_refused;
    return;
  }
  error(tally, "upload of " + std::to_string(size) + " bytes: " +
                   (status.ok() ? "stored " + std::to_string(reply.stored_bytes())
                                : status.error_message()));
}

void purge(pb::KernelService::Stub& stub, int64_t cycle, Tally& tally)
{
  pb::PurgeRequest request;
  pb::Mode modes[] = {pb::MODE_FAST, pb::MODE_ACCURACY, pb::MODE_UNSPECIFIED};
  request.set_mode(modes[cycle % 3]);
  pb::PurgeReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + 30s);
  grpc::Status status = stub.Purge(&context, request, &reply);
  ++tally.purges;
  if (!status.ok()) {
    error(tally, "purge: " + status.error_message());
  }
}

} // namespace

int main(int argc, char** argv)
{
  if (argc != 4) {
    std::fprintf(stderr, "usage: d4r-load-agitator SOCKET SUMMARY PERIOD_MS\n");
    return 2;
  }
  std::signal(SIGTERM, on_term);
  auto period = std::chrono::milliseconds(std::max(10, std::atoi(argv[3])));
  auto stub = pb::KernelService::NewStub(
      grpc::CreateChannel(std::string("unix:") + argv[1], grpc::InsecureChannelCredentials()));
  std::mt19937_64 random(0xd4c0ffee);
  Tally tally;
  for (int64_t cycle = 0; !g_stop; ++cycle) {
    auto start = std::chrono::steady_clock::now();
    purge(*stub, cycle, tally);
    build(*stub, cycle, tally);
    upload(*stub, random, tally);
    upload(*stub, random, tally);
    while (!g_stop && std::chrono::steady_clock::now() - start < period) {
      std::this_thread::sleep_for(10ms);
    }
  }
  std::ofstream summary(argv[2]);
  summary << "builds=" << tally.builds << " ready=" << tally.ready << " pending=" << tally.pending
          << " refused=" << tally.refused << " uploads=" << tally.uploads
          << " upload_refused=" << tally.upload_refused << " purges=" << tally.purges
          << " errors=" << tally.errors << "\n";
  return summary ? 0 : 1;
}
