// Module-scope .global/.const variables (module_translator.cpp): every one, with or without an
// initialiser and .visible, is a symbol of the translation named as in PTX, and no load from it
// folds (the host writes it with cuModuleGetGlobal; the golden cases module_vars_* show the H200
// reading what the host wrote, static and initialised variables included). For AMDGPU the linked
// code object exports each one as a protected STT_OBJECT of its size in an allocated section, as
// clang does for HIP's __device__ / __constant__, and read_launch_meta lists them. Variables
// declared in a function body are invisible to the host and may fold.

#include "compiler/launch_meta.hpp"
#include "compiler/ptx_build.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <llvm/IR/GlobalVariable.h>
#include <llvm/Object/ELFObjectFile.h>

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

// One kernel reads four module variables: uninitialised .const and .global (no linkage, as nvcc
// writes them), an initialised .const and a .visible .global.
const std::string k_module = R"(.version 8.0
.target sm_86
.address_size 64
.const .align 4 .u32 c_plain;
.global .align 4 .b8 g_table[64];
.const .align 4 .b8 c_init[8] = {1, 0, 0, 0, 2};
.visible .global .align 8 .u64 g_visible;
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<8>;
  .reg .b64 %rd<8>;
  ld.param.u64 %rd1, [out];
  ld.const.u32 %r1, [c_plain];
  st.global.u32 [%rd1], %r1;
  ld.global.u32 %r2, [g_table+12];
  st.global.u32 [%rd1+4], %r2;
  ld.const.u32 %r3, [c_init+4];
  st.global.u32 [%rd1+8], %r3;
  ld.global.u64 %rd2, [g_visible];
  st.global.u64 [%rd1+16], %rd2;
  ret;
}
)";

const std::map<std::string, uint64_t> k_sizes = {
    {"c_plain", 4}, {"g_table", 64}, {"c_init", 8}, {"g_visible", 8}};

void expect_kept(const llvm::Module& module, bool amdgpu)
{
  for (const auto& [name, size] : k_sizes) {
    const llvm::GlobalVariable* global = module.getGlobalVariable(name);
    ASSERT_NE(global, nullptr) << name << " is gone:\n" << ir_text(module);
    EXPECT_FALSE(global->hasLocalLinkage()) << name;
    EXPECT_TRUE(global->isExternallyInitialized()) << name;
    EXPECT_FALSE(global->isConstant()) << name;
    EXPECT_EQ(module.getDataLayout().getTypeAllocSize(global->getValueType()), size) << name;
    if (amdgpu) {
      EXPECT_EQ(global->getVisibility(), llvm::GlobalValue::ProtectedVisibility) << name;
      unsigned space = name.starts_with("c_") ? 4 : 1; // constant and global address spaces
      EXPECT_EQ(global->getAddressSpace(), space) << name;
    }
  }
}

TEST(ModuleVars, HostKeepsEverySymbolAndFoldsNoLoad)
{
  Expected<Translation> translation = translate_text(k_module, host_options());
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  EXPECT_EQ(verify_text(*translation->module), "");
  expect_kept(*translation->module, false);
  // Before the fix the three uninitialised loads stored 0 and the initialised one 2.
  EXPECT_EQ(stored_values(*translation->module, "k"),
            (std::vector<std::string>{"?", "?", "?", "?"}))
      << ir_text(*translation->module);
}

TEST(ModuleVars, AmdgpuKeepsEverySymbolAndFoldsNoLoad)
{
  for (const char* target : k_targets) {
    Expected<Translation> translation = translate_text(k_module, amdgpu_options(target));
    ASSERT_TRUE(translation.has_value()) << target << ": " << translation.error().message;
    expect_kept(*translation->module, true);
    EXPECT_EQ(stored_values(*translation->module, "k"),
              (std::vector<std::string>{"?", "?", "?", "?"}))
        << target << "\n" << ir_text(*translation->module);
  }
}

// The exported data symbols of a code object, read with LLVM's ELF reader (not ours).
struct ElfSymbol {
  uint64_t size = 0;
  unsigned char type = 0;
  unsigned char binding = 0;
  unsigned char visibility = 0;
  bool allocated = false;
};

std::map<std::string, ElfSymbol> dynamic_symbols(const std::vector<std::byte>& bytes)
{
  std::map<std::string, ElfSymbol> out;
  llvm::StringRef data(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  auto elf = llvm::object::ELF64LEFile::create(data);
  EXPECT_TRUE(static_cast<bool>(elf));
  if (!elf) {
    llvm::consumeError(elf.takeError());
    return out;
  }
  auto sections = llvm::cantFail(elf->sections());
  for (const auto& section : sections) {
    if (section.sh_type != llvm::ELF::SHT_DYNSYM) {
      continue;
    }
    llvm::StringRef strings = llvm::cantFail(elf->getStringTableForSymtab(section, sections));
    for (const auto& symbol : llvm::cantFail(elf->symbols(&section))) {
      if (symbol.st_shndx == llvm::ELF::SHN_UNDEF || symbol.st_shndx >= sections.size()) {
        continue;
      }
      ElfSymbol entry{symbol.st_size, symbol.getType(), symbol.getBinding(),
                      symbol.getVisibility(),
                      (sections[symbol.st_shndx].sh_flags & llvm::ELF::SHF_ALLOC) != 0};
      out[llvm::cantFail(symbol.getName(strings)).str()] = entry;
    }
  }
  return out;
}

TEST(ModuleVars, CodeObjectExportsEachVariableAndMetadataListsThem)
{
  for (const char* target : {"gfx1100", "gfx1201"}) {
    Expected<Translation> translation = translate_text(k_module, amdgpu_options(target));
    ASSERT_TRUE(translation.has_value()) << translation.error().message;
    Expected<std::vector<std::byte>> object = code_object(*translation, target);
    ASSERT_TRUE(object.has_value()) << object.error().message;
    std::map<std::string, ElfSymbol> symbols = dynamic_symbols(*object);
    for (const auto& [name, size] : k_sizes) {
      ASSERT_TRUE(symbols.contains(name)) << target << ": no dynamic symbol " << name;
      const ElfSymbol& symbol = symbols[name];
      EXPECT_EQ(symbol.size, size) << name;
      EXPECT_EQ(symbol.type, llvm::ELF::STT_OBJECT) << name;
      EXPECT_EQ(symbol.binding, llvm::ELF::STB_GLOBAL) << name;
      EXPECT_EQ(symbol.visibility, llvm::ELF::STV_PROTECTED) << name;
      EXPECT_TRUE(symbol.allocated) << name << " is not in a loaded section";
    }
    Expected<LaunchMeta> meta = read_launch_meta(*object, "k");
    ASSERT_TRUE(meta.has_value()) << meta.error().message;
    std::map<std::string, uint64_t> listed;
    for (const HostVariable& variable : meta->host_variables) {
      listed[variable.name] = variable.size;
    }
    EXPECT_EQ(listed, k_sizes) << target;
    // The kernel reads the variables through PC-relative addresses (s_getpc_b64, resolved by lld
    // against the protected symbols), c_plain with a 32-bit scalar load, instead of storing 0.
    std::string listing = disassemble(*object, target);
    EXPECT_GE(occurrences(listing, "s_getpc_b64"), 1) << listing;
    EXPECT_GE(occurrences(listing, "s_load_b32"), 1) << listing;
  }
}

// nvcc's own module, as the golden cases run it: its six variables (two static) are listed.
TEST(ModuleVars, NvccModuleListsEveryVariable)
{
  std::ifstream in(std::string(D4R_PTX_DIR) + "/isa/module_vars.sm_90.ptx");
  std::ostringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  Expected<Translation> translation = translate_text(text.str(), amdgpu_options("gfx1201"));
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  Expected<std::vector<std::byte>> object = code_object(*translation, "gfx1201");
  ASSERT_TRUE(object.has_value()) << object.error().message;
  Expected<LaunchMeta> meta = read_launch_meta(*object, "module_vars");
  ASSERT_TRUE(meta.has_value()) << meta.error().message;
  std::vector<std::string> names;
  for (const HostVariable& variable : meta->host_variables) {
    names.push_back(variable.name + ":" + std::to_string(variable.size));
  }
  EXPECT_EQ(names, (std::vector<std::string>{"d_table:256", "d_wide:8", "k_init:16", "k_scale:16",
                                              "s_bias:4", "s_mask:8"}));
}

// A daemon build serves one kernel (ptx_build: one entry): its code object keeps only the
// variables that kernel reaches, so another kernel's variables do not make it a kernel with host
// variables (which the daemon refuses to a client that does not mirror them).
TEST(ModuleVars, OneEntryBuildListsOnlyItsKernelsVariables)
{
  std::ifstream in(std::string(D4R_PTX_DIR) + "/isa/module_vars.sm_90.ptx");
  std::ostringstream text;
  text << in.rdbuf();
  ASSERT_FALSE(text.str().empty());
  const std::map<std::string, std::vector<std::string>> expected = {
      {"module_vars", {"d_table:256", "d_wide:8", "k_init:16", "k_scale:16"}},
      {"module_vars_static", {"s_bias:4", "s_mask:8"}},
  };
  for (const auto& [entry, variables] : expected) {
    SCOPED_TRACE(entry);
    compiler::PtxBuild build;
    build.target = "gfx1201";
    build.entry = entry;
    std::string log;
    Expected<std::vector<std::byte>> object = compiler::build_ptx_code_object(text.str(), build, log);
    ASSERT_TRUE(object.has_value()) << object.error().message;
    Expected<LaunchMeta> meta = read_launch_meta(*object, entry);
    ASSERT_TRUE(meta.has_value()) << meta.error().message;
    std::vector<std::string> names;
    for (const HostVariable& variable : meta->host_variables) {
      names.push_back(variable.name + ":" + std::to_string(variable.size));
    }
    EXPECT_EQ(names, variables);
  }
}

// A .global declared in a function body cannot be named by the host: it stays internal, and a
// module without module-scope variables lists none.
TEST(ModuleVars, BodyVariablesStayInternal)
{
  const std::string text = kernel_text("  .global .align 4 .u32 hidden;\n"
                                       "  ld.global.u32 %r1, [hidden];\n"
                                       "  add.u32 %r1, %r1, 1;\n"
                                       "  st.global.u32 [hidden], %r1;\n"
                                       "  st.global.u32 [%rd1], %r1;\n");
  Expected<Translation> translation = translate_text(text, amdgpu_options("gfx1201"));
  ASSERT_TRUE(translation.has_value()) << translation.error().message;
  for (const llvm::GlobalVariable& global : translation->module->globals()) {
    EXPECT_FALSE(global.isExternallyInitialized()) << global.getName().str();
    if (global.getName().contains("hidden")) {
      EXPECT_TRUE(global.hasLocalLinkage());
    }
  }
  Expected<std::vector<std::byte>> object = code_object(*translation, "gfx1201");
  ASSERT_TRUE(object.has_value()) << object.error().message;
  Expected<LaunchMeta> meta = read_launch_meta(*object, "k");
  ASSERT_TRUE(meta.has_value()) << meta.error().message;
  EXPECT_TRUE(meta->host_variables.empty());
}

} // namespace
} // namespace d4r::compiler::translate::test
