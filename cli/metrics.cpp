#include "cli/metrics.hpp"

#include "cli/daemon_client.hpp"
#include "cli/exit_code.hpp"
#include "cli/json_writer.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/grpcpp.h>

#include <chrono>

namespace d4r::cli {

namespace {

namespace pb = ::d4r::kernel::v1;

constexpr std::string_view k_help = R"(usage: d4r-kernel metrics [--json]

Prints the daemon's counters as a Prometheus text-format scrape (exposition format 0.0.4): per
accuracy mode (label mode="fast|accuracy") hits, misses by reason (label reason=...: new, evicted,
stale_toolchain, stale_translator, corrupt, unlisted_hash, rejected, unsupported_instruction,
build_failed, host_variables, tensor_maps, no_replacement, no_module, busy, in_flight, error),
build times (a histogram), bytes served, built and stored, the stores' trash; per game (label
game=..., the executable name its client sent) hits, misses and builds. Nothing is sent anywhere:
for a scrape, run it from a node exporter's textfile collector, e.g.
  d4r-kernel metrics > /var/lib/node_exporter/d4r.prom.tmp && mv ... d4r.prom

exit status: 0 success, 5 the daemon is unreachable or failed the call
)";

int fail(Io& io, bool json, const std::string& message)
{
  io.err << "d4r-kernel: " << message << "\n";
  if (json) {
    JsonWriter doc;
    doc.begin_object().key("error").begin_object();
    doc.key("message").string(message).key("exit_code").number(to_int(ExitCode::daemon));
    doc.end_object().end_object();
    io.out << doc.text() << "\n";
  }
  return to_int(ExitCode::daemon);
}

} // namespace

int run_metrics(const GlobalOptions& global, Io& io)
{
  auto stub = pb::KernelService::NewStub(grpc::CreateChannel(
      "unix:" + global.socket, grpc::InsecureChannelCredentials()));
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(global.timeout_ms));
  pb::MetricsReply reply;
  grpc::Status status = stub->Metrics(&context, pb::MetricsRequest(), &reply);
  if (!status.ok()) {
    return fail(io, global.json, rpc_error(status, global.socket, "Metrics", global.timeout_ms).message);
  }
  if (global.json) {
    JsonWriter doc;
    doc.begin_object().key("text").string(reply.text()).end_object();
    io.out << doc.text() << "\n";
  } else {
    io.out << reply.text();
  }
  return to_int(ExitCode::success);
}

std::string_view metrics_help()
{
  return k_help;
}

} // namespace d4r::cli
