// On-demand builds through the real daemon: every example recipe for every target and mode, one
// build for many identical requests, PENDING past the wait budget, failing builds (a real LLVM
// abort, a compile that never ends, one that eats memory) that leave the daemon serving and are
// remembered, and a toolchain change that rebuilds instead of serving a stale object.

#include "compiler/launch_meta.hpp"
#include "daemon_process.hpp"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <functional>
#include <map>
#include <thread>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  return pb::KernelService::NewStub(grpc::CreateCustomChannel(
      "unix:" + daemon.socket_path().string(), grpc::InsecureChannelCredentials(), args));
}

pb::ResolveReply build(const DaemonProcess& daemon, const std::string& kernel,
                       const std::string& target, pb::Mode mode, uint32_t wait_ms = 300000)
{
  pb::BuildRequest request;
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(mode);
  request.set_wait_budget_ms(wait_ms);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(wait_ms) +
                       std::chrono::seconds(30));
  grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply;
}

pb::ResolveReply resolve(const DaemonProcess& daemon, uint64_t hash, const std::string& kernel,
                         const std::string& target, uint32_t wait_ms)
{
  pb::ResolveRequest request;
  request.set_module_hash(hash);
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(pb::MODE_FAST);
  request.set_wait_budget_ms(wait_ms);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(wait_ms) +
                       std::chrono::seconds(30));
  grpc::Status status = stub_of(daemon)->Resolve(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply;
}

pb::StatusReply status_of(const DaemonProcess& daemon)
{
  pb::StatusReply reply;
  grpc::ClientContext context;
  EXPECT_TRUE(stub_of(daemon)->Status(&context, pb::StatusRequest(), &reply).ok());
  return reply;
}

std::string disassemble(const std::string& object, const std::string& target,
                        const std::filesystem::path& dir)
{
  std::filesystem::path file = dir / ("object-" + target + ".hsaco");
  std::ofstream(file, std::ios::binary | std::ios::trunc) << object;
  std::string command = std::string(D4R_LLVM_OBJDUMP) + " -d --mcpu=" + target + " '" +
                        file.string() + "' 2>&1";
  std::string text;
  if (FILE* pipe = popen(command.c_str(), "r")) {
    char buffer[4096];
    size_t got = 0;
    while ((got = fread(buffer, 1, sizeof(buffer), pipe)) > 0) {
      text.append(buffer, got);
    }
    pclose(pipe);
  }
  return text;
}

compiler::LaunchMeta meta_of(const std::string& object, const std::string& kernel)
{
  Expected<compiler::LaunchMeta> meta = compiler::read_launch_meta(
      {reinterpret_cast<const std::byte*>(object.data()), object.size()}, kernel);
  EXPECT_TRUE(meta) << kernel << ": " << meta.error().message;
  return meta ? *meta : compiler::LaunchMeta{};
}

DaemonOptions build_options(const std::filesystem::path& dir,
                            std::vector<std::string> extra = {})
{
  DaemonOptions options(dir);
  options.native_dir = std::filesystem::path(); // no release: everything comes from recipes
  options.recipes_dir = shipped_recipes();
  options.extra_args = std::move(extra);
  return options;
}

constexpr const char* k_targets[] = {"gfx1100", "gfx1101", "gfx1102", "gfx1103", "gfx1200", "gfx1201"};

TEST(Builds, EveryExampleForEveryTargetAndMode)
{
  TempDir dir;
  DaemonProcess daemon(build_options(dir.path()));
  ASSERT_TRUE(daemon.start());
  const char* kernels[] = {"d4r_example_layer", "d4r_example_wave64", "d4r_example_accuracy",
                           "d4r_example_fp8", "d4r_example_variant_hdr"};
  std::map<std::string, std::string> digests; // kernel|target|mode -> sha256
  for (const char* kernel : kernels) {
    for (const char* target : k_targets) {
      for (pb::Mode mode : {pb::MODE_FAST, pb::MODE_ACCURACY}) {
        std::string label = std::string(kernel) + " " + target + " " + pb::Mode_Name(mode);
        pb::ResolveReply reply = build(daemon, kernel, target, mode);
        ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << label << ": " << reply.reason();
        const std::string& object = reply.object().data();
        compiler::LaunchMeta meta = meta_of(object, kernel);
        EXPECT_EQ(meta.amdhsa_target, std::string("amdgcn-amd-amdhsa--") + target) << label;
        EXPECT_EQ(reply.metadata().amdhsa_target(), meta.amdhsa_target) << label;
        EXPECT_EQ(reply.metadata().main().name(), kernel) << label;
        bool wave64 = std::string(kernel) == "d4r_example_wave64" && mode == pb::MODE_FAST;
        EXPECT_EQ(meta.main.wave_size, wave64 ? 64u : 32u) << label;
        digests[label] = reply.object().sha256();
        std::string text = disassemble(object, target, dir.path());
        EXPECT_NE(text.find("s_endpgm"), std::string::npos) << label;
        if (std::string(kernel) == "d4r_example_fp8") {
          bool gfx12 = std::string(target).starts_with("gfx12");
          EXPECT_EQ(text.find("v_cvt_pk_f32_fp8") != std::string::npos, gfx12) << label;
        }
        if (std::string(kernel) == "d4r_example_layer") {
          EXPECT_TRUE(meta.prep) << label;
          EXPECT_EQ(meta.posts.size(), 2u) << label;
          EXPECT_NE(meta.prep_blocks, 0u) << label;
        }
      }
    }
  }
  for (const char* target : k_targets) {
    std::string fast = digests[std::string("d4r_example_accuracy ") + target + " MODE_FAST"];
    std::string accurate = digests[std::string("d4r_example_accuracy ") + target + " MODE_ACCURACY"];
    EXPECT_NE(fast, accurate) << target << ": the accuracy define must change the object";
  }
  pb::StatusReply status = status_of(daemon);
  EXPECT_EQ(status.builds().done(), 5 * 6 * 2);
  EXPECT_EQ(status.builds().failed(), 0);
  // Accuracy and fast builds live in separate stores and never share an object file.
  for (const pb::StoreStats& store : status.stores()) {
    EXPECT_EQ(store.entries(), 5 * 6) << pb::Mode_Name(store.mode());
  }
}

TEST(Builds, ResolveNeedsAModuleTheRecipeLists)
{
  TempDir dir;
  DaemonProcess daemon(build_options(dir.path()));
  ASSERT_TRUE(daemon.start());
  pb::ResolveReply ready = resolve(daemon, k_sr_module_hash, "d4r_example_layer", "gfx1201", 120000);
  ASSERT_EQ(ready.outcome(), pb::ResolveReply::READY) << ready.reason();
  EXPECT_EQ(ready.metadata().posts_size(), 2);
  pb::ResolveReply other = resolve(daemon, k_rr_module_hash, "d4r_example_layer", "gfx1201", 120000);
  EXPECT_EQ(other.outcome(), pb::ResolveReply::NOT_FOUND);
  EXPECT_NE(other.reason().find("does not list module hash"), std::string::npos) << other.reason();
  EXPECT_EQ(resolve(daemon, k_sr_module_hash, "no_recipe_kernel", "gfx1201", 1000).outcome(),
            pb::ResolveReply::NOT_FOUND);
}

TEST(Builds, SixteenIdenticalRequestsShareOneBuild)
{
  TempDir dir;
  DaemonProcess daemon(build_options(dir.path()));
  ASSERT_TRUE(daemon.start());
  std::vector<std::thread> threads;
  std::vector<pb::ResolveReply> replies(16);
  for (size_t i = 0; i < replies.size(); ++i) {
    threads.emplace_back([&, i] {
      replies[i] = resolve(daemon, k_sr_module_hash, "d4r_example_layer", "gfx1101", 120000);
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (const pb::ResolveReply& reply : replies) {
    ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
    EXPECT_EQ(reply.object().sha256(), replies[0].object().sha256());
  }
  pb::StatusReply status = status_of(daemon);
  EXPECT_EQ(status.builds().done(), 1);
  EXPECT_EQ(status.builds().queued() + status.builds().running(), 0);
}

TEST(Builds, PendingPastTheWaitBudgetWhileTheBuildGoesOn)
{
  TempDir dir;
  DaemonProcess daemon(build_options(dir.path()));
  ASSERT_TRUE(daemon.start());
  pb::ResolveReply first = resolve(daemon, k_sr_module_hash, "d4r_example_wave64", "gfx1200", 1);
  EXPECT_EQ(first.outcome(), pb::ResolveReply::PENDING) << first.reason();
  pb::ResolveReply later = resolve(daemon, k_sr_module_hash, "d4r_example_wave64", "gfx1200", 120000);
  EXPECT_EQ(later.outcome(), pb::ResolveReply::READY) << later.reason();
  EXPECT_EQ(status_of(daemon).builds().done(), 1) << "the pending build was joined, not repeated";
  EXPECT_GE(daemon.counter("pending"), 1);
}

// A recipe folder of failing builds, written for one test: each source is real input that makes
// the compiler crash, run for ever, or eat memory.
std::filesystem::path failing_recipes(const std::filesystem::path& dir)
{
  std::filesystem::path recipes = dir / "recipes";
  std::filesystem::create_directories(recipes);
  std::filesystem::copy_file(std::filesystem::path(D4R_TEST_SOURCE_DIR) / "compiler" /
                                 "cannot_select_gfx1100.ll",
                             recipes / "crash.ll");
  std::ofstream(recipes / "crash.recipe")
      << "recipe = crash\nversion = 1\nkernels = d4r_cannot_select\nmodules = 8baeb925f177af87\n"
         "source = crash.ll\nlanguage = llvm_ir\n";
  // Constant evaluation that takes for ever: only the CPU limit ends it.
  std::ofstream(recipes / "hang.hip")
      << "constexpr unsigned long spin() { unsigned long x = 0; for (unsigned long i = 0; i < (1UL << 60); ++i) { x += i ^ (x >> 3); } return x; }\n"
         "static_assert(spin() != 1, \"never decided\");\n"
         "extern \"C\" __attribute__((global)) void d4r_fault_hang(int* p) { *p = 1; }\n";
  std::ofstream(recipes / "hang.recipe")
      << "recipe = hang\nversion = 1\nkernels = d4r_fault_hang\nmodules = 8baeb925f177af87\n"
         "source = hang.hip\nflags = -fconstexpr-steps=2147483647\n";
  // A macro that expands to billions of tokens: the preprocessor eats memory until the limit.
  std::ofstream(recipes / "memory.hip")
      << "#define A0 x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+x+\n#define A1 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0 A0\n"
         "#define A2 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1 A1\n#define A3 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2 A2\n"
         "#define A4 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3 A3\n#define A5 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4 A4\n"
         "#define A6 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5 A5\n#define A7 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6 A6\n"
         "extern \"C\" __attribute__((global)) void d4r_fault_memory(int* p) { int x = 1; *p = A7 0; }\n";
  std::ofstream(recipes / "memory.recipe")
      << "recipe = memory\nversion = 1\nkernels = d4r_fault_memory\nmodules = 8baeb925f177af87\n"
         "source = memory.hip\n";
  std::filesystem::copy(shipped_recipes() / "d4r_example_layer.recipe", recipes);
  std::filesystem::create_directories(dir / "examples");
  std::filesystem::copy(shipped_recipes() / ".." / "examples", dir / "examples");
  std::filesystem::copy(shipped_recipes() / ".." / "include", dir / "include");
  return recipes;
}

TEST(Builds, FailingWorkersLeaveTheDaemonServingAndAreRemembered)
{
  TempDir dir;
  DaemonOptions options = build_options(
      dir.path(), {"--build-cpu-seconds", "5", "--build-wall-seconds", "30", "--build-memory", "384M"});
  options.recipes_dir = failing_recipes(dir.path());
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  // Each fault and a phrase its reason must carry.
  const std::pair<const char*, const char*> faults[] = {
      {"d4r_cannot_select", "Cannot select"}, // LLVM aborts: the worker dies of SIGABRT
      {"d4r_fault_hang", "signal 9"},         // clang is killed at its CPU limit
      {"d4r_fault_memory", "out of memory"},  // clang's allocation fails at the memory limit
  };
  for (const auto& [kernel, phrase] : faults) {
    pb::ResolveReply reply = resolve(daemon, k_sr_module_hash, kernel, "gfx1100", 60000);
    EXPECT_EQ(reply.outcome(), pb::ResolveReply::NOT_FOUND) << kernel;
    EXPECT_NE(reply.reason().find(phrase), std::string::npos) << kernel << ": " << reply.reason();
    // The daemon still serves a good build meanwhile.
    pb::ResolveReply good = resolve(daemon, k_sr_module_hash, "d4r_example_layer", "gfx1100", 120000);
    EXPECT_EQ(good.outcome(), pb::ResolveReply::READY) << kernel << ": " << good.reason();
  }
  pb::StatusReply status = status_of(daemon);
  EXPECT_EQ(status.builds().failed(), 3);
  // Asked again, the failures come from the negative cache: no new build.
  pb::ResolveReply again = resolve(daemon, k_sr_module_hash, "d4r_cannot_select", "gfx1100", 60000);
  EXPECT_EQ(again.outcome(), pb::ResolveReply::NOT_FOUND);
  EXPECT_NE(again.reason().find("failed before"), std::string::npos) << again.reason();
  EXPECT_EQ(status_of(daemon).builds().failed(), 3);
  EXPECT_EQ(status_of(daemon).builds().negative_hits(), 1);
  // The same input on a target where it compiles is another key and builds.
  EXPECT_EQ(resolve(daemon, k_sr_module_hash, "d4r_cannot_select", "gfx1201", 60000).outcome(),
            pb::ResolveReply::READY);
  // The failure outlives the daemon: a restart on the same cache does not retry it.
  EXPECT_EQ(daemon.stop(), 0);
  DaemonProcess restarted(options);
  ASSERT_TRUE(restarted.start());
  pb::ResolveReply remembered = resolve(restarted, k_sr_module_hash, "d4r_cannot_select", "gfx1100", 60000);
  EXPECT_NE(remembered.reason().find("failed before"), std::string::npos) << remembered.reason();
  EXPECT_EQ(status_of(restarted).builds().failed(), 0);
}

std::filesystem::path clang_wrapper(const std::filesystem::path& dir, const std::string& version)
{
  std::filesystem::path path = dir / ("clang-" + version);
  std::ofstream(path) << "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo \"clang version "
                      << version << "\"; exit 0; fi\nexec /usr/lib/llvm-19/bin/clang++ \"$@\"\n";
  chmod(path.c_str(), 0755);
  return path;
}

// A clang driver whose first compile is ended from outside: `first_run` is shell run once, in
// the compile's process group (the worker's), before the real driver does the second attempt.
std::filesystem::path clang_with_first_run(const std::filesystem::path& dir, const std::string& first_run)
{
  std::filesystem::path path = dir / "clang-first-run";
  std::filesystem::path flag = dir / "first-run-happened";
  std::ofstream(path) << "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo \"clang version 19.1.7\"; exit 0; fi\n"
                      << "if [ ! -e " << flag.string() << " ]; then : > " << flag.string() << "; "
                      << first_run << "; fi\nexec /usr/lib/llvm-19/bin/clang++ \"$@\"\n";
  chmod(path.c_str(), 0755);
  return path;
}

TEST(Builds, AWorkerKilledFromOutsideIsRetriedAndNotRemembered)
{
  TempDir dir;
  // As systemd does to the unit's cgroup on `systemctl --user restart`, or the OOM killer.
  std::filesystem::path clang = clang_with_first_run(dir.path(), "kill -TERM 0; sleep 5");
  DaemonOptions options = build_options(dir.path(), {"--backend", "llvm", "--clang", clang.string()});
  // The worker may write only in its scratch folder (daemon/worker_sandbox.hpp); the fake
  // driver's mark goes here.
  options.extra_env.push_back("D4R_WORKER_TEST_FAULTS=1");
  options.extra_env.push_back("D4R_WORKER_TEST_WRITABLE=" + dir.path().string());
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  pb::ResolveReply reply = build(daemon, "d4r_example_layer", "gfx1101", pb::MODE_FAST);
  EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
  EXPECT_TRUE(std::filesystem::exists(dir.path() / "first-run-happened"))
      << "the first compile was never killed: the test proves nothing";
  pb::StatusReply status = status_of(daemon);
  EXPECT_EQ(status.builds().done(), 1);
  EXPECT_EQ(status.builds().failed(), 0);
  std::filesystem::path failures = dir.path() / "cache" / "failures";
  size_t remembered = 0;
  if (std::filesystem::exists(failures)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(failures)) {
      remembered += entry.is_regular_file() ? 1 : 0;
    }
  }
  EXPECT_EQ(remembered, 0u) << "a kill from outside was remembered as the input's failure";
}

TEST(Builds, StoppingTheDaemonKillsItsBuildsAndRemembersNothing)
{
  TempDir dir;
  // A compile that would take two minutes, then compiles normally once the daemon is back.
  std::filesystem::path clang = clang_with_first_run(dir.path(), "sleep 120");
  DaemonOptions options =
      build_options(dir.path(), {"--backend", "llvm", "--clang", clang.string(),
                                 "--build-wall-seconds", "170"});
  options.extra_env.push_back("D4R_WORKER_TEST_FAULTS=1"); // the fake driver's mark (see above)
  options.extra_env.push_back("D4R_WORKER_TEST_WRITABLE=" + dir.path().string());
  auto daemon = std::make_unique<DaemonProcess>(options);
  ASSERT_TRUE(daemon->start());
  EXPECT_EQ(build(*daemon, "d4r_example_layer", "gfx1101", pb::MODE_FAST, 1).outcome(),
            pb::ResolveReply::PENDING);
  for (int i = 0; i < 500 && !std::filesystem::exists(dir.path() / "first-run-happened"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(std::filesystem::exists(dir.path() / "first-run-happened"));
  auto asked = std::chrono::steady_clock::now();
  EXPECT_EQ(daemon->stop(), 0);
  // systemd's TimeoutStopSec is 10 s; a stop that waits for the build is killed instead.
  EXPECT_LT(std::chrono::steady_clock::now() - asked, std::chrono::seconds(8));
  daemon = std::make_unique<DaemonProcess>(options);
  ASSERT_TRUE(daemon->start());
  pb::ResolveReply again = build(*daemon, "d4r_example_layer", "gfx1101", pb::MODE_FAST);
  EXPECT_EQ(again.outcome(), pb::ResolveReply::READY) << again.reason();
  EXPECT_EQ(status_of(*daemon).builds().done(), 1);
}

TEST(Builds, ToolchainChangeRebuildsInsteadOfServingStale)
{
  TempDir dir;
  auto start = [&](const std::string& version) {
    auto daemon = std::make_unique<DaemonProcess>(build_options(
        dir.path(), {"--backend", "llvm", "--clang", clang_wrapper(dir.path(), version).string()}));
    EXPECT_TRUE(daemon->start());
    return daemon;
  };
  std::unique_ptr<DaemonProcess> daemon = start("19.1.7-a");
  ASSERT_EQ(build(*daemon, "d4r_example_layer", "gfx1101", pb::MODE_FAST).outcome(),
            pb::ResolveReply::READY);
  EXPECT_EQ(status_of(*daemon).builds().done(), 1);
  daemon->stop();
  daemon = start("19.1.7-a"); // same toolchain: a cache hit, no build
  ASSERT_EQ(build(*daemon, "d4r_example_layer", "gfx1101", pb::MODE_FAST).outcome(),
            pb::ResolveReply::READY);
  EXPECT_EQ(status_of(*daemon).builds().done(), 0);
  daemon->stop();
  daemon = start("19.1.7-b"); // another toolchain: rebuilt
  ASSERT_EQ(build(*daemon, "d4r_example_layer", "gfx1101", pb::MODE_FAST).outcome(),
            pb::ResolveReply::READY);
  EXPECT_EQ(status_of(*daemon).builds().done(), 1);
  std::string a = status_of(*daemon).builds().toolchains().at("gfx1101");
  EXPECT_NE(a.find("19.1.7-b"), std::string::npos) << a;
}

// A ptx recipe: the game's own module, uploaded by the client, translated by our translator and
// compiled for the target, then served like any other build. Before the upload the daemon says
// why it cannot build; an instruction the translator does not know is NOT_FOUND (ZLUDA compiles
// that kernel) and the daemon serves on.
TEST(Builds, PtxRecipeTranslatesTheUploadedModule)
{
  TempDir dir;
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/isa/alu_int.sm_90.ptx");
  uint64_t hash = ptx_module_hash(ptx);
  // Hand-written (not from NVIDIA): an instruction outside what the translator implements.
  std::string unknown = ".version 8.0\n.target sm_90\n.address_size 64\n"
                        ".visible .entry d4r_unknown_op()\n{\n\ttcgen05.fence::before_thread_sync;\n\tret;\n}\n";
  uint64_t unknown_hash = ptx_module_hash(unknown);
  std::filesystem::path recipes = dir.path() / "recipes";
  std::filesystem::create_directories(recipes);
  std::ofstream(recipes / "alu.recipe")
      << "recipe = ptx_alu\nversion = 1\nkernels = int_arith32 int_arith64 d4r_unknown_op\n"
      << "modules = " << hash_to_hex(hash) << " " << hash_to_hex(unknown_hash)
      << "\nlanguage = ptx\n";
  DaemonOptions options(dir.path());
  options.native_dir = std::filesystem::path();
  options.recipes_dir = recipes;
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());

  pb::ResolveReply early = resolve(daemon, hash, "int_arith32", "gfx1201", 60000);
  EXPECT_EQ(early.outcome(), pb::ResolveReply::NOT_FOUND);
  EXPECT_NE(early.reason().find("was not uploaded"), std::string::npos) << early.reason();
  EXPECT_EQ(daemon.counter("not_found.no_module"), 1);

  auto put = [&](const std::string& bytes) {
    pb::PutModuleRequest request;
    Sha256 digest = sha256(std::string_view(bytes));
    request.mutable_module()->set_fnv1a64(ptx_module_hash(bytes));
    request.mutable_module()->set_sha256(std::string(digest.begin(), digest.end()));
    request.set_ptx(bytes);
    pb::PutModuleReply reply;
    grpc::ClientContext context;
    return stub_of(daemon)->PutModule(&context, request, &reply).ok();
  };
  ASSERT_TRUE(put(ptx));
  ASSERT_TRUE(put(unknown));
  for (const char* target : {"gfx1100", "gfx1201"}) {
    pb::ResolveReply ready = resolve(daemon, hash, "int_arith32", target, 120000);
    ASSERT_EQ(ready.outcome(), pb::ResolveReply::READY) << target << ": " << ready.reason();
    compiler::LaunchMeta meta = meta_of(ready.object().data(), "int_arith32");
    EXPECT_EQ(meta.amdhsa_target, std::string("amdgcn-amd-amdhsa--") + target);
    EXPECT_EQ(meta.main.wave_size, 32u);
    EXPECT_GE(meta.main.kernarg_size, 28u) << "three .u64 and one .u32 parameter";
    std::string text = disassemble(ready.object().data(), target, dir.path());
    EXPECT_NE(text.find("<int_arith32>:"), std::string::npos) << text.substr(0, 2000);
    EXPECT_EQ(text.find("<int_arith64>:"), std::string::npos) << "only the asked entry is built";
  }
  pb::ResolveReply unsupported = resolve(daemon, unknown_hash, "d4r_unknown_op", "gfx1201", 120000);
  EXPECT_EQ(unsupported.outcome(), pb::ResolveReply::NOT_FOUND);
  EXPECT_NE(unsupported.reason().find("unsupported: tcgen05.fence::before_thread_sync at line 6"), std::string::npos)
      << unsupported.reason();
  // A different module's kernel is a different object; the daemon is still serving.
  pb::ResolveReply other = resolve(daemon, hash, "int_arith64", "gfx1201", 120000);
  EXPECT_EQ(other.outcome(), pb::ResolveReply::READY) << other.reason();
  pb::StatusReply status = status_of(daemon);
  EXPECT_EQ(status.builds().done(), 3);
  EXPECT_EQ(status.builds().failed(), 1);
}

} // namespace
} // namespace d4r::testing
