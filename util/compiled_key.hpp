#pragma once
// What makes a compiled module of the hook's own compiler (ZLUDA compiling a whole PTX module when
// no native replacement serves it) valid, as the client and the daemon both check it: the PTX
// module's SHA-256, the compiler's build identity as the hook reports it, the gfx target, every
// option the hook says changes the output, and the accuracy mode. The client refuses a malformed
// key before it asks; the daemon checks again (a remote client is not this library) and keys the
// cache by the canonical form. Header-only: both sides include it and nothing else of the other.

#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace d4r {

// A compiled module larger than this is refused (by the client before it copies it, by the
// daemon before it holds it). ZLUDA's code object of a DLSS module is a few MiB; the cap stays
// under the daemon's largest message (--max-ptx-bytes plus 1 MiB) at its default.
inline constexpr int64_t k_max_compiled_bytes = 64LL << 20;
inline constexpr size_t k_max_compiler_identity = 1024;
inline constexpr size_t k_max_compile_option = 4096;
inline constexpr size_t k_max_compile_options = 256;
inline constexpr size_t k_max_compiled_target = 64;

struct CompiledKey {
  Sha256 module_sha256{};
  std::string compiler_identity;
  std::string target;
  std::vector<std::string> options; // canonical: sorted, each once
  Mode mode = Mode::fast;
};

namespace compiled_key_detail {

// Printable ASCII only: the strings are opaque, but they reach the log and the index as text.
inline bool printable(std::string_view text)
{
  return std::all_of(text.begin(), text.end(), [](char c) { return c >= 0x20 && c <= 0x7e; });
}

inline Expected<void> check_text(std::string_view what, std::string_view text, size_t limit)
{
  if (text.empty() || text.size() > limit) {
    return make_error(ErrorCode::invalid_argument,
                      "compiled module: " + std::string(what) + " of " +
                          std::to_string(text.size()) + " bytes (1.." + std::to_string(limit) +
                          " allowed)");
  }
  if (!printable(text)) {
    return make_error(ErrorCode::invalid_argument, "compiled module: " + std::string(what) +
                                                       " has a byte outside printable ASCII");
  }
  return {};
}

// "gfx1100", or an LLVM target id with features ("gfx90a:xnack-"): gfx, then [0-9a-z:+-].
inline Expected<void> check_target(std::string_view target)
{
  const bool shaped = target.size() > 3 && target.size() <= k_max_compiled_target &&
                      target.starts_with("gfx") &&
                      std::all_of(target.begin() + 3, target.end(), [](char c) {
                        return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || c == ':' ||
                               c == '+' || c == '-';
                      });
  if (!shaped) {
    return make_error(ErrorCode::invalid_argument,
                      "compiled module: target '" + std::string(target.substr(0, 80)) +
                          "' is not a gfx name");
  }
  return {};
}

} // namespace compiled_key_detail

// Checks every part and puts the options in canonical order: a set, so that a hook that lists
// them in another order (or twice) finds what it stored. An option whose order matters is passed
// as one string with its order inside.
[[nodiscard]] inline Expected<CompiledKey> make_compiled_key(const Sha256& module_sha256,
                                                             std::string_view compiler_identity,
                                                             std::string_view target,
                                                             std::vector<std::string> options,
                                                             Mode mode)
{
  TRY(compiled_key_detail::check_text("compiler identity", compiler_identity,
                                      k_max_compiler_identity));
  TRY(compiled_key_detail::check_target(target));
  if (options.size() > k_max_compile_options) {
    return make_error(ErrorCode::invalid_argument,
                      "compiled module: " + std::to_string(options.size()) + " options (at most " +
                          std::to_string(k_max_compile_options) + ")");
  }
  for (const std::string& option : options) {
    TRY(compiled_key_detail::check_text("an option", option, k_max_compile_option));
  }
  std::sort(options.begin(), options.end());
  options.erase(std::unique(options.begin(), options.end()), options.end());
  CompiledKey key;
  key.module_sha256 = module_sha256;
  key.compiler_identity = std::string(compiler_identity);
  key.target = std::string(target);
  key.options = std::move(options);
  key.mode = mode;
  return key;
}

// The canonical options as one text: one per line (an option has no line break), sorted.
[[nodiscard]] inline std::string canonical_options_text(const CompiledKey& key)
{
  std::string text;
  for (const std::string& option : key.options) {
    text += option;
    text += '\n';
  }
  return text;
}

} // namespace d4r
