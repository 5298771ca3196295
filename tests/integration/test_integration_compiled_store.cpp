// The hook's own compiled modules through the real daemon, from C as a ZLUDA patch would call
// them: each store and lookup runs in a process of its own (tests/integration/compiled_c.c),
// so that what one process stored is what another is served. The "compiled modules" are real code
// objects clang-19 built (the release fixture), the PTX nvcc's and ours.

#include "client/d4r_kernel_client.h"
#include "daemon_process.hpp"
#include "tests/support/tool_run.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <fstream>
#include <string>
#include <vector>

namespace d4r::testing {
namespace {

// Runs d4r-test-compiled with `args` after its socket, stdout and stderr captured; `environment`
// is added to this process's.
ToolRun run_compiled_tool(const std::filesystem::path& socket, const std::vector<std::string>& args,
                          const std::vector<std::string>& environment = {})
{
  std::vector<std::string> argv = {
      (std::filesystem::path(D4R_BINARY_DIR) / "tests" / "d4r-test-compiled").string(),
      socket.string()};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_tool(argv, {environment, {}});
}

std::filesystem::path ptx_module() { return std::filesystem::path(D4R_TEST_SOURCE_DIR) / "ptx" / "mma_tile.sm_80.ptx"; }
std::filesystem::path other_ptx_module() { return std::filesystem::path(D4R_TEST_SOURCE_DIR) / "ptx" / "sr_module.ptx"; }
std::filesystem::path object_a() { return release_fixture() / "gfx1101" / "d4r_test_layer.hsaco"; }
std::filesystem::path object_b() { return release_fixture() / "gfx1100" / "d4r_test_simple.hsaco"; }

constexpr const char* k_identity = "zluda-test 5.0 (commit 1a2b3c4) comgr 2.8";

// The arguments after the socket: budget, command, PTX, object, identity, target, mode, options.
std::vector<std::string> call(const std::string& command, const std::filesystem::path& object,
                              const std::string& identity = k_identity,
                              const std::string& target = "gfx1101",
                              const std::string& mode = "fast",
                              const std::vector<std::string>& options = {"fast_math=1", "wave32"},
                              const std::filesystem::path& ptx = ptx_module(),
                              const std::string& budget_ms = "5000")
{
  std::vector<std::string> args = {budget_ms, command,  ptx.string(), object.string(),
                                   identity,  target,   mode};
  args.insert(args.end(), options.begin(), options.end());
  return args;
}

class CompiledStoreIntegration : public ::testing::Test {
protected:
  void SetUp() override
  {
    m_daemon = std::make_unique<DaemonProcess>(DaemonOptions(m_dir.path()));
    ASSERT_TRUE(m_daemon->start()) << "d4r-kerneld did not start";
  }

  ToolRun tool(const std::vector<std::string>& args, const std::vector<std::string>& env = {})
  {
    return run_compiled_tool(m_daemon->socket_path(), args, env);
  }

  // The stored object's file in the fast store: objects/<2 hex>/<62 hex>.
  std::filesystem::path object_file(const std::filesystem::path& object, const char* mode = "fast")
  {
    const std::string hex = sha256_hex_of_file(object);
    return m_daemon->cache_dir() / mode / "objects" / hex.substr(0, 2) / hex.substr(2);
  }

  TempDir m_dir;
  std::unique_ptr<DaemonProcess> m_daemon;
};

TEST_F(CompiledStoreIntegration, StoredByOneProcessIsServedToAnother)
{
  ToolRun stored = tool(call("store-wait", object_a()));
  ASSERT_EQ(stored.exit_code, 0) << stored.output;
  ToolRun found = tool(call("lookup", object_a()));
  ASSERT_EQ(found.exit_code, 0) << found.output;
  EXPECT_NE(found.output.find(sha256_hex_of_file(object_a())), std::string::npos) << found.output;
  EXPECT_TRUE(std::filesystem::is_regular_file(object_file(object_a())));
  EXPECT_EQ(m_daemon->counter("compiled.stored"), 1);
  EXPECT_EQ(m_daemon->counter("compiled.hit"), 1);
  // Options are a set: another order and a repeat find the same object.
  ToolRun reordered = tool(call("lookup", object_a(), k_identity, "gfx1101", "fast",
                                {"wave32", "fast_math=1", "wave32"}));
  EXPECT_EQ(reordered.exit_code, 0) << reordered.output;
}

// `d4r-kernel status` gives them a line of their own, per mode: entries, bytes (distinct objects)
// and the store's cap they share; --json the same as "compiled_store", read by python3.
TEST_F(CompiledStoreIntegration, StatusShowsThemOnALineOfTheirOwn)
{
  const std::string cli = (std::filesystem::path(D4R_BINARY_DIR) / "cli" / "d4r-kernel").string();
  const std::string socket = m_daemon->socket_path().string();
  ToolRun empty = run_tool({cli, "--socket", socket, "status"});
  ASSERT_EQ(empty.exit_code, 0) << empty.output;
  EXPECT_NE(empty.output.find("zluda compiles: fast 0 entries, 0 B of 4.0 GiB; accuracy 0 entries, "
                              "0 B of 4.0 GiB"),
            std::string::npos)
      << empty.output;
  ASSERT_EQ(tool(call("store-wait", object_a())).exit_code, 0);
  ASSERT_EQ(tool(call("store-wait", object_b(), k_identity, "gfx1101", "accuracy")).exit_code, 0);
  // Another option set with the same bytes: a second entry, the same object.
  ASSERT_EQ(tool(call("store-wait", object_b(), k_identity, "gfx1101", "accuracy",
                      {"fast_math=0"}))
                .exit_code,
            0);
  const int64_t size_a = static_cast<int64_t>(std::filesystem::file_size(object_a()));
  const int64_t size_b = static_cast<int64_t>(std::filesystem::file_size(object_b()));
  ToolRun text = run_tool({cli, "--socket", socket, "status"});
  ASSERT_EQ(text.exit_code, 0) << text.output;
  EXPECT_NE(text.output.find("zluda compiles: fast 1 entry, "), std::string::npos) << text.output;
  EXPECT_NE(text.output.find("; accuracy 2 entries, "), std::string::npos) << text.output;
  ToolRun json = run_tool({cli, "--socket", socket, "status", "--json"});
  ASSERT_EQ(json.exit_code, 0) << json.output;
  const std::filesystem::path doc = m_dir.path() / "status.json";
  std::ofstream(doc) << json.output;
  ToolRun parsed = run_tool(
      {"/usr/bin/python3", "-c",
       "import json, sys\n"
       "doc = json.load(open(sys.argv[1]))\n"
       "for s in doc['compiled_store']:\n"
       "    print(s['mode'], s['entries'], s['bytes'], s['max_bytes'])\n",
       doc.string()});
  ASSERT_EQ(parsed.exit_code, 0) << parsed.output << json.output;
  EXPECT_EQ(parsed.output, "fast 1 " + std::to_string(size_a) + " " + std::to_string(4LL << 30) +
                               "\naccuracy 2 " + std::to_string(size_b) + " " +
                               std::to_string(4LL << 30) + "\n")
      << json.output;
}

TEST_F(CompiledStoreIntegration, AQueuedStoreReachesTheDaemonAndAnotherProcess)
{
  // As a hook stores: queued, sent by the client's own thread; the tool waits until it is there.
  ToolRun stored = tool(call("store", object_b()));
  ASSERT_EQ(stored.exit_code, 0) << stored.output;
  EXPECT_NE(stored.output.find("queued store seen: yes"), std::string::npos) << stored.output;
  ToolRun found = tool(call("lookup", object_b()));
  EXPECT_EQ(found.exit_code, 0) << found.output;
}

TEST_F(CompiledStoreIntegration, AnotherCompilerIdentityNeverHits)
{
  ASSERT_EQ(tool(call("store-wait", object_a())).exit_code, 0);
  for (const std::string identity :
       {"zluda-test 5.0 (commit 1a2b3c5) comgr 2.8", "zluda-test 5.0 (commit 1a2b3c4) comgr 2.9",
        "zluda-test 5.0 (commit 1a2b3c4) comgr 2.8 ", "x"}) {
    ToolRun found = tool(call("lookup", object_a(), identity));
    EXPECT_EQ(found.exit_code, D4RK_NOT_FOUND) << identity << ": " << found.output;
    EXPECT_NE(found.output.find("not stored"), std::string::npos) << found.output;
  }
  EXPECT_EQ(tool(call("lookup", object_a())).exit_code, 0);
  // And the other module's hash misses under the same identity.
  ToolRun other = tool(call("lookup", object_a(), k_identity, "gfx1101", "fast",
                            {"fast_math=1", "wave32"}, other_ptx_module()));
  EXPECT_EQ(other.exit_code, D4RK_NOT_FOUND) << other.output;
}

TEST_F(CompiledStoreIntegration, AnotherOptionOrTargetNeverHits)
{
  ASSERT_EQ(tool(call("store-wait", object_a())).exit_code, 0);
  const std::vector<std::vector<std::string>> other_options = {
      {}, {"fast_math=1"}, {"fast_math=0", "wave32"}, {"fast_math=1", "wave32", "unroll=4"}};
  for (const std::vector<std::string>& options : other_options) {
    ToolRun found = tool(call("lookup", object_a(), k_identity, "gfx1101", "fast", options));
    EXPECT_EQ(found.exit_code, D4RK_NOT_FOUND) << options.size() << " options: " << found.output;
  }
  for (const std::string target : {"gfx1100", "gfx1201", "gfx1101:xnack-"}) {
    ToolRun found = tool(call("lookup", object_a(), k_identity, target));
    EXPECT_EQ(found.exit_code, D4RK_NOT_FOUND) << target << ": " << found.output;
  }
  EXPECT_EQ(m_daemon->counter("compiled.hit"), 0);
  EXPECT_EQ(m_daemon->counter("compiled.miss"), 7);
}

TEST_F(CompiledStoreIntegration, EachModeKeepsItsOwnObjects)
{
  ASSERT_EQ(tool(call("store-wait", object_a(), k_identity, "gfx1101", "fast")).exit_code, 0);
  ToolRun accuracy = tool(call("lookup", object_a(), k_identity, "gfx1101", "accuracy"));
  EXPECT_EQ(accuracy.exit_code, D4RK_NOT_FOUND) << accuracy.output;
  ASSERT_EQ(tool(call("store-wait", object_b(), k_identity, "gfx1101", "accuracy")).exit_code, 0);
  EXPECT_EQ(tool(call("lookup", object_b(), k_identity, "gfx1101", "accuracy")).exit_code, 0);
  EXPECT_EQ(tool(call("lookup", object_a(), k_identity, "gfx1101", "fast")).exit_code, 0);
  EXPECT_TRUE(std::filesystem::is_regular_file(object_file(object_b(), "accuracy")));
  EXPECT_FALSE(std::filesystem::exists(object_file(object_b(), "fast")));
  // The client's own mode, from the game's environment, is the key's when it names none.
  ToolRun from_env = tool(call("lookup", object_b(), k_identity, "gfx1101", "env"),
                          {"D4R_PREFER_ACCURACY=1"});
  EXPECT_EQ(from_env.exit_code, 0) << from_env.output;
  EXPECT_NE(from_env.output.find("mode 2"), std::string::npos) << from_env.output;
}

TEST_F(CompiledStoreIntegration, ADamagedObjectIsRefusedReportedAndQuarantined)
{
  ASSERT_EQ(tool(call("store-wait", object_a())).exit_code, 0);
  const std::filesystem::path file = object_file(object_a());
  ASSERT_TRUE(std::filesystem::is_regular_file(file));
  chmod(file.c_str(), 0644);
  {
    std::fstream stream(file, std::ios::in | std::ios::out | std::ios::binary);
    stream.seekg(200);
    char byte = 0;
    stream.read(&byte, 1);
    byte = static_cast<char>(byte ^ 0x5a);
    stream.seekp(200);
    stream.write(&byte, 1);
  }
  ToolRun damaged = tool(call("lookup", object_a()));
  EXPECT_EQ(damaged.exit_code, D4RK_NOT_FOUND) << damaged.output;
  EXPECT_NE(damaged.output.find("sha256 mismatch"), std::string::npos) << damaged.output;
  EXPECT_NE(damaged.output.find("reported to the daemon"), std::string::npos) << damaged.output;
  EXPECT_NE(damaged.output.find("quarantined"), std::string::npos) << damaged.output;
  EXPECT_EQ(m_daemon->counter("compiled.damage_report"), 1);
  EXPECT_FALSE(std::filesystem::exists(file));
  EXPECT_FALSE(std::filesystem::is_empty(m_daemon->cache_dir() / "fast" / "quarantine"));
  // Never named again; the next compile's store serves again.
  ToolRun after = tool(call("lookup", object_a()));
  EXPECT_EQ(after.exit_code, D4RK_NOT_FOUND) << after.output;
  EXPECT_NE(after.output.find("not stored"), std::string::npos) << after.output;
  ASSERT_EQ(tool(call("store-wait", object_a())).exit_code, 0);
  EXPECT_EQ(tool(call("lookup", object_a())).exit_code, 0);
}

TEST_F(CompiledStoreIntegration, DaemonDownIsAFastNotFound)
{
  ASSERT_EQ(tool(call("store-wait", object_a())).exit_code, 0);
  m_daemon->stop();
  const auto begin = std::chrono::steady_clock::now();
  ToolRun found = tool(call("lookup", object_a(), k_identity, "gfx1101", "fast",
                            {"fast_math=1", "wave32"}, ptx_module(), "50"));
  const auto took = std::chrono::steady_clock::now() - begin;
  EXPECT_EQ(found.exit_code, D4RK_NOT_FOUND) << found.output;
  // The call itself, as the tool timed it: within its 50 ms budget (a refused socket is at once).
  const size_t at = found.output.find("elapsed_us ");
  ASSERT_NE(at, std::string::npos) << found.output;
  EXPECT_LT(std::stoll(found.output.substr(at + 11)), 50'000) << found.output;
  EXPECT_LT(took, std::chrono::seconds(5)); // the whole process, start-up included
  ToolRun stored = tool(call("store-wait", object_a(), k_identity, "gfx1101", "fast",
                             {"fast_math=1", "wave32"}, ptx_module(), "50"));
  EXPECT_EQ(stored.exit_code, D4RK_NOT_STORED) << stored.output;
}

// In this process, as a hook calls it: what the library refuses before it asks anybody.
class CompiledStoreArguments : public CompiledStoreIntegration {
protected:
  d4rk_client* client()
  {
    if (!m_client) {
      d4rk_options options;
      d4rk_options_init(&options);
      m_socket = m_daemon->socket_path().string();
      options.socket_path = m_socket.c_str();
      options.budget_ms = 5000;
      EXPECT_EQ(d4rk_client_create(&options, &m_client), D4RK_OK);
    }
    return m_client;
  }
  void TearDown() override { d4rk_client_destroy(m_client); }

  d4rk_compiled_key key()
  {
    d4rk_compiled_key key{};
    key.struct_size = sizeof(key);
    key.module_sha256_hex = m_sha.c_str();
    key.compiler_identity = k_identity;
    key.target = "gfx1101";
    return key;
  }

  std::string m_socket;
  std::string m_sha = std::string(64, 'a');
  d4rk_client* m_client = nullptr;
};

TEST_F(CompiledStoreArguments, MalformedKeysAreRefused)
{
  const char byte = 1;
  d4rk_compiled* found = nullptr;
  d4rk_compiled_key good = key();
  ASSERT_EQ(d4rk_store_compiled(client(), &good, &byte, 1, D4RK_STORE_WAIT), D4RK_OK)
      << d4rk_last_reason();
  ASSERT_EQ(d4rk_lookup_compiled(client(), &good, &found), D4RK_READY) << d4rk_last_reason();
  EXPECT_EQ(found->code_size, 1U);
  EXPECT_EQ(found->mode, D4RK_MODE_FAST);
  d4rk_compiled_free(found);
  const char* control[] = {"fast\nmath"};
  std::vector<d4rk_compiled_key> bad(8, good);
  bad[0].struct_size = 0;
  bad[1].module_sha256_hex = "abc";
  bad[2].compiler_identity = "";
  bad[3].compiler_identity = nullptr;
  bad[4].target = "sm_80";
  bad[5].option_count = 1; // options NULL
  bad[6].options = control;
  bad[6].option_count = 1;
  bad[7].mode = 7;
  for (size_t i = 0; i < bad.size(); ++i) {
    found = nullptr;
    EXPECT_EQ(d4rk_lookup_compiled(client(), &bad[i], &found), D4RK_ERROR_INVALID_ARGUMENT) << i;
    EXPECT_EQ(found, nullptr);
    EXPECT_NE(std::string(d4rk_last_reason()).find("compiled module"), std::string::npos) << i;
    EXPECT_EQ(d4rk_store_compiled(client(), &bad[i], &byte, 1, 0), D4RK_ERROR_INVALID_ARGUMENT) << i;
  }
  EXPECT_EQ(d4rk_lookup_compiled(client(), nullptr, &found), D4RK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(d4rk_store_compiled(client(), &good, nullptr, 1, 0), D4RK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(d4rk_store_compiled(client(), &good, &byte, 0, 0), D4RK_ERROR_INVALID_ARGUMENT);
}

TEST_F(CompiledStoreArguments, AnObjectOverTheCapIsRefused)
{
  std::vector<char> huge(D4RK_MAX_COMPILED_BYTES + 1, 'x');
  d4rk_compiled_key k = key();
  EXPECT_EQ(d4rk_store_compiled(client(), &k, huge.data(), huge.size(), D4RK_STORE_WAIT),
            D4RK_ERROR_TOO_LARGE);
  EXPECT_NE(std::string(d4rk_last_reason()).find("larger than the cap"), std::string::npos)
      << d4rk_last_reason();
  // Exactly the cap is taken.
  EXPECT_EQ(d4rk_store_compiled(client(), &k, huge.data(), D4RK_MAX_COMPILED_BYTES, D4RK_STORE_WAIT),
            D4RK_OK)
      << d4rk_last_reason();
  d4rk_compiled* found = nullptr;
  ASSERT_EQ(d4rk_lookup_compiled(client(), &k, &found), D4RK_READY) << d4rk_last_reason();
  EXPECT_EQ(found->code_size, D4RK_MAX_COMPILED_BYTES);
  d4rk_compiled_free(found);
}

} // namespace
} // namespace d4r::testing
