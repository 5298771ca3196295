#pragma once
// What the warm tests and bench/warm_bench.cpp share: a synthetic DLL with real nvcc fatbins
// inside (our PE writer, tests/tools/make_pe.cpp), recipes that serve its kernels, and running
// d4r-kernel as a child (on pipes, or on a pty for the progress bar).

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace d4r::testing {

// The three modules of the DLL (tests/fixtures/fatbin/README.md) and their seven entries.
inline constexpr uint64_t k_dll_module_sm86 = 0x82ae23aab5d00154ULL;   // 3 entries
inline constexpr uint64_t k_dll_module_sm80 = 0x499dc26a793a24d4ULL;   // 2 entries
inline constexpr uint64_t k_dll_module_sm90 = 0xf66045ac7d23f1e3ULL;   // 2 entries
inline constexpr int64_t k_dll_entries = 7;

// DIR/NAME made by d4r-make-pe from fatbin_kernels.default.fatbin (ZSTD) and multi_arch.fatbin
// (cubins and two ZSTD PTX entries).
[[nodiscard]] std::filesystem::path make_synthetic_dll(const std::filesystem::path& dir,
                                                       const std::string& name);

// DIR/recipes: a ptx recipe translating every entry of the DLL's three modules; with `slow`, a
// HIP recipe for those names whose compile never ends (only the CPU limit stops it) instead. Both
// also carry the shipped d4r_example_layer recipe (module 8baeb925f177af87), a game's kernel.
[[nodiscard]] std::filesystem::path warm_recipes(const std::filesystem::path& dir, bool slow);

struct Child {
  pid_t pid = -1;
  int output = -1; // stdout (+ stderr on a pty)
};

// Starts `args` with stdout on a pipe (stderr to `stderr_file`), or on a pty as its terminal.
[[nodiscard]] Child spawn_on_pipe(const std::vector<std::string>& args,
                                  const std::filesystem::path& stderr_file);
[[nodiscard]] Child spawn_on_pty(const std::vector<std::string>& args);

// One line of the child's output (without the newline); false at its end.
[[nodiscard]] bool read_line(int fd, std::string& buffer, std::string& line);
// Everything until the end.
[[nodiscard]] std::string read_all(int fd);
// The exit status (128 + signal when killed).
[[nodiscard]] int wait_child(pid_t pid);

[[nodiscard]] std::filesystem::path cli_binary();

} // namespace d4r::testing
