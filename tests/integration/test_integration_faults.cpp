// kill -9 of the daemon at random moments of its builds and cache writes: after each restart no
// object is served that is not the one its key names (the bytes of an uninterrupted build of the
// same key), none is served truncated or corrupt, and the index answers. D4R_FAULT_TRIALS sets the
// number of kills (CI: a bounded sample; scripts/fault-trials.sh runs the long one and prints the
// figures).

#include "compiler/launch_meta.hpp"
#include "daemon_process.hpp"
#include "util/digest.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include <signal.h>

#include <cstdlib>
#include <map>
#include <random>
#include <thread>
#include <tuple>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;

using Key = std::tuple<std::string, std::string, pb::Mode>; // kernel, target, mode

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  return pb::KernelService::NewStub(grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                                        grpc::InsecureChannelCredentials()));
}

pb::ResolveReply build(const DaemonProcess& daemon, const Key& key, uint32_t wait_ms,
                       grpc::Status* status_out = nullptr)
{
  pb::BuildRequest request;
  request.set_kernel(std::get<0>(key));
  request.mutable_selection()->set_target(std::get<1>(key));
  request.mutable_selection()->set_mode(std::get<2>(key));
  request.set_wait_budget_ms(wait_ms);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(wait_ms) +
                       std::chrono::seconds(20));
  grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
  if (status_out) {
    *status_out = status;
  }
  return reply;
}

const std::vector<Key>& keys()
{
  static const std::vector<Key> all = {
      {"d4r_example_layer", "gfx1100", pb::MODE_FAST},
      {"d4r_example_layer", "gfx1201", pb::MODE_FAST},
      {"d4r_example_layer", "gfx1101", pb::MODE_ACCURACY},
      {"d4r_example_accuracy", "gfx1100", pb::MODE_ACCURACY},
      {"d4r_example_accuracy", "gfx1200", pb::MODE_FAST},
      {"d4r_example_wave64", "gfx1102", pb::MODE_FAST},
  };
  return all;
}

int trials()
{
  const char* text = std::getenv("D4R_FAULT_TRIALS");
  return text != nullptr ? std::max(1, std::atoi(text)) : 6;
}

// The object served for `key` is whole (its bytes hash to the digest it is served with, its size
// is the one stated) and is that key's: a code object for the key's target whose metadata names
// the key's kernel. (Builds are not byte-reproducible across daemons: the scratch paths differ, so
// a reference build's digest cannot be the check.)
void expect_the_keys_object(const pb::ResolveReply& reply, const Key& key)
{
  const std::string& data = reply.object().data();
  EXPECT_EQ(static_cast<int64_t>(data.size()), reply.object().size());
  Sha256 digest = sha256(data);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(digest.data()), digest.size()),
            reply.object().sha256())
      << "served bytes are not the object's";
  Expected<compiler::LaunchMeta> meta = compiler::read_launch_meta(
      {reinterpret_cast<const std::byte*>(data.data()), data.size()}, std::get<0>(key));
  ASSERT_TRUE(meta.has_value()) << std::get<0>(key) << ": " << meta.error().message;
  EXPECT_EQ(meta->amdhsa_target, "amdgcn-amd-amdhsa--" + std::get<1>(key));
  EXPECT_EQ(reply.mode(), std::get<2>(key));
}

TEST(Faults, KillNineDuringBuildsNeverServesAWrongOrDamagedObject)
{
  TempDir dir;
  DaemonOptions options(dir.path());
  options.native_dir = std::filesystem::path();
  options.recipes_dir = shipped_recipes();
  std::mt19937 random(20261201);
  int served = 0;
  for (int trial = 0; trial < trials(); ++trial) {
    SCOPED_TRACE("trial " + std::to_string(trial));
    auto daemon = std::make_unique<DaemonProcess>(options);
    ASSERT_TRUE(daemon->start());
    // After the previous kill: whatever the cache serves is the key's own object, whole.
    for (const Key& key : keys()) {
      pb::ResolveReply reply = build(*daemon, key, 1);
      if (reply.outcome() != pb::ResolveReply::READY) {
        continue; // not built yet, or being built again: never wrong
      }
      ++served;
      expect_the_keys_object(reply, key);
    }
    // Builds of every key in flight, then a kill at a random moment of them.
    std::vector<std::thread> askers;
    for (const Key& key : keys()) {
      askers.emplace_back([&daemon, key] {
        grpc::Status ignored;
        (void)build(*daemon, key, 30000, &ignored);
      });
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(random() % 1500));
    daemon->send_signal(SIGKILL);
    for (std::thread& asker : askers) {
      asker.join();
    }
    (void)daemon->stop(); // reaps it
  }
  // The last restart serves every key, each its own object.
  DaemonProcess last(options);
  ASSERT_TRUE(last.start());
  for (const Key& key : keys()) {
    pb::ResolveReply reply = build(last, key, 120000);
    ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
    expect_the_keys_object(reply, key);
  }
  std::printf("faults: %d kills, %d objects served from a killed daemon's cache, each checked\n",
              trials(), served);
}

} // namespace
} // namespace d4r::testing
