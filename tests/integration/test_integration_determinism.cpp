// Builds are deterministic: the same inputs and toolchain give the same bytes. A remote tier's
// native code cannot be checked by its content, so a client trusts it partly because it could
// build the very same bytes itself (and a sample is rebuilt to check, trust/rebuild_check.hpp).
//
// Two daemons, each a real process with its own cache, its own copy of the recipes (installed
// at another path, as on another machine) and its own TMPDIR, build a HIP recipe and a PTX
// translation, each in two runs (the second on an emptied cache, seconds later); every object must
// equal every other byte for byte. What used to differ is named in the message of each check.

#include "daemon_process.hpp"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include <fstream>
#include <map>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;

constexpr uint32_t k_wait_ms = 240000;

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  return pb::KernelService::NewStub(grpc::CreateCustomChannel(
      "unix:" + daemon.socket_path().string(), grpc::InsecureChannelCredentials(), args));
}

std::chrono::system_clock::time_point deadline()
{
  return std::chrono::system_clock::now() + std::chrono::milliseconds(k_wait_ms) +
         std::chrono::seconds(30);
}

// A recipe build (the Build RPC: the recipe's object for any module).
std::string build_recipe(const DaemonProcess& daemon, const std::string& kernel,
                         const std::string& target, pb::Mode mode)
{
  pb::BuildRequest request;
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(mode);
  request.set_wait_budget_ms(k_wait_ms);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(deadline());
  grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << kernel << ": " << reply.reason();
  return reply.object().data();
}

// A ptx recipe's build: the module uploaded, then resolved (translated by our translator).
std::string build_ptx(const DaemonProcess& daemon, const std::string& ptx,
                      const std::string& kernel, const std::string& target)
{
  pb::PutModuleRequest put;
  Sha256 digest = sha256(std::string_view(ptx));
  put.mutable_module()->set_fnv1a64(ptx_module_hash(ptx));
  put.mutable_module()->set_sha256(std::string(digest.begin(), digest.end()));
  put.set_ptx(ptx);
  pb::PutModuleReply put_reply;
  grpc::ClientContext put_context;
  EXPECT_TRUE(stub_of(daemon)->PutModule(&put_context, put, &put_reply).ok());
  pb::ResolveRequest request;
  request.set_module_hash(ptx_module_hash(ptx));
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(pb::MODE_FAST);
  request.set_wait_budget_ms(k_wait_ms);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(deadline());
  grpc::Status status = stub_of(daemon)->Resolve(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << kernel << ": " << reply.reason();
  return reply.object().data();
}

// Builds this daemon made (every object above is a build, none a hit).
int64_t builds_done(const DaemonProcess& daemon)
{
  pb::StatusReply reply;
  grpc::ClientContext context;
  EXPECT_TRUE(stub_of(daemon)->Status(&context, pb::StatusRequest(), &reply).ok());
  return reply.builds().done();
}

// This daemon's installation: the shipped recipes, examples and headers copied under `root`
// (another path on each "machine"), plus the ptx recipe for `ptx_hash`.
std::filesystem::path install_recipes(const std::filesystem::path& root, uint64_t ptx_hash)
{
  std::filesystem::path share = root / "share";
  std::filesystem::create_directories(share);
  for (const char* folder : {"recipes", "examples", "include"}) {
    std::filesystem::copy(shipped_recipes() / ".." / folder, share / folder,
                          std::filesystem::copy_options::recursive);
  }
  std::ofstream(share / "recipes" / "alu.recipe")
      << "recipe = ptx_alu\nversion = 1\nkernels = int_arith32\nmodules = "
      << hash_to_hex(ptx_hash) << "\nlanguage = ptx\n";
  return share / "recipes";
}

struct Machine {
  std::filesystem::path root;
  std::filesystem::path recipes;
};

DaemonOptions options_of(const Machine& machine, const std::vector<std::string>& extra_args)
{
  DaemonOptions options(machine.root);
  options.native_dir = std::filesystem::path(); // everything comes from recipes
  options.recipes_dir = machine.recipes;
  options.extra_args = extra_args;
  std::filesystem::create_directories(machine.root / "tmp");
  options.extra_env = {"TMPDIR=" + (machine.root / "tmp").string()};
  return options;
}

// Every input built by two daemons in two runs each: label -> the four objects.
std::map<std::string, std::vector<std::string>> build_everything(
    const std::filesystem::path& dir, const std::vector<std::string>& extra_args)
{
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/isa/alu_int.sm_90.ptx");
  std::map<std::string, std::vector<std::string>> objects;
  std::vector<Machine> machines;
  for (const char* name : {"host-a", "elsewhere/host-b"}) {
    std::filesystem::path root = dir / name;
    machines.push_back(Machine{root, install_recipes(root, ptx_module_hash(ptx))});
  }
  for (int run = 0; run < 2; ++run) {
    for (const Machine& machine : machines) {
      std::filesystem::remove_all(machine.root / "cache"); // a build, never a cache hit
      DaemonProcess daemon(options_of(machine, extra_args));
      EXPECT_TRUE(daemon.start());
      objects["d4r_example_layer gfx1101 fast"].push_back(
          build_recipe(daemon, "d4r_example_layer", "gfx1101", pb::MODE_FAST));
      objects["d4r_example_accuracy gfx1201 accuracy"].push_back(
          build_recipe(daemon, "d4r_example_accuracy", "gfx1201", pb::MODE_ACCURACY));
      objects["ptx int_arith32 gfx1201"].push_back(build_ptx(daemon, ptx, "int_arith32", "gfx1201"));
      EXPECT_EQ(builds_done(daemon), 3) << machine.root << " run " << run;
      daemon.stop();
    }
  }
  return objects;
}

// Where two objects first differ, for the failure message.
std::string first_difference(const std::string& a, const std::string& b)
{
  size_t at = 0;
  while (at < a.size() && at < b.size() && a[at] == b[at]) {
    ++at;
  }
  return "sizes " + std::to_string(a.size()) + " and " + std::to_string(b.size()) +
         ", first difference at byte " + std::to_string(at);
}

// Equal bytes could still hold a path both machines happen to share (the source tree's include
// folder, /tmp): an object names no folder of the machine that built it.
void expect_no_paths(const std::string& label, const std::string& object,
                     const std::filesystem::path& dir)
{
  std::filesystem::path source_tree = std::filesystem::path(D4R_TEST_SOURCE_DIR).parent_path();
  for (const std::string& path : {dir.string(), source_tree.string(), std::string("/tmp/"),
                                  std::string("d4r-test-"), std::string("/home/")}) {
    EXPECT_EQ(object.find(path), std::string::npos) << label << " names " << path;
  }
}

void expect_identical(const std::map<std::string, std::vector<std::string>>& objects,
                      const std::filesystem::path& dir)
{
  ASSERT_EQ(objects.size(), 3u);
  for (const auto& [label, built] : objects) {
    ASSERT_EQ(built.size(), 4u) << label;
    ASSERT_FALSE(built[0].empty()) << label;
    expect_no_paths(label, built[0], dir);
    for (size_t i = 1; i < built.size(); ++i) {
      // Index i: run i / 2, daemon i % 2.
      EXPECT_TRUE(built[i] == built[0])
          << label << ": object " << i << " (run " << i / 2 << ", daemon " << i % 2
          << ") differs from the first: " << first_difference(built[0], built[i]) << "; sha256 "
          << to_hex(sha256(std::string_view(built[0]))) << " vs "
          << to_hex(sha256(std::string_view(built[i])));
    }
  }
}

// The daemon's own choice of backend for each target (the llvm backend where comgr is absent).
TEST(Determinism, TwoDaemonsTwoRunsSameBytes)
{
  TempDir dir;
  expect_identical(build_everything(dir.path(), {}), dir.path());
}

// The clang driver links with its own ld.lld (a child process with its own temporary files).
TEST(Determinism, ClangBackendTwoDaemonsTwoRunsSameBytes)
{
  TempDir dir;
  expect_identical(build_everything(dir.path(), {"--backend", "clang"}), dir.path());
}

} // namespace
} // namespace d4r::testing
