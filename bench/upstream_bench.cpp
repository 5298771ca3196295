// A handheld's daemon served by a build server (--upstream) over loopback TLS, against its own
// store and its own compiler, in one run: the latency of a remote hit (FetchObject over TLS with a
// token, the signature checked, the object kept locally, then answered), of a local hit of the same
// object, and of a cold build of it here, which is what the upstream saves.
// usage: d4r-bench-upstream [REPEATS=40]

#include "bench/build_rpc.hpp"
#include "daemon_process.hpp"
#include "tls_loopback.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"
#include "tests/support/tool_run.hpp"
#include "util/tokens.hpp"

#include <grpcpp/create_channel.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace pb = ::d4r::kernel::v1;
using namespace d4r::testing;
using d4r::bench::purge;

// One Build RPC of d4r_example_layer for gfx1101; milliseconds, or -1 when not READY.
double timed_build(pb::KernelService::Stub& stub)
{
  return d4r::bench::timed_build("d4r-bench-upstream", stub, "d4r_example_layer", "gfx1101",
                                 pb::MODE_FAST);
}

constexpr const char* k_token = "d4r_token-of-the-bench-handheld-only-0000000000";

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  return pb::KernelService::NewStub(grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                                        grpc::InsecureChannelCredentials()));
}

double quantile(std::vector<double> values, double q)
{
  std::sort(values.begin(), values.end());
  return values.empty() ? 0 : values[static_cast<size_t>(q * static_cast<double>(values.size() - 1))];
}

DaemonOptions host(const std::filesystem::path& root)
{
  std::filesystem::create_directories(root);
  DaemonOptions options(root);
  options.native_dir = std::filesystem::path();
  options.recipes_dir = shipped_recipes();
  options.log_file = root / "daemon.log";
  return options;
}

void print(const char* what, const std::vector<double>& ms)
{
  std::printf("%-52s p50 %8.2f ms   p99 %8.2f ms   (%zu)\n", what, quantile(ms, 0.5),
              quantile(ms, 0.99), ms.size());
}

} // namespace

int main(int argc, char** argv)
{
  const int repeats = argc > 1 ? std::max(1, std::atoi(argv[1])) : 40;
  TempDir dir;
  if (!openssl_installed() || !make_certificates(dir.path())) {
    std::fprintf(stderr, "d4r-bench-upstream: the openssl tool could not make the test CA\n");
    return 1;
  }
  d4r::TokenFile tokens;
  tokens.clients.push_back({"handheld", d4r::token_hash(k_token), 1764680000, 0});
  if (!d4r::write_token_file(dir.path() / "tokens", tokens)) {
    return 1;
  }
  std::ofstream(dir.path() / "handheld.token") << k_token << "\n";
  std::string cli = (std::filesystem::path(D4R_BINARY_DIR) / "cli" / "d4r-kernel").string();
  ToolRun key = run_tool({cli, "key", "show", "--key-file", (dir.path() / "signing.key").string()});
  std::string pinned = key.output.substr(0, key.output.find('\n'));

  const int port = free_port();
  DaemonOptions server_options = host(dir.path() / "desktop");
  server_options.extra_args = {"--listen", "127.0.0.1:" + std::to_string(port),
                               "--tls-cert", (dir.path() / "server.crt").string(),
                               "--tls-key", (dir.path() / "server.key").string(),
                               "--token-file", (dir.path() / "tokens").string(),
                               "--signing-key", (dir.path() / "signing.key").string()};
  DaemonProcess server(server_options);
  if (!server.start() || !wait_for_port(port) || timed_build(*stub_of(server)) < 0) {
    std::fprintf(stderr, "d4r-bench-upstream: the build server did not start or build\n");
    return 1;
  }
  DaemonOptions deck_options = host(dir.path() / "deck");
  deck_options.extra_args = {"--upstream", "127.0.0.1:" + std::to_string(port),
                             "--upstream-ca", (dir.path() / "ca.crt").string(),
                             "--upstream-token-file", (dir.path() / "handheld.token").string(),
                             "--upstream-key", pinned, "--upstream-budget-ms", "2000",
                             "--verify-remote-sample", "0"};
  DaemonProcess deck(deck_options);
  DaemonProcess alone(host(dir.path() / "alone")); // no upstream: builds what it lacks
  if (!deck.start() || !alone.start()) {
    std::fprintf(stderr, "d4r-bench-upstream: a daemon did not start\n");
    return 1;
  }
  auto deck_stub = stub_of(deck);
  auto alone_stub = stub_of(alone);
  std::vector<double> remote_hit;
  std::vector<double> local_hit;
  std::vector<double> local_build;
  for (int i = 0; i < repeats; ++i) {
    purge(*deck_stub);
    remote_hit.push_back(timed_build(*deck_stub));
    local_hit.push_back(timed_build(*deck_stub));
  }
  for (int i = 0; i < std::max(3, repeats / 8); ++i) {
    purge(*alone_stub);
    local_build.push_back(timed_build(*alone_stub));
  }
  pb::StatusReply status;
  grpc::ClientContext context;
  static_cast<void>(deck_stub->Status(&context, pb::StatusRequest(), &status));
  int64_t fetched = 0;
  for (const pb::TierHealth& tier : status.tiers()) {
    fetched += tier.name().starts_with("upstream:") ? tier.hits() : 0;
  }
  std::printf("d4r-bench-upstream: d4r_example_layer for gfx1101, %d repeats, loopback TLS; "
              "fetched from the upstream %lld times, built by the handheld %lld times\n",
              repeats, static_cast<long long>(fetched), static_cast<long long>(status.builds().done()));
  print("remote hit (fetch over TLS, signature, keep, answer)", remote_hit);
  print("local hit of the same object (baseline)", local_hit);
  print("cold build here, no upstream", local_build);
  std::printf("ratio remote hit / local hit (p50): %.1fx\n",
              quantile(remote_hit, 0.5) / quantile(local_hit, 0.5));
  std::printf("ratio cold build / remote hit (p50): %.1fx\n",
              quantile(local_build, 0.5) / quantile(remote_hit, 0.5));
  return 0;
}
