#pragma once
// Which backend builds each known GPU target on this machine, and that backend's fingerprint (part
// of every build's cache key, compiler/backend.hpp). Only d4r-kernel-worker can tell: the backends
// link LLVM and comgr is loaded with dlopen, and the daemon maps neither (its memory). The daemon
// runs `d4r-kernel-worker --toolchains [--backend NAME] [--clang PATH]` once at start-up
// (daemon/toolchain_probe.hpp) and reads what it prints, one line per target:
//
//   gfx1100 comgr comgr backend; comgr 2.8 (libamd_comgr.so.3)
//   gfx1201 llvm llvm backend; llvm 19.1.7; Debian clang version 19.1.7
//
// target, backend and the fingerprint to the end of the line, in which a backslash is written as
// "\\" and a line break as "\n" so that any fingerprint reads back byte for byte.

#include "util/error.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace d4r::compiler {

inline constexpr std::string_view k_toolchains_flag = "--toolchains";

struct TargetToolchain {
  std::string target;      // "gfx1101"
  std::string backend;     // "llvm" | "clang" | "comgr"
  std::string fingerprint; // Backend::fingerprint(), or "unavailable:NAME"
};

[[nodiscard]] std::string format_toolchains(const std::vector<TargetToolchain>& toolchains);
// Errors: invalid_argument naming the line (fewer than three fields, an empty one, a bad escape).
[[nodiscard]] Expected<std::vector<TargetToolchain>> parse_toolchains(std::string_view text);

} // namespace d4r::compiler
