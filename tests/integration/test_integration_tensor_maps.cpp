// Tensor maps, the whole path: the game's module (nvcc's PTX of tests/ptx/isa/tensor_copies.cu,
// whose kernels copy through cp.async.bulk.tensor with a CUtensorMap parameter) is prepared and
// uploaded by the real C client, translated by the real daemon through a ptx recipe, and served
// only to a client whose cuTensorMapEncode* writes d4r's layout (D4RK_FLAG_WRITES_D4R_TENSOR_MAPS):
// the translated kernel traps on NVIDIA's opaque map. Any other client gets NOT_FOUND
// "tensor_maps", counted as not_found.tensor_maps, so ZLUDA compiles the kernel itself.

#include "client/d4r_kernel_client.h"
#include "compiler/launch_meta.hpp"
#include "compiler/translate/tensor_map_layout.hpp"
#include "c_client_support.hpp"
#include "daemon_process.hpp"
#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

namespace d4r::testing {
namespace {

constexpr const char* k_kernel = "tma_load_2d";

ClientPtr make_client(const std::filesystem::path& socket, uint32_t flags)
{
  return make_c_client(socket, flags);
}

// Two minutes: the support library's tensor copies make a slow build.
int resolve_built(d4rk_client* client, uint64_t hash, d4rk_kernel** out)
{
  return resolve_until_built(client, hash, k_kernel, out, std::chrono::seconds(120));
}

TEST(TensorMaps, ServedOnlyToAClientThatWritesOurLayout)
{
  TempDir dir;
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/isa/tensor_copies.sm_90.ptx");
  uint64_t hash = ptx_module_hash(ptx);
  std::filesystem::path recipes = dir.path() / "recipes";
  std::filesystem::create_directories(recipes);
  std::ofstream(recipes / "tensor_copies.recipe")
      << "recipe = ptx_tensor_copies\nversion = 1\nkernels = " << k_kernel << "\n"
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
  EXPECT_EQ(reason.rfind("tensor_maps: ", 0), 0u) << reason;
  EXPECT_NE(reason.find(k_kernel), std::string::npos) << reason;
  EXPECT_GE(daemon.counter("not_found.tensor_maps"), 1);
  EXPECT_EQ(daemon.counter("not_found.host_variables"), 0); // the module has none

  // Mirroring host variables is another capability: it does not make a client write our maps.
  ClientPtr mirroring = make_client(daemon.socket_path(), D4RK_FLAG_MIRRORS_HOST_VARIABLES);
  EXPECT_EQ(resolve_built(mirroring.get(), hash, &kernel), D4RK_NOT_FOUND) << d4rk_last_reason();
  EXPECT_EQ(std::string(d4rk_last_reason()).rfind("tensor_maps: ", 0), 0u) << d4rk_last_reason();

  ClientPtr writing = make_client(daemon.socket_path(), D4RK_FLAG_WRITES_D4R_TENSOR_MAPS);
  ASSERT_EQ(resolve_built(writing.get(), hash, &kernel), D4RK_READY) << d4rk_last_reason();
  ASSERT_NE(kernel, nullptr);
  // The served code object itself says it reads our layout.
  std::span<const std::byte> code(static_cast<const std::byte*>(kernel->code), kernel->code_size);
  Expected<compiler::LaunchMeta> meta = compiler::read_launch_meta(code, k_kernel);
  ASSERT_TRUE(meta.has_value()) << meta.error().message;
  EXPECT_EQ(meta->tensor_map_layout, D4R_TENSOR_MAP_MAGIC);
  d4rk_kernel_free(kernel);
  EXPECT_GE(daemon.counter("ready"), 1);
}

} // namespace
} // namespace d4r::testing
