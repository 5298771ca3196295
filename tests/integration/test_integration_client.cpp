// The whole path as a game would use it: the C client asks the real daemon, which answers from the
// release fixture through its cache.

#include "client/d4r_kernel_client.h"
#include "compiler/launch_meta.hpp"
#include "daemon_process.hpp"
#include "util/digest.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

namespace d4r::testing {
namespace {

using Clock = std::chrono::steady_clock;

struct ClientDeleter {
  void operator()(d4rk_client* client) const { d4rk_client_destroy(client); }
};
using ClientPtr = std::unique_ptr<d4rk_client, ClientDeleter>;

struct KernelDeleter {
  void operator()(d4rk_kernel* kernel) const { d4rk_kernel_free(kernel); }
};
using KernelPtr = std::unique_ptr<d4rk_kernel, KernelDeleter>;

ClientPtr make_client(const std::filesystem::path& socket, int mode = D4RK_MODE_FAST,
                      uint32_t budget_ms = 2000)
{
  d4rk_options options;
  d4rk_options_init(&options);
  std::string path = socket.string();
  options.socket_path = path.c_str();
  options.budget_ms = budget_ms;
  options.mode = mode;
  options.target = "gfx1101";
  d4rk_client* client = nullptr;
  EXPECT_EQ(d4rk_client_create(&options, &client), D4RK_OK);
  return ClientPtr(client);
}

class ClientIntegration : public ::testing::Test {
protected:
  void SetUp() override
  {
    m_daemon = std::make_unique<DaemonProcess>(DaemonOptions(m_dir.path()));
    ASSERT_TRUE(m_daemon->start()) << "d4r-kerneld did not start";
  }

  TempDir m_dir;
  std::unique_ptr<DaemonProcess> m_daemon;
};

TEST_F(ClientIntegration, ResolvesTheLayerWithItsMetadata)
{
  ClientPtr client = make_client(m_daemon->socket_path());
  d4rk_kernel* raw = nullptr;
  ASSERT_EQ(d4rk_resolve(client.get(), k_sr_module_hash, "d4r_test_layer", &raw), D4RK_READY)
      << d4rk_last_reason();
  KernelPtr kernel(raw);

  std::filesystem::path object = release_fixture() / "gfx1101" / "d4r_test_layer.hsaco";
  std::string bytes = read_file(object);
  ASSERT_EQ(kernel->code_size, bytes.size());
  EXPECT_EQ(std::string_view(static_cast<const char*>(kernel->code), kernel->code_size), bytes);
  EXPECT_EQ(std::string(kernel->sha256_hex), sha256_hex_of_file(object));
  EXPECT_STREQ(kernel->target, "gfx1101");
  EXPECT_STREQ(kernel->amdhsa_target, "amdgcn-amd-amdhsa--gfx1101");
  EXPECT_EQ(kernel->mode, D4RK_MODE_FAST);

  // The daemon's answer equals what the metadata reader finds in the file itself.
  Expected<compiler::LaunchMeta> meta = compiler::read_launch_meta(
      {reinterpret_cast<const std::byte*>(bytes.data()), bytes.size()}, "d4r_test_layer");
  ASSERT_TRUE(meta) << meta.error().message;
  EXPECT_EQ(kernel->has_prep, 1);
  EXPECT_STREQ(kernel->prep.name, "d4r_test_layer_prep");
  EXPECT_EQ(kernel->prep_blocks, meta->prep_blocks);
  EXPECT_NE(kernel->prep_blocks, 0u);
  EXPECT_EQ(kernel->prep_key_offset, meta->prep_key_offset);
  EXPECT_EQ(kernel->prep_key_at, meta->prep_key_at);
  EXPECT_EQ(kernel->prep_key_slots, meta->prep_key_slots);
  EXPECT_EQ(kernel->prep_identity_at, meta->prep_identity_at);
  EXPECT_EQ(kernel->block_z, meta->block_z);
  EXPECT_EQ(kernel->grid_x, meta->grid_x);
  EXPECT_EQ(kernel->main.kernarg_size, meta->main.kernarg_size);
  EXPECT_EQ(kernel->main.wave_size, 32u);
  EXPECT_EQ(kernel->main.lds_bytes, meta->main.lds_bytes);
  ASSERT_EQ(kernel->post_count, 2u);
  ASSERT_EQ(meta->posts.size(), 2u);
  for (uint32_t i = 0; i < kernel->post_count; ++i) {
    EXPECT_EQ(kernel->posts[i].name, meta->posts[i].name);
    EXPECT_EQ(kernel->posts[i].grid_x, meta->posts[i].grid_x);
    EXPECT_EQ(kernel->posts[i].grid_y, meta->posts[i].grid_y);
    EXPECT_EQ(kernel->posts[i].block_x, meta->posts[i].block_x);
    EXPECT_EQ(kernel->posts[i].block_y, meta->posts[i].block_y);
    EXPECT_EQ(kernel->posts[i].block_z, meta->posts[i].block_z);
  }
}

TEST_F(ClientIntegration, AnObjectDamagedAfterItWasCheckedIsReportedAndServedIntact)
{
  std::string intact = read_file(release_fixture() / "gfx1101" / "d4r_test_layer.hsaco");
  std::string hex;
  {
    ClientPtr first = make_client(m_daemon->socket_path());
    d4rk_kernel* raw = nullptr;
    ASSERT_EQ(d4rk_resolve(first.get(), k_sr_module_hash, "d4r_test_layer", &raw), D4RK_READY)
        << d4rk_last_reason();
    KernelPtr kernel(raw);
    hex = kernel->sha256_hex;
  }
  // The daemon has checked this object once; now the disk damages it (a bit flips in place).
  std::filesystem::path object = m_dir.path() / "cache" / "fast" / "objects" / hex.substr(0, 2) /
                                 hex.substr(2);
  ASSERT_TRUE(std::filesystem::exists(object)) << object;
  ::chmod(object.c_str(), 0600);
  {
    std::fstream file(object, std::ios::in | std::ios::out | std::ios::binary);
    file.seekg(100);
    char byte = 0;
    file.read(&byte, 1);
    file.seekp(100);
    byte = static_cast<char>(byte ^ 0x10);
    file.write(&byte, 1);
  }
  ClientPtr second = make_client(m_daemon->socket_path());
  d4rk_kernel* raw = nullptr;
  ASSERT_EQ(d4rk_resolve(second.get(), k_sr_module_hash, "d4r_test_layer", &raw), D4RK_READY)
      << d4rk_last_reason();
  KernelPtr kernel(raw);
  EXPECT_EQ(std::string_view(static_cast<const char*>(kernel->code), kernel->code_size), intact);
  EXPECT_EQ(m_daemon->counter("client.damage_report"), 1);
  EXPECT_EQ(m_daemon->counter("cache.corrupt_object"), 1);
}

TEST_F(ClientIntegration, PreparedModuleHashAuthorisesItsEntries)
{
  ClientPtr client = make_client(m_daemon->socket_path());
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/sr_module.ptx");
  d4rk_module_info info{};
  ASSERT_EQ(d4rk_prepare_module(client.get(), ptx.data(), ptx.size() + 1, &info), D4RK_OK);
  EXPECT_EQ(info.module_hash, k_sr_module_hash);
  EXPECT_EQ(info.entry_count, 5u);
  d4rk_kernel* raw = nullptr;
  ASSERT_EQ(d4rk_resolve(client.get(), info.module_hash, "d4r_test_simple", &raw), D4RK_READY)
      << d4rk_last_reason();
  KernelPtr kernel(raw);
  EXPECT_EQ(kernel->has_prep, 0);
  EXPECT_EQ(kernel->post_count, 0u);
  // Every entry is served from the release: nothing would read the module's text, so the daemon
  // did not ask for it (uploads are for ptx recipes; test_integration_host_variables has one).
  EXPECT_EQ(m_daemon->counter("prepare"), 1);
  EXPECT_EQ(m_daemon->counter("put_module"), 0);
}

TEST_F(ClientIntegration, UnlistedHashIsNotFound)
{
  ClientPtr client = make_client(m_daemon->socket_path());
  d4rk_kernel* raw = nullptr;
  EXPECT_EQ(d4rk_resolve(client.get(), 0x1234567890abcdefULL, "d4r_test_layer", &raw), D4RK_NOT_FOUND);
  EXPECT_EQ(raw, nullptr);
  EXPECT_NE(std::string(d4rk_last_reason()), "");
  EXPECT_EQ(m_daemon->counter("not_found.hash_mismatch"), 1);
}

TEST_F(ClientIntegration, AccuracyModeGetsTheAccuracyObjectOnly)
{
  ClientPtr fast = make_client(m_daemon->socket_path(), D4RK_MODE_FAST);
  ClientPtr accurate = make_client(m_daemon->socket_path(), D4RK_MODE_ACCURACY);
  d4rk_kernel* raw_fast = nullptr;
  d4rk_kernel* raw_accurate = nullptr;
  ASSERT_EQ(d4rk_resolve(fast.get(), k_sr_module_hash, "d4r_test_layer", &raw_fast), D4RK_READY);
  ASSERT_EQ(d4rk_resolve(accurate.get(), k_sr_module_hash, "d4r_test_layer", &raw_accurate),
            D4RK_READY)
      << d4rk_last_reason();
  KernelPtr fast_kernel(raw_fast);
  KernelPtr accurate_kernel(raw_accurate);
  EXPECT_EQ(accurate_kernel->mode, D4RK_MODE_ACCURACY);
  EXPECT_EQ(std::string(accurate_kernel->sha256_hex),
            sha256_hex_of_file(release_fixture() / "accuracy" / "gfx1101" / "d4r_test_layer.hsaco"));
  EXPECT_STRNE(accurate_kernel->sha256_hex, fast_kernel->sha256_hex);
  // The two modes keep separate stores.
  EXPECT_TRUE(std::filesystem::exists(m_daemon->cache_dir() / "accuracy" / "index.sqlite"));
  EXPECT_TRUE(std::filesystem::exists(m_daemon->cache_dir() / "fast" / "index.sqlite"));
}

TEST_F(ClientIntegration, AccuracyNeverFallsBackToFastObjects)
{
  // gfx1100 has a fast folder but no accuracy folder in the fixture.
  d4rk_options options;
  d4rk_options_init(&options);
  std::string path = m_daemon->socket_path().string();
  options.socket_path = path.c_str();
  options.budget_ms = 2000;
  options.mode = D4RK_MODE_ACCURACY;
  options.target = "gfx1100";
  d4rk_client* raw_client = nullptr;
  ASSERT_EQ(d4rk_client_create(&options, &raw_client), D4RK_OK);
  ClientPtr client(raw_client);
  d4rk_kernel* raw = nullptr;
  EXPECT_EQ(d4rk_resolve(client.get(), k_sr_module_hash, "d4r_test_layer", &raw), D4RK_NOT_FOUND);
  EXPECT_EQ(raw, nullptr);
}

TEST_F(ClientIntegration, ThirtyTwoThreadsGetTheSameAnswer)
{
  ClientPtr client = make_client(m_daemon->socket_path());
  std::string expected = sha256_hex_of_file(release_fixture() / "gfx1101" / "d4r_test_layer.hsaco");
  std::atomic<int> ready{0};
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 32; ++t) {
    threads.emplace_back([&, t] {
      // Half the threads use their own client, so the daemon sees real concurrency too.
      ClientPtr own = (t % 2 == 0) ? make_client(m_daemon->socket_path()) : nullptr;
      d4rk_client* use = own ? own.get() : client.get();
      for (int i = 0; i < 20; ++i) {
        d4rk_kernel* raw = nullptr;
        if (d4rk_resolve(use, k_sr_module_hash, "d4r_test_layer", &raw) == D4RK_READY) {
          KernelPtr kernel(raw);
          (std::string(kernel->sha256_hex) == expected ? ready : wrong)++;
        } else {
          wrong++;
        }
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(ready.load(), 32 * 20);
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(ClientIntegration, DaemonThatNeverAnswersCostsOnlyTheBudget)
{
  ClientPtr client = make_client(m_daemon->socket_path(), D4RK_MODE_FAST, 100);
  m_daemon->send_signal(SIGSTOP); // accepts at the kernel level, never answers
  d4rk_kernel* raw = nullptr;
  Clock::time_point start = Clock::now();
  int outcome = d4rk_resolve(client.get(), k_sr_module_hash, "d4r_test_layer", &raw);
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  m_daemon->send_signal(SIGCONT);
  EXPECT_EQ(outcome, D4RK_NOT_FOUND);
  EXPECT_EQ(raw, nullptr);
  EXPECT_LT(elapsed.count(), 600) << "budget 100 ms";
}

TEST(ClientWithoutDaemon, FailsOpenWithinTheBudget)
{
  TempDir dir;
  ClientPtr client = make_client(dir.path() / "no-such-socket", D4RK_MODE_FAST, 50);
  d4rk_kernel* raw = nullptr;
  Clock::time_point start = Clock::now();
  EXPECT_EQ(d4rk_resolve(client.get(), k_sr_module_hash, "d4r_test_layer", &raw), D4RK_NOT_FOUND);
  auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start);
  EXPECT_EQ(raw, nullptr);
  EXPECT_LT(elapsed.count(), 500) << "budget 50 ms";
}

TEST_F(ClientIntegration, PeerOfAnotherUidIsRefused)
{
  if (geteuid() != 0) {
    GTEST_SKIP() << "needs root to act as another uid";
  }
  // Open the filesystem permissions so that only the daemon's SO_PEERCRED check stands between
  // uid 65534 and the service.
  for (std::filesystem::path folder = m_daemon->socket_path().parent_path();
       folder != m_dir.path().parent_path(); folder = folder.parent_path()) {
    chmod(folder.c_str(), 0755);
  }
  chmod(m_daemon->socket_path().c_str(), 0777);
  std::string socket = m_daemon->socket_path().string();
  std::string tool = (std::filesystem::path(D4R_BINARY_DIR) / "tests" / "d4r-test-resolve").string();
  pid_t child = fork();
  if (child == 0) {
    // A fresh process (exec) as uid 65534: no gRPC state is carried across the fork.
    if (setgid(65534) != 0 || setuid(65534) != 0) {
      _exit(90);
    }
    execl(tool.c_str(), tool.c_str(), socket.c_str(), "8baeb925f177af87", "d4r_test_layer", "500",
          static_cast<char*>(nullptr));
    _exit(91);
  }
  int status = 0;
  waitpid(child, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), D4RK_NOT_FOUND);
  EXPECT_GE(m_daemon->counter("peer_refused"), 1);
  EXPECT_EQ(m_daemon->counter("ready"), 0);
}

} // namespace
} // namespace d4r::testing
