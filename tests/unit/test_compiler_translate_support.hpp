#pragma once
// Shared by the translator's tests: PTX text -> Translation, the stores a kernel makes after O2
// (constants, where the lowering folded), code generation, the kernarg layout of the amdhsa.kernels
// note, disassembly with ${D4R_LLVM_OBJDUMP}, and counting what a listing or IR text holds.

#include "compiler/backends/llvm_codegen.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/translate/translator.hpp"

#include <gtest/gtest.h>

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wnull-dereference"
#endif

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/IR/Constants.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {

inline const std::array<const char*, 6> k_targets = {"gfx1100", "gfx1101", "gfx1102",
                                                     "gfx1103", "gfx1200", "gfx1201"};

inline TranslateOptions host_options(bool optimise = true)
{
  TranslateOptions options;
  options.kind = TargetKind::host;
  options.optimise = optimise;
  return options;
}

inline TranslateOptions amdgpu_options(const std::string& processor)
{
  TranslateOptions options;
  options.kind = TargetKind::amdgpu;
  options.processor = processor;
  options.fp8_native = processor.rfind("gfx12", 0) == 0;
  return options;
}

inline Expected<Translation> translate_text(const std::string& text, const TranslateOptions& options)
{
  Expected<ptx::Module> module = ptx::parse_module(text);
  if (!module) {
    return std::unexpected(module.error());
  }
  return translate_module(*module, options);
}

// A module with one kernel `k(.param .u64 out, .param .u64 in)` whose body starts with the
// registers most tests use and %rd1 = out, %rd2 = in (generic addresses).
inline std::string kernel_text(const std::string& body, const std::string& extra_params = "")
{
  return ".version 8.0\n.target sm_86\n.address_size 64\n"
         ".visible .entry k(.param .u64 out, .param .u64 in" + extra_params + ")\n{\n"
         "  .reg .pred %p<8>;\n  .reg .b16 %rs<8>;\n  .reg .b32 %r<16>;\n  .reg .f32 %f<16>;\n"
         "  .reg .b64 %rd<16>;\n  .reg .f64 %fd<8>;\n"
         "  ld.param.u64 %rd1, [out];\n  ld.param.u64 %rd2, [in];\n" + body + "\n  ret;\n}\n";
}

inline std::string verify_text(llvm::Module& module)
{
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::verifyModule(module, &os);
  return text;
}

inline std::string ir_text(const llvm::Module& module)
{
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os, nullptr);
  return text;
}

// The values of every store in function `name`, in order: integers as their zero-extended bits,
// floats as their bit pattern; a store of a non-constant is recorded as "?".
inline std::vector<std::string> stored_values(const llvm::Module& module, const std::string& name)
{
  std::vector<std::string> out;
  const llvm::Function* function = module.getFunction(name);
  if (function == nullptr) {
    return out;
  }
  for (const llvm::BasicBlock& block : *function) {
    for (const llvm::Instruction& instruction : block) {
      const auto* store = llvm::dyn_cast<llvm::StoreInst>(&instruction);
      if (store == nullptr) {
        continue;
      }
      const llvm::Value* value = store->getValueOperand();
      if (const auto* integer = llvm::dyn_cast<llvm::ConstantInt>(value)) {
        out.push_back(llvm::utohexstr(integer->getZExtValue()));
      } else if (const auto* real = llvm::dyn_cast<llvm::ConstantFP>(value)) {
        out.push_back(llvm::utohexstr(real->getValueAPF().bitcastToAPInt().getZExtValue()));
      } else {
        out.push_back("?");
      }
    }
  }
  return out;
}

// The constants kernel `k` of `kernel_text(body)` stores, translated for the host; a test failure
// when it does not translate, does not verify, or a store did not fold to a constant.
inline std::vector<std::string> host_stores(const std::string& body)
{
  Expected<Translation> translation = translate_text(kernel_text(body), host_options());
  if (!translation) {
    ADD_FAILURE() << translation.error().message;
    return {};
  }
  EXPECT_EQ(verify_text(*translation->module), "");
  std::vector<std::string> values = stored_values(*translation->module, "k");
  if (std::find(values.begin(), values.end(), "?") != values.end()) {
    ADD_FAILURE() << "a store did not fold:\n" << ir_text(*translation->module);
  }
  return values;
}

struct KernargEntry {
  int64_t offset = -1;
  int64_t size = -1;
};

struct NoteKernel {
  std::string name;
  std::vector<KernargEntry> args;
  std::map<std::string, int64_t> hidden_offsets; // by .value_kind
};

// The kernels of a code object's NT_AMDGPU_METADATA note: their explicit args in order and the
// offsets of the hidden ones.
inline std::vector<NoteKernel> read_note_kernels(const std::vector<std::byte>& code_object,
                                                 std::string& error)
{
  std::vector<NoteKernel> out;
  llvm::StringRef bytes(reinterpret_cast<const char*>(code_object.data()), code_object.size());
  auto elf = llvm::object::ELFFile<llvm::object::ELF64LE>::create(bytes);
  if (!elf) {
    error = llvm::toString(elf.takeError());
    return out;
  }
  auto sections = elf->sections();
  if (!sections) {
    error = llvm::toString(sections.takeError());
    return out;
  }
  for (const auto& section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE) {
      continue;
    }
    llvm::Error note_error = llvm::Error::success();
    for (const auto& note : elf->notes(section, note_error)) {
      if (note.getName() != "AMDGPU" || note.getType() != llvm::ELF::NT_AMDGPU_METADATA) {
        continue;
      }
      llvm::msgpack::Document doc;
      if (!doc.readFromBlob(note.getDescAsStringRef(std::max<size_t>(section.sh_addralign, 4)),
                            false)) {
        error = "unreadable metadata";
        llvm::consumeError(std::move(note_error));
        return out;
      }
      for (auto& kernel : doc.getRoot().getMap()["amdhsa.kernels"].getArray()) {
        auto& map = kernel.getMap();
        NoteKernel entry;
        entry.name = map[".name"].getString().str();
        for (auto& arg : map[".args"].getArray()) {
          auto& arg_map = arg.getMap();
          const llvm::StringRef kind = arg_map[".value_kind"].getString();
          if (kind.starts_with("hidden_")) {
            entry.hidden_offsets[kind.str()] = static_cast<int64_t>(arg_map[".offset"].getUInt());
            continue;
          }
          entry.args.push_back(KernargEntry{static_cast<int64_t>(arg_map[".offset"].getUInt()),
                                            static_cast<int64_t>(arg_map[".size"].getUInt())});
        }
        out.push_back(entry);
      }
    }
    llvm::consumeError(std::move(note_error));
  }
  return out;
}

inline Expected<std::vector<std::byte>> code_object(Translation& translation,
                                                    const std::string& processor)
{
  CodegenOptions options;
  options.target = processor;
  options.optimise = false; // the translator ran O2
  options.label = "translate test";
  std::string log;
  return codegen_code_object(*translation.module, options, log);
}

// `${D4R_LLVM_OBJDUMP} -d --mcpu=T` of a code object.
inline std::string disassemble(const std::vector<std::byte>& object, const std::string& mcpu)
{
  std::filesystem::path file = std::filesystem::temp_directory_path() /
                               ("d4r-translate-test-" + std::to_string(::getpid()) + ".hsaco");
  std::ofstream(file, std::ios::binary)
      .write(reinterpret_cast<const char*>(object.data()),
             static_cast<std::streamsize>(object.size()));
  std::string command =
      std::string(D4R_LLVM_OBJDUMP) + " -d --mcpu=" + mcpu + " '" + file.string() + "' 2>&1";
  std::string text;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe != nullptr) {
    std::array<char, 4096> chunk{};
    size_t read = 0;
    while ((read = std::fread(chunk.data(), 1, chunk.size(), pipe)) > 0) {
      text.append(chunk.data(), read);
    }
    ::pclose(pipe);
  }
  std::filesystem::remove(file);
  return text;
}

// How many times `what` occurs in `text` (overlapping occurrences count).
inline int occurrences(const std::string& text, const std::string& what)
{
  int found = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++found;
  }
  return found;
}

// The disassembly of the PTX module `text` translated for AMDGPU `target` and linked; a test
// failure (and an empty string) when either step fails.
inline std::string amdgpu_disassembly(const std::string& text, const char* target)
{
  Expected<Translation> translation = translate_text(text, amdgpu_options(target));
  EXPECT_TRUE(translation.has_value()) << target << ": " << translation.error().message;
  if (!translation) {
    return {};
  }
  Expected<std::vector<std::byte>> object = code_object(*translation, target);
  EXPECT_TRUE(object.has_value()) << target << ": " << object.error().message;
  return object ? disassemble(*object, target) : std::string();
}

} // namespace d4r::compiler::translate::test
