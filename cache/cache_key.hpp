#pragma once
// The key of a cached object and its one text form. The text names an object in every tier (the
// negative cache's file names are its SHA-256, a remote tier's index keys are built on it), so it
// is written by to_text() alone and read back by parse().

#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <compare>
#include <cstdint>
#include <string>
#include <string_view>

namespace d4r::cache {

// Everything that changes the answer. Two requests with equal keys get the same object. The mode
// is not a field: each mode has its own store, and the text form takes it as an argument.
struct CacheKey {
  uint64_t module_hash = 0;
  std::string kernel;
  std::string target;    // the folder target: "gfx1201" or "gfx1201-fp8"
  std::string variant;   // canonical text of other switches that change the object ("" if none)
  std::string toolchain; // fingerprint of what built it ("prebuilt" for release objects)
  std::string recipe;    // recipe name and version, or the release object's identity

  // "MODE|KERNEL|TARGET|TOOLCHAIN|RECIPE", then "|" and the module hash's 16 hex digits unless it
  // is 0, then "|variant=VARIANT" unless the variant is empty. This is byte for byte the text the
  // build service wrote before this type existed (failures/<mode>/<sha256 of it>.txt must still
  // match). A '%' or '|' inside a field is written %25 or %7C, so that every key has one text and
  // every text one key (no field in use before held either).
  [[nodiscard]] std::string to_text(Mode mode) const;
  // The same key with only what names the kernel (kernel, module hash, target): the text of the
  // kernel whatever built it, for grouping the fingerprints of one kernel.
  [[nodiscard]] CacheKey kernel_only() const;
  // For people: "kernel foo (ptx 0123456789abcdef)".
  [[nodiscard]] std::string describe() const;

  friend auto operator<=>(const CacheKey&, const CacheKey&) = default;
};

struct ParsedKey {
  Mode mode = Mode::fast;
  CacheKey key;
};

// Reads what to_text() wrote; invalid_argument naming the problem otherwise.
[[nodiscard]] Expected<ParsedKey> parse_key_text(std::string_view text);

} // namespace d4r::cache
