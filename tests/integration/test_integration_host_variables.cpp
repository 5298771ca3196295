// Host-written module variables, the whole path: the game's module (nvcc's PTX of
// tests/ptx/isa/module_vars.cu, whose kernel reads __constant__ and __device__ variables the host
// fills with cudaMemcpyToSymbol) is prepared and uploaded by the real C client, translated by the
// real daemon through a ptx recipe, and served only to a client that mirrors host variables
// (D4RK_FLAG_MIRRORS_HOST_VARIABLES); one that does not gets NOT_FOUND "host_variables", counted
// as not_found.host_variables, so ZLUDA compiles the kernel itself.

#include "client/d4r_kernel_client.h"
#include "compiler/launch_meta.hpp"
#include "c_client_support.hpp"
#include "daemon_process.hpp"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace d4r::testing {
namespace {

ClientPtr make_client(const std::filesystem::path& socket, uint32_t flags)
{
  return make_c_client(socket, flags);
}

int resolve_built(d4rk_client* client, uint64_t hash, d4rk_kernel** out)
{
  return resolve_until_built(client, hash, "module_vars", out, std::chrono::seconds(60));
}

TEST(HostVariables, ServedOnlyToAClientThatMirrorsThem)
{
  TempDir dir;
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/isa/module_vars.sm_90.ptx");
  uint64_t hash = ptx_module_hash(ptx);
  std::filesystem::path recipes = dir.path() / "recipes";
  std::filesystem::create_directories(recipes);
  std::ofstream(recipes / "module_vars.recipe")
      << "recipe = ptx_module_vars\nversion = 1\nkernels = module_vars\n"
      << "modules = " << hash_to_hex(hash) << "\nlanguage = ptx\n";
  DaemonOptions options(dir.path());
  options.native_dir = std::filesystem::path();
  options.recipes_dir = recipes;
  options.gpu_arch = "gfx1201";
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());

  ClientPtr plain = make_client(daemon.socket_path(), 0);
  d4rk_module_info info{};
  ASSERT_EQ(d4rk_prepare_module(plain.get(), ptx.data(), ptx.size(), &info), D4RK_OK);
  ASSERT_EQ(info.module_hash, hash);
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(resolve_built(plain.get(), hash, &kernel), D4RK_NOT_FOUND) << d4rk_last_reason();
  EXPECT_EQ(kernel, nullptr);
  std::string reason = d4rk_last_reason();
  EXPECT_EQ(reason.rfind("host_variables: ", 0), 0u) << reason;
  EXPECT_NE(reason.find("(d_table, d_wide, k_init, k_scale)"), std::string::npos)
      << reason;
  // At least this answer (Prepare's background warm-up builds the kernel too, uncounted here).
  EXPECT_GE(daemon.counter("not_found.host_variables"), 1);
  // A ptx recipe translates this module: Prepare asked for it and the client uploaded it, off
  // the game's budget, before the build that needed it.
  EXPECT_EQ(daemon.counter("put_module"), 1);

  ClientPtr mirroring = make_client(daemon.socket_path(), D4RK_FLAG_MIRRORS_HOST_VARIABLES);
  ASSERT_EQ(resolve_built(mirroring.get(), hash, &kernel), D4RK_READY) << d4rk_last_reason();
  ASSERT_NE(kernel, nullptr);
  std::vector<std::string> listed;
  for (uint32_t i = 0; i < kernel->host_variable_count; ++i) {
    listed.push_back(std::string(kernel->host_variables[i].name) + ":" +
                     std::to_string(kernel->host_variables[i].size));
  }
  EXPECT_EQ(listed, (std::vector<std::string>{"d_table:256", "d_wide:8", "k_init:16",
                                               "k_scale:16"}))
      << "module_vars_static's s_bias and s_mask are not this kernel's";
  // The list is what the served code object itself exports (what hipModuleGetGlobal finds).
  std::span<const std::byte> code(static_cast<const std::byte*>(kernel->code), kernel->code_size);
  Expected<compiler::LaunchMeta> meta = compiler::read_launch_meta(code, "module_vars");
  ASSERT_TRUE(meta.has_value()) << meta.error().message;
  ASSERT_EQ(meta->host_variables.size(), listed.size());
  for (size_t i = 0; i < listed.size(); ++i) {
    EXPECT_EQ(meta->host_variables[i].name + ":" + std::to_string(meta->host_variables[i].size),
              listed[i]);
  }
  d4rk_kernel_free(kernel);
  EXPECT_GE(daemon.counter("ready"), 1);
}

} // namespace
} // namespace d4r::testing
