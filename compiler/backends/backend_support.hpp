#pragma once
// Small pieces the backends share: files in and out, and compile-error messages.

#include "compiler/backend.hpp"
#include "util/error.hpp"

#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler {

// How many lines of a compiler's output an error message keeps (the end, where the error is).
inline constexpr int k_error_lines = 20;

// The last `max_lines` lines of `text`, without trailing newlines.
[[nodiscard]] std::string last_lines(std::string_view text, int max_lines);

// What a person needs from a compiler's output: when it crashed (a stack dump follows the error),
// its diagnostic lines ("error:", "LLVM ERROR:", "fatal error") instead of the dump's tail;
// otherwise the last `max_lines` lines.
[[nodiscard]] std::string compiler_summary(std::string_view text, int max_lines);

[[nodiscard]] Expected<std::vector<std::byte>> read_file_bytes(const std::filesystem::path& path);
[[nodiscard]] Expected<void> write_file_bytes(const std::filesystem::path& path,
                                              std::span<const std::byte> bytes);

// "llvm backend: kernel.hip for gfx1101", the object of every message about `job`.
[[nodiscard]] std::string job_label(std::string_view backend, const CompileJob& job);

// The work folder of `job`, created if missing.
[[nodiscard]] Expected<void> prepare_work_dir(std::string_view backend, const CompileJob& job);

} // namespace d4r::compiler

namespace d4r::compiler {

// Whether `flags` choose an optimisation level (-O0, -O2, -Os, ...).
[[nodiscard]] bool has_optimisation_flag(const std::vector<std::string>& flags);

// Whether LLVM 19's AMDGPU target knows the processor `target` ("gfx1101").
[[nodiscard]] bool is_llvm_amdgcn_target(std::string_view target);

} // namespace d4r::compiler
