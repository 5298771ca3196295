// compiler/translate/support_library: the embedded bitcode of each target parses with LLVM,
// defines every function d4r_ptx_support.h declares, declares nothing but LLVM intrinsics (no
// libc or libm), and carries no target-cpu / target-features attribute (the amdgpu module must
// link into any gfx11/gfx12 module).

#include "compiler/translate/support_library.hpp"

#include <gtest/gtest.h>

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <string>

namespace {

using d4r::compiler::translate::TargetKind;

std::set<std::string> header_functions()
{
  std::ifstream in(std::string(D4R_TEST_SOURCE_DIR) + "/../kernels/support/d4r_ptx_support.h");
  std::stringstream text;
  text << in.rdbuf();
  const std::string s = text.str();
  std::set<std::string> names;
  const std::regex pattern(R"((__d4r_ptx_\w+)\()");
  for (auto it = std::sregex_iterator(s.begin(), s.end(), pattern); it != std::sregex_iterator(); ++it) {
    names.insert((*it)[1].str());
  }
  return names;
}

void check_module(TargetKind kind, const std::string& triple_prefix)
{
  std::span<const std::byte> bytes = d4r::compiler::translate::support_bitcode(kind);
  ASSERT_GT(bytes.size(), 1000u);
  llvm::LLVMContext context;
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char*>(bytes.data()), bytes.size()), "support");
  llvm::Expected<std::unique_ptr<llvm::Module>> module = llvm::parseBitcodeFile(buffer, context);
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  EXPECT_TRUE(llvm::StringRef((*module)->getTargetTriple()).starts_with(triple_prefix))
      << (*module)->getTargetTriple();
  const std::set<std::string> names = header_functions();
  ASSERT_GT(names.size(), 90u);
  for (const std::string& name : names) {
    const llvm::Function* function = (*module)->getFunction(name);
    ASSERT_NE(function, nullptr) << name;
    EXPECT_FALSE(function->isDeclaration()) << name;
  }
  for (const llvm::Function& function : (*module)->functions()) {
    if (function.isDeclaration()) {
      EXPECT_TRUE(function.isIntrinsic()) << "external call: " << function.getName().str();
    }
    EXPECT_FALSE(function.hasFnAttribute("target-cpu")) << function.getName().str();
    EXPECT_FALSE(function.hasFnAttribute("target-features")) << function.getName().str();
    EXPECT_FALSE(function.hasFnAttribute("no-builtins")) << function.getName().str();
  }
}

TEST(KernelsPtxSupportBitcode, AmdgpuModuleIsGenericAndComplete) { check_module(TargetKind::amdgpu, "amdgcn-amd-amdhsa"); }
TEST(KernelsPtxSupportBitcode, HostModuleIsComplete) { check_module(TargetKind::host, "x86_64"); }

} // namespace
