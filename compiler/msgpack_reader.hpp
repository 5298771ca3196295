#pragma once
// A small MessagePack decoder (https://github.com/msgpack/msgpack/blob/master/spec.md) for the
// AMDGPU metadata note (launch_meta.cpp), without LLVM. It decodes one value into a tree whose
// strings point into the input. Bounded for hostile input: nesting at most k_max_depth levels, and
// no count is trusted beyond the bytes left (each element takes at least one), so a damaged note
// costs an error (ErrorCode::corrupt), never a large allocation, a deep recursion or a trap.
//
// Why not a library: Debian's msgpack-c would be one more build and run-time dependency for a
// reader of eight fields; this one needs no allocation beyond the tree and is fuzzed by the
// launch-metadata tests (FlippedBytesNeverCrash).

#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace d4r::compiler::msgpack {

inline constexpr int k_max_depth = 32;

enum class Kind { nil, boolean, unsigned_int, signed_int, floating, string, binary, array, map,
                  extension };

struct Value {
  Kind kind = Kind::nil;
  uint64_t unsigned_value = 0; // unsigned_int, boolean (0 or 1)
  int64_t signed_value = 0;    // signed_int: the formats of signed integers, even when >= 0
  double float_value = 0;
  std::string_view text;       // string, binary, extension payload
  std::vector<Value> items;    // array: the elements; map: key, value, key, value, ...

  // A map's value for a string key (the first, if repeated); null when absent or not a map.
  [[nodiscard]] const Value* find(std::string_view key) const;
  // An unsigned_int, or a signed_int >= 0.
  [[nodiscard]] bool is_non_negative_integer() const;
  [[nodiscard]] uint64_t as_unsigned() const;
};

// Decodes the first value of `bytes`; bytes after it are ignored. Errors: corrupt.
[[nodiscard]] Expected<Value> decode(std::span<const std::byte> bytes);

} // namespace d4r::compiler::msgpack
