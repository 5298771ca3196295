// Telemetry through the real daemon: every miss reason provoked as a game would meet it (a first
// request, an eviction by the size cap, a corrupt object, an unlisted hash, an origin that may
// not authorise the kernel, a toolchain update, a recipe change, a build LLVM aborts on, an
// instruction our translator lacks, host variables the client does not mirror) and read back
// from `d4r-kernel status --json`; hits, misses and builds per game from clients run as
// executables of different names (one of them hostile); `d4r-kernel metrics` read line by line.

#include "daemon_process.hpp"
#include "tests/support/tool_run.hpp"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include <sys/stat.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;
namespace fs = std::filesystem;

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  grpc::ChannelArguments args;
  args.SetMaxReceiveMessageSize(256 << 20);
  return pb::KernelService::NewStub(grpc::CreateCustomChannel(
      "unix:" + daemon.socket_path().string(), grpc::InsecureChannelCredentials(), args));
}

pb::ResolveReply resolve(const DaemonProcess& daemon, uint64_t hash, const std::string& kernel,
                         const std::string& target = "gfx1101", bool accept_path = false,
                         pb::Mode mode = pb::MODE_FAST, uint32_t wait_ms = 120000)
{
  pb::ResolveRequest request;
  request.set_module_hash(hash);
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(mode);
  request.set_accept_path(accept_path);
  request.set_wait_budget_ms(wait_ms);
  request.set_game("telemetry-test");
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(wait_ms) +
                       std::chrono::seconds(30));
  grpc::Status status = stub_of(daemon)->Resolve(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply;
}

pb::ResolveReply build(const DaemonProcess& daemon, const std::string& kernel,
                       const std::string& target)
{
  pb::BuildRequest request;
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(pb::MODE_FAST);
  request.set_wait_budget_ms(300000);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(330));
  grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply;
}

// stdout only: a --json document or the exposition text stays parseable.
const ToolOptions k_stdout_only{{}, {}, true};

fs::path cli() { return fs::path(D4R_BINARY_DIR) / "cli" / "d4r-kernel"; }

// What `d4r-kernel status --json` says, read by python3's json module: "mode reason" -> count,
// "hits mode", "misses mode", "builds mode", "game NAME mode hits|misses|builds", and
// "trash mode FIELD" (store_trash).
std::map<std::string, int64_t> status_json(const DaemonProcess& daemon)
{
  fs::path out = daemon.cache_dir().parent_path() / "status.json";
  ToolRun status =
      run_tool({cli().string(), "--socket", daemon.socket_path().string(), "status", "--json"},
               k_stdout_only);
  EXPECT_EQ(status.exit_code, 0) << status.errors;
  std::ofstream(out) << status.output;
  std::string script =
      "import json, sys\n"
      "d = json.load(open(sys.argv[1]))\n"
      "for m in d['telemetry']['modes']:\n"
      "    for r, n in m['miss_reasons'].items(): print(m['mode'], ' ', r, '\\t', n, sep='')\n"
      "    for k in ('hits', 'misses', 'builds', 'build_failures', 'build_ms_total', 'bytes_built', 'bytes_served'):\n"
      "        print(k, ' ', m['mode'], '\\t', m[k], sep='')\n"
      "for g in d['telemetry']['games']:\n"
      "    for k in ('hits', 'misses', 'builds'):\n"
      "        print('game ', g['game'], ' ', g['mode'], ' ', k, '\\t', g[k], sep='')\n"
      "for t in d['store_trash']:\n"
      "    for k, v in t.items():\n"
      "        if k != 'mode': print('trash ', t['mode'], ' ', k, '\\t', v, sep='')\n";
  fs::path py = daemon.cache_dir().parent_path() / "status.py";
  std::ofstream(py) << script;
  std::istringstream lines(
      run_tool({"/usr/bin/python3", py.string(), out.string()}, k_stdout_only).output);
  std::map<std::string, int64_t> values;
  std::string line;
  while (std::getline(lines, line)) {
    size_t tab = line.rfind('\t');
    if (tab != std::string::npos) {
      values[line.substr(0, tab)] = std::stoll(line.substr(tab + 1));
    }
  }
  EXPECT_FALSE(values.empty()) << read_file(out);
  return values;
}

// `text` as Prometheus's own Python client parses it (python3-prometheus-client): samples by
// "name|label=value|..." with the labels sorted and their values unescaped. A text it refuses
// fails the test.
std::map<std::string, double> parsed_by_prometheus_client(const DaemonProcess& daemon,
                                                          const std::string& text)
{
  const std::string script =
      "import sys\n"
      "from prometheus_client.parser import text_string_to_metric_families\n"
      "for family in text_string_to_metric_families(open(sys.argv[1]).read()):\n"
      "    for s in family.samples:\n"
      "        labels = ''.join('|%s=%s' % kv for kv in sorted(s.labels.items()))\n"
      "        print('%s%s\\t%r' % (s.name, labels, s.value))\n";
  const fs::path dir = daemon.cache_dir().parent_path();
  std::ofstream(dir / "exposition.py") << script;
  std::ofstream(dir / "exposition.txt") << text;
  ToolRun run = run_tool({"/usr/bin/python3", (dir / "exposition.py").string(),
                          (dir / "exposition.txt").string()},
                         k_stdout_only);
  EXPECT_EQ(run.exit_code, 0) << "prometheus_client refused the exposition: " << run.errors;
  std::map<std::string, double> samples;
  std::istringstream lines(run.output);
  std::string line;
  while (std::getline(lines, line)) {
    const size_t tab = line.rfind('\t');
    if (tab != std::string::npos) {
      samples[line.substr(0, tab)] = std::stod(line.substr(tab + 1));
    }
  }
  return samples;
}

// `d4r-kernel metrics`, each line checked against the exposition format, and the whole text read
// by Prometheus's client parser to the same number of samples; samples by name{labels as
// printed}.
std::map<std::string, double> metrics(const DaemonProcess& daemon)
{
  ToolRun run = run_tool({cli().string(), "--socket", daemon.socket_path().string(), "metrics"},
                         k_stdout_only);
  EXPECT_EQ(run.exit_code, 0) << run.errors;
  const std::string& text = run.output;
  const std::regex help(R"(# HELP [a-zA-Z_:][a-zA-Z0-9_:]* .*)");
  const std::regex type(R"(# TYPE [a-zA-Z_:][a-zA-Z0-9_:]* (counter|gauge|histogram))");
  const std::regex sample(
      R"(([a-zA-Z_:][a-zA-Z0-9_:]*(\{([a-zA-Z_][a-zA-Z0-9_]*="([^"\\\n]|\\[\\"n])*",?)*\})?) (-?[0-9.e+]+|\+Inf))");
  std::map<std::string, double> samples;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch match;
    if (std::regex_match(line, help) || std::regex_match(line, type)) {
      continue;
    }
    if (!std::regex_match(line, match, sample)) {
      ADD_FAILURE() << "not exposition format: " << line;
      continue;
    }
    samples[match[1].str()] = std::stod(match[match.size() - 1].str());
  }
  EXPECT_GT(samples.size(), 20u) << text;
  EXPECT_EQ(parsed_by_prometheus_client(daemon, text).size(), samples.size()) << text;
  return samples;
}

// The release fixture on a store capped at 12 000 bytes: d4r_test_layer (10 032 bytes) and any
// other object do not fit together, so each pushes the other out.
TEST(Telemetry, ReleaseMissReasonsHitsAndTheTrash)
{
  TempDir dir;
  DaemonOptions options(dir.path());
  options.extra_args = {"--cache-max-bytes", "12000"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());

  pb::ResolveReply first = resolve(daemon, k_sr_module_hash, "d4r_test_layer", "gfx1101", true);
  ASSERT_EQ(first.outcome(), pb::ResolveReply::READY) << first.reason(); // new
  ASSERT_EQ(resolve(daemon, k_sr_module_hash, "d4r_test_layer").outcome(), pb::ResolveReply::READY); // hit
  // Corrupt: a flipped byte in the stored object; the next answer quarantines it and imports again.
  fs::path object = first.object().path();
  chmod(object.c_str(), 0644);
  std::string bytes = read_file(object);
  bytes[bytes.size() / 2] ^= 0x55;
  std::ofstream(object, std::ios::binary | std::ios::trunc) << bytes;
  ASSERT_EQ(resolve(daemon, k_sr_module_hash, "d4r_test_layer").outcome(), pb::ResolveReply::READY);
  // Evicted: another object takes the room, then the first is asked again.
  ASSERT_EQ(resolve(daemon, k_sr_module_hash, "d4r_test_simple").outcome(), pb::ResolveReply::READY);
  ASSERT_EQ(resolve(daemon, k_sr_module_hash, "d4r_test_layer").outcome(), pb::ResolveReply::READY);
  // Unlisted hash; an RR module's hash for an SR kernel; a broken launch contract.
  EXPECT_EQ(resolve(daemon, 0x1111222233334444ULL, "d4r_test_layer").outcome(),
            pb::ResolveReply::NOT_FOUND);
  // The RR module also defines dl4rt_input_kernel; its hash is not what the SR manifest lists.
  EXPECT_EQ(resolve(daemon, k_rr_module_hash, "dl4rt_input_kernel").outcome(), pb::ResolveReply::NOT_FOUND);
  EXPECT_EQ(resolve(daemon, k_sr_module_hash, "d4r_broken_prep").outcome(), pb::ResolveReply::REJECTED);
  // The accuracy store is counted apart.
  EXPECT_EQ(resolve(daemon, k_sr_module_hash, "d4r_test_simple", "gfx1101", false, pb::MODE_ACCURACY)
                .outcome(),
            pb::ResolveReply::READY);

  std::map<std::string, int64_t> s = status_json(daemon);
  EXPECT_EQ(s["fast new"], 2) << "d4r_test_layer and d4r_test_simple, first asked";
  EXPECT_EQ(s["fast corrupt"], 1);
  EXPECT_EQ(s["fast evicted"], 1);
  EXPECT_EQ(s["fast unlisted_hash"], 2);
  EXPECT_EQ(s["fast rejected"], 1);
  EXPECT_EQ(s["hits fast"], 1);
  EXPECT_EQ(s["misses fast"], 7);
  EXPECT_EQ(s["accuracy new"], 1);
  EXPECT_EQ(s["misses accuracy"], 1);
  EXPECT_EQ(s["fast stale_toolchain"], 0);
  EXPECT_GE(s["bytes_served fast"], 3 * 10032);
  EXPECT_EQ(s["game telemetry-test fast misses"], 7);
  EXPECT_EQ(s["game telemetry-test accuracy misses"], 1);
  // The evicted objects' files wait out their grace in the trash, or the cap cut it short.
  EXPECT_GE(s["trash fast trash_objects"] + s["trash fast trash_cut_short"], 1);

  std::map<std::string, double> m = metrics(daemon);
  EXPECT_EQ(m[R"(d4r_resolve_misses_total{mode="fast",reason="evicted"})"], 1);
  EXPECT_EQ(m[R"(d4r_resolve_misses_total{mode="fast",reason="corrupt"})"], 1);
  EXPECT_EQ(m[R"(d4r_resolve_hits_total{mode="fast"})"], 1);
  EXPECT_TRUE(m.contains(R"(d4r_store_trash_objects{mode="fast"})"));
}

fs::path clang_wrapper(const fs::path& dir, const std::string& version)
{
  fs::path path = dir / ("clang-" + version);
  std::ofstream(path) << "#!/bin/sh\nif [ \"$1\" = \"--version\" ]; then echo \"clang version "
                      << version << "\"; exit 0; fi\nexec /usr/lib/llvm-19/bin/clang++ \"$@\"\n";
  chmod(path.c_str(), 0755);
  return path;
}

// Builds: a toolchain update, a recipe change, a build LLVM aborts on, an instruction the
// translator lacks, host variables a client does not mirror.
TEST(Telemetry, BuildMissReasons)
{
  TempDir dir;
  fs::path recipes = dir.path() / "recipes";
  fs::create_directories(recipes);
  fs::copy(shipped_recipes() / "d4r_example_layer.recipe", recipes);
  fs::copy(shipped_recipes() / ".." / "examples", dir.path() / "examples");
  fs::copy(shipped_recipes() / ".." / "include", dir.path() / "include");
  // Real IR that LLVM's instruction selection aborts on (the worker dies of SIGABRT).
  fs::copy_file(fs::path(D4R_TEST_SOURCE_DIR) / "compiler" / "cannot_select_gfx1100.ll",
                recipes / "crash.ll");
  std::ofstream(recipes / "crash.recipe")
      << "recipe = crash\nversion = 1\nkernels = d4r_cannot_select\nmodules = 8baeb925f177af87\n"
         "source = crash.ll\nlanguage = llvm_ir\n";
  std::string unknown = ".version 8.0\n.target sm_90\n.address_size 64\n"
                        ".visible .entry d4r_unknown_op()\n{\n\ttcgen05.fence::before_thread_sync;\n\tret;\n}\n";
  uint64_t unknown_hash = ptx_module_hash(unknown);
  std::string vars = read_file(D4R_TEST_SOURCE_DIR "/ptx/isa/module_vars.sm_90.ptx");
  std::ofstream(recipes / "ptx.recipe")
      << "recipe = ptx_telemetry\nversion = 1\nkernels = d4r_unknown_op module_vars\nmodules = "
      << hash_to_hex(unknown_hash) << " " << hash_to_hex(ptx_module_hash(vars)) << "\nlanguage = ptx\n";
  auto start = [&](const std::string& version) {
    DaemonOptions options(dir.path());
    options.native_dir = fs::path();
    options.recipes_dir = recipes;
    options.extra_args = {"--backend", "llvm", "--clang", clang_wrapper(dir.path(), version).string()};
    auto daemon = std::make_unique<DaemonProcess>(options);
    EXPECT_TRUE(daemon->start());
    return daemon;
  };
  std::unique_ptr<DaemonProcess> daemon = start("19.1.7-a");
  ASSERT_EQ(build(*daemon, "d4r_example_layer", "gfx1101").outcome(), pb::ResolveReply::READY);
  EXPECT_EQ(status_json(*daemon)["fast new"], 1);
  daemon->stop();
  daemon = start("19.1.7-b"); // a clang update: the object in the store is stale
  ASSERT_EQ(build(*daemon, "d4r_example_layer", "gfx1101").outcome(), pb::ResolveReply::READY);
  EXPECT_EQ(status_json(*daemon)["fast stale_toolchain"], 1) << "19.1.7-a -> 19.1.7-b";
  daemon->stop();
  {
    // A new recipe version: the object of the old one is stale.
    std::string recipe = read_file(recipes / "d4r_example_layer.recipe");
    size_t at = recipe.find("version = ");
    ASSERT_NE(at, std::string::npos);
    size_t end = recipe.find('\n', at);
    recipe.replace(at, end - at, "version = 99");
    std::ofstream(recipes / "d4r_example_layer.recipe", std::ios::trunc) << recipe;
  }
  daemon = start("19.1.7-b");
  ASSERT_EQ(build(*daemon, "d4r_example_layer", "gfx1101").outcome(), pb::ResolveReply::READY);
  EXPECT_EQ(resolve(*daemon, k_sr_module_hash, "d4r_cannot_select", "gfx1100").outcome(),
            pb::ResolveReply::NOT_FOUND);
  auto put = [&](const std::string& text) {
    pb::PutModuleRequest request;
    Sha256 digest = sha256(std::string_view(text));
    request.mutable_module()->set_fnv1a64(ptx_module_hash(text));
    request.mutable_module()->set_sha256(std::string(digest.begin(), digest.end()));
    request.set_ptx(text);
    pb::PutModuleReply reply;
    grpc::ClientContext context;
    return stub_of(*daemon)->PutModule(&context, request, &reply).ok();
  };
  ASSERT_TRUE(put(unknown));
  ASSERT_TRUE(put(vars));
  EXPECT_EQ(resolve(*daemon, unknown_hash, "d4r_unknown_op", "gfx1201").outcome(),
            pb::ResolveReply::NOT_FOUND);
  pb::ResolveReply vars_reply = resolve(*daemon, ptx_module_hash(vars), "module_vars", "gfx1201");
  EXPECT_EQ(vars_reply.outcome(), pb::ResolveReply::NOT_FOUND) << vars_reply.reason();
  EXPECT_EQ(vars_reply.reason().rfind("host_variables: ", 0), 0u) << vars_reply.reason();

  std::map<std::string, int64_t> s = status_json(*daemon);
  EXPECT_EQ(s["fast stale_translator"], 1) << "recipe version 1 -> 99";
  EXPECT_EQ(s["fast build_failed"], 1);
  EXPECT_EQ(s["fast unsupported_instruction"], 1);
  EXPECT_EQ(s["fast host_variables"], 1);
  EXPECT_GE(s["builds fast"], 4) << "example layer, crash, unknown op, module_vars";
  EXPECT_GE(s["build_failures fast"], 2);
  EXPECT_GT(s["build_ms_total fast"], 0);
  EXPECT_GT(s["bytes_built fast"], 0);
  daemon->stop();
  // The store now holds the kernel from 19.1.7-a and -b: a third toolchain is stale again
  // (while above, one object built by the same toolchain made the recipe the change).
  daemon = start("19.1.7-c");
  ASSERT_EQ(build(*daemon, "d4r_example_layer", "gfx1101").outcome(), pb::ResolveReply::READY);
  EXPECT_EQ(status_json(*daemon)["fast stale_toolchain"], 1) << "19.1.7-b -> 19.1.7-c";
  EXPECT_EQ(status_json(*daemon)["fast stale_translator"], 0);
}

// Three game processes (copies of the C client tool under other names): each is counted under
// its executable's name; the hostile one reads back escaped in the metrics.
TEST(Telemetry, PerGameCountsFromTheExecutablesName)
{
  TempDir dir;
  DaemonProcess daemon{DaemonOptions(dir.path())};
  ASSERT_TRUE(daemon.start());
  const std::string hostile = "Evil\"Game\\x {mode=\"fast\"}";
  for (const std::string& name : {std::string("GameOne"), std::string("GameTwo"), hostile}) {
    fs::copy_file(fs::path(D4R_BINARY_DIR) / "tests" / "d4r-test-resolve", dir.path() / name);
  }
  auto game = [&](const std::string& name, uint64_t hash, const std::string& kernel) {
    char hex[17];
    std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(hash));
    return run_tool({(dir.path() / name).string(), daemon.socket_path().string(), hex, kernel,
                     "5000"},
                    k_stdout_only)
        .exit_code;
  };
  EXPECT_EQ(game("GameOne", k_sr_module_hash, "d4r_test_layer"), 0);
  EXPECT_EQ(game("GameOne", k_sr_module_hash, "d4r_test_layer"), 0); // another process: a hit
  EXPECT_EQ(game("GameTwo", 0x5555666677778888ULL, "d4r_test_layer"), 1);
  EXPECT_EQ(game("GameTwo", k_sr_module_hash, "d4r_test_simple"), 0);
  EXPECT_EQ(game(hostile, k_sr_module_hash, "d4r_test_layer"), 0);

  std::map<std::string, int64_t> s = status_json(daemon);
  EXPECT_EQ(s["game GameOne fast misses"], 1);
  EXPECT_EQ(s["game GameOne fast hits"], 1);
  EXPECT_EQ(s["game GameTwo fast misses"], 2) << "an unlisted hash and a first import";
  EXPECT_EQ(s["game GameTwo fast hits"], 0);
  EXPECT_EQ(s["game " + hostile + " fast hits"], 1);
  EXPECT_EQ(s["fast unlisted_hash"], 1);

  std::map<std::string, double> m = metrics(daemon);
  EXPECT_EQ(m[R"(d4r_game_hits_total{game="GameOne",mode="fast"})"], 1);
  EXPECT_EQ(m[R"(d4r_game_misses_total{game="GameTwo",mode="fast"})"], 2);
  EXPECT_EQ(m[R"(d4r_game_hits_total{game="Evil\"Game\\x {mode=\"fast\"}",mode="fast"})"], 1);
  // Prometheus's parser reads the hostile name back as it was.
  ToolRun text = run_tool({cli().string(), "--socket", daemon.socket_path().string(), "metrics"},
                          k_stdout_only);
  std::map<std::string, double> parsed = parsed_by_prometheus_client(daemon, text.output);
  EXPECT_EQ(parsed["d4r_game_hits_total|game=" + hostile + "|mode=fast"], 1) << text.output;
}

} // namespace
} // namespace d4r::testing
