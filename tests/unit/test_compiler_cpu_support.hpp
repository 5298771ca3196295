#pragma once
// Helpers for the CPU executor's tests: a Translation built by hand from LLVM IR text that follows
// translate/host_abi.hpp (so the executor is tested without the translator), and param packing.

#include "compiler/cpu/executor.hpp"
#include "compiler/translate/translator.hpp"

#include <gtest/gtest.h>
#include <llvm/AsmParser/Parser.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/SourceMgr.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace d4r::compiler::cpu::testing {

// The runtime of host_abi.hpp as IR declarations. d4r_host_thread offsets: tid 0, ntid 12,
// ctaid 24, nctaid 36, laneid 48, warpid 52, nwarpid 56, lanemask_eq 60, shared 64,
// shared_bytes 72.
inline const char* k_runtime_declarations = R"(
declare void @d4r_rt_barrier(ptr, i32, i32, i32)
declare i32 @d4r_rt_barrier_reduce(ptr, i32, i32, i32, i32)
declare void @d4r_rt_barrier_arrive(ptr, i32, i32, i32)
declare i32 @d4r_rt_warp_exchange(ptr, i32, i32, i32, i32)
declare i32 @d4r_rt_warp_ballot(ptr, i32, i32, i32)
declare void @d4r_rt_warp_sync(ptr, i32, i32)
declare void @d4r_rt_warp_gather(ptr, i32, i32, ptr, i32, ptr)
declare void @d4r_rt_trap(ptr, i32)
declare void @d4r_rt_tex_2d_f32(ptr, i64, float, float, ptr)
declare void @d4r_rt_sust_b_2d(ptr, i64, i32, i32, ptr, i32, i32)
declare void @d4r_rt_sust_p_2d(ptr, i64, i32, i32, ptr, i32)
declare void @d4r_rt_suld_b_2d(ptr, i64, i32, i32, ptr, i32, i32)
)";

inline translate::KernelSignature signature(std::string name, int64_t param_bytes,
                                            int64_t static_shared = 0, bool dynamic_shared = false)
{
  translate::KernelSignature s;
  s.name = std::move(name);
  for (int64_t offset = 0; offset < param_bytes; offset += 8) {
    s.params.push_back({"p" + std::to_string(offset / 8), ".u64", offset, 8, 8});
  }
  s.param_bytes = param_bytes;
  s.static_shared_bytes = static_shared;
  s.uses_dynamic_shared = dynamic_shared;
  return s;
}

// Parses `ir` (after the runtime declarations) into a Translation; a parse error fails the test.
inline translate::Translation translation_from_ir(const std::string& ir,
                                                  std::vector<translate::KernelSignature> kernels)
{
  translate::Translation t;
  t.context = std::make_unique<llvm::LLVMContext>();
  llvm::SMDiagnostic diagnostic;
  t.module = llvm::parseAssemblyString(std::string(k_runtime_declarations) + ir, diagnostic,
                                       *t.context);
  if (!t.module) {
    ADD_FAILURE() << "ir line " << diagnostic.getLineNo() << ": "
                  << diagnostic.getMessage().str();
  }
  t.kernels = std::move(kernels);
  return t;
}

inline std::unique_ptr<Executor> executor_from_ir(const std::string& ir,
                                                  std::vector<translate::KernelSignature> kernels,
                                                  const ExecutorOptions& options = {})
{
  Expected<std::unique_ptr<Executor>> e =
      Executor::create(translation_from_ir(ir, std::move(kernels)), options);
  if (!e) {
    ADD_FAILURE() << e.error().message;
    return nullptr;
  }
  return std::move(*e);
}

// A .param block of 8-byte slots: pointers and u64s.
template <typename... Values> std::vector<std::byte> params(Values... values)
{
  std::vector<std::byte> bytes;
  auto append = [&bytes](auto value) {
    uint64_t slot = 0;
    if constexpr (std::is_pointer_v<decltype(value)>) {
      slot = reinterpret_cast<uint64_t>(value);
    } else {
      slot = static_cast<uint64_t>(value);
    }
    const size_t at = bytes.size();
    bytes.resize(at + 8);
    std::memcpy(bytes.data() + at, &slot, 8);
  };
  (append(values), ...);
  return bytes;
}

} // namespace d4r::compiler::cpu::testing
