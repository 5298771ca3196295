// The shipped libd4r_kernel_client.so as a hook sees it: its exports, its C header, and its
// fail-open answer with no daemon.

#include "client/d4r_kernel_client.h"

#include "util/digest.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

extern "C" int client_c_smoke(const char* socket_path);

namespace {

std::string fresh_dir()
{
  std::string pattern = "/tmp/d4rk-abi-XXXXXX";
  char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr);
  return pattern;
}

std::vector<std::string> exported_symbols()
{
  std::string command = std::string("nm -D --defined-only ") + D4R_CLIENT_LIBRARY;
  std::vector<std::string> names;
  FILE* pipe = popen(command.c_str(), "r");
  if (!pipe) {
    return names;
  }
  char line[512];
  while (std::fgets(line, sizeof line, pipe)) {
    std::istringstream fields(line);
    std::string address, type, name;
    fields >> address >> type >> name;
    if (!name.empty()) {
      names.push_back(name);
    }
  }
  EXPECT_EQ(pclose(pipe), 0) << command;
  return names;
}

TEST(ClientAbi, ExportsOnlyD4rkSymbols)
{
  std::vector<std::string> names = exported_symbols();
  ASSERT_FALSE(names.empty());
  for (const std::string& name : names) {
    EXPECT_TRUE(name.starts_with("d4rk_")) << "exported: " << name;
  }
  for (const char* wanted :
       {"d4rk_client_create", "d4rk_client_destroy", "d4rk_prepare_module", "d4rk_resolve",
        "d4rk_kernel_free", "d4rk_last_reason", "d4rk_options_init"}) {
    EXPECT_NE(std::find(names.begin(), names.end(), wanted), names.end()) << wanted;
  }
}

TEST(ClientAbi, HeaderWorksFromC)
{
  std::string socket = fresh_dir() + "/absent.sock";
  EXPECT_EQ(client_c_smoke(socket.c_str()), 0);
}

TEST(ClientAbi, NoDaemonFailsOpenWithinBudget)
{
  d4rk_options options;
  d4rk_options_init(&options);
  std::string socket = fresh_dir() + "/absent.sock";
  options.socket_path = socket.c_str();
  options.budget_ms = 50;
  d4rk_client* client = nullptr;
  ASSERT_EQ(d4rk_client_create(&options, &client), D4RK_OK);

  std::ifstream file(std::string(D4R_TEST_SOURCE_DIR) + "/ptx/sr_module.ptx", std::ios::binary);
  std::string ptx((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(ptx.empty());
  d4rk_module_info info{};
  auto start = std::chrono::steady_clock::now();
  ASSERT_EQ(d4rk_prepare_module(client, ptx.data(), ptx.size(), &info), D4RK_OK);
  EXPECT_EQ(info.module_hash, 0x8baeb925f177af87ULL);
  EXPECT_EQ(std::string(info.sha256_hex), d4r::to_hex(d4r::sha256(ptx)));
  EXPECT_EQ(info.entry_count, 5U);
  for (int i = 0; i < 5; ++i) {
    d4rk_kernel* kernel = nullptr;
    EXPECT_EQ(d4rk_resolve(client, info.module_hash, "d4r_test_layer", &kernel), D4RK_NOT_FOUND);
    EXPECT_EQ(kernel, nullptr);
    EXPECT_STRNE(d4rk_last_reason(), "");
  }
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::milliseconds(250));
  d4rk_client_destroy(client);
}

TEST(ClientAbi, NullArgumentsAreRefused)
{
  d4rk_client* client = nullptr;
  EXPECT_EQ(d4rk_client_create(nullptr, nullptr), D4RK_ERROR_INVALID_ARGUMENT);
  d4rk_options zero{};
  EXPECT_EQ(d4rk_client_create(&zero, &client), D4RK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(client, nullptr);
  d4rk_options bad_mode;
  d4rk_options_init(&bad_mode);
  bad_mode.mode = 7;
  EXPECT_EQ(d4rk_client_create(&bad_mode, &client), D4RK_ERROR_INVALID_ARGUMENT);

  std::string socket = fresh_dir() + "/absent.sock";
  d4rk_options options;
  d4rk_options_init(&options);
  options.socket_path = socket.c_str();
  ASSERT_EQ(d4rk_client_create(&options, &client), D4RK_OK);
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(client, 1, nullptr, &kernel), D4RK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(d4rk_resolve(nullptr, 1, "k", &kernel), D4RK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(d4rk_resolve(client, 1, "k", nullptr), D4RK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(d4rk_prepare_module(client, nullptr, 4, nullptr), D4RK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(d4rk_prepare_module(client, "x", 0, nullptr), D4RK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(d4rk_prepare_module(nullptr, "x", 1, nullptr), D4RK_ERROR_INVALID_ARGUMENT);
  d4rk_kernel_free(nullptr);
  d4rk_client_destroy(client);
  d4rk_client_destroy(nullptr);
}

TEST(ClientAbi, OlderShorterOptionsStillWork)
{
  // A caller built before log_fn existed passes a struct that ends before it.
  std::string socket = fresh_dir() + "/absent.sock";
  d4rk_options options;
  d4rk_options_init(&options);
  options.socket_path = socket.c_str();
  options.struct_size = offsetof(d4rk_options, log_fn);
  d4rk_client* client = nullptr;
  ASSERT_EQ(d4rk_client_create(&options, &client), D4RK_OK);
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(client, 1, "some_kernel", &kernel), D4RK_NOT_FOUND);
  d4rk_client_destroy(client);
}

} // namespace
