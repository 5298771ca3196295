#pragma once
// Running translated PTX on the CPU executor in translate tests: one kernel module translated for
// the host and JIT-compiled, and the .param block of a kernel `k(.param .u64 out, .param .u64 in)`.

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {

// The executor of `text` translated for the host; a test failure and null when either step fails.
inline std::unique_ptr<cpu::Executor> host_executor(const std::string& text, int threads = 2)
{
  Expected<Translation> translation = translate_text(text, host_options());
  if (!translation) {
    ADD_FAILURE() << translation.error().message;
    return nullptr;
  }
  Expected<std::unique_ptr<cpu::Executor>> executor =
      cpu::Executor::create(std::move(*translation), cpu::ExecutorOptions{.threads = threads});
  if (!executor) {
    ADD_FAILURE() << executor.error().message;
    return nullptr;
  }
  return std::move(*executor);
}

inline std::vector<std::byte> pointer_params(void* out, const void* in)
{
  std::vector<std::byte> bytes(16);
  std::memcpy(bytes.data(), &out, 8);
  std::memcpy(bytes.data() + 8, &in, 8);
  return bytes;
}

// Runs kernel `k` of `text` on the CPU executor over `blocks` blocks of 256 threads with the
// parameters (out, in); a test failure and false when it does not translate, build or launch.
inline bool run_host_blocks(const std::string& text, uint32_t blocks, void* out, const void* in)
{
  std::unique_ptr<cpu::Executor> executor = host_executor(text);
  if (executor == nullptr) {
    return false;
  }
  Expected<cpu::LaunchStats> launched =
      executor->launch("k", cpu::LaunchShape{{blocks, 1, 1}, {256, 1, 1}, 0}, pointer_params(out, in));
  EXPECT_TRUE(launched.has_value()) << (launched ? std::string() : launched.error().message);
  return launched.has_value();
}

} // namespace d4r::compiler::translate::test
