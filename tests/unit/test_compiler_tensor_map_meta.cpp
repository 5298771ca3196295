// A kernel that reads or writes tensor maps (cp.async.bulk.tensor, cp.reduce.async.bulk.tensor,
// tensormap.replace) reads them in d4r's layout (compiler/translate/tensor_map_layout.hpp) and
// traps on NVIDIA's: its code object exports D4R_TENSOR_MAP_SYMBOL holding the layout's magic, and
// read_launch_meta reports it (LaunchMeta::tensor_map_layout), so that the daemon serves the
// object only to a client that writes that layout. The objects are built as the daemon builds a
// ptx recipe's kernel (build_ptx_code_object, one entry) from nvcc's PTX of our own CUDA.

#include "compiler/launch_meta.hpp"
#include "compiler/ptx_build.hpp"
#include "compiler/translate/tensor_map_layout.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>

namespace d4r::compiler {
namespace {

std::string read_ptx(const std::string& name)
{
  std::ifstream in(std::string(D4R_PTX_DIR) + "/isa/" + name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Expected<LaunchMeta> built_meta(const std::string& ptx, const std::string& entry)
{
  PtxBuild build;
  build.target = "gfx1201";
  build.entry = entry;
  std::string log;
  TRY_ASSIGN(std::vector<std::byte> object, build_ptx_code_object(ptx, build, log));
  return read_launch_meta(object, entry);
}

TEST(TensorMapMeta, TensorCopyKernelsReportOurLayout)
{
  const std::string copies = read_ptx("tensor_copies.sm_90.ptx");
  const std::string replace = read_ptx("tensor_copies.sm_90a.ptx");
  ASSERT_FALSE(copies.empty());
  ASSERT_FALSE(replace.empty());
  const std::pair<const std::string*, const char*> kernels[] = {
      {&copies, "tma_load_2d"}, {&copies, "tma_store_1d"}, {&copies, "tma_reduce_2d"},
      {&replace, "tma_replace"}};
  for (const auto& [ptx, entry] : kernels) {
    SCOPED_TRACE(entry);
    Expected<LaunchMeta> meta = built_meta(*ptx, entry);
    ASSERT_TRUE(meta.has_value()) << meta.error().message;
    EXPECT_EQ(meta->tensor_map_layout, D4R_TENSOR_MAP_MAGIC);
    // A contract symbol, not a variable the host writes.
    for (const HostVariable& variable : meta->host_variables) {
      EXPECT_NE(variable.name, D4R_TENSOR_MAP_SYMBOL);
    }
  }
}

TEST(TensorMapMeta, OrdinaryKernelReportsNone)
{
  const std::string ptx = read_ptx("module_vars.sm_90.ptx");
  ASSERT_FALSE(ptx.empty());
  Expected<LaunchMeta> meta = built_meta(ptx, "module_vars");
  ASSERT_TRUE(meta.has_value()) << meta.error().message;
  EXPECT_EQ(meta->tensor_map_layout, 0u);
  EXPECT_FALSE(meta->host_variables.empty()); // the same reader saw the object's symbols
}

} // namespace
} // namespace d4r::compiler
