#pragma once
// A Redis reply copied out of hiredis's tree, so that no hiredis type or ownership rule leaks
// past connection.cpp.

#include <cstdint>
#include <string>
#include <vector>

namespace d4r::cache::redis {

struct RedisReply {
  enum class Type { nil, string, status, integer, array, error };

  Type type = Type::nil;
  std::string text; // the bytes of a string, status or error reply
  int64_t integer = 0;
  std::vector<RedisReply> elements;

  [[nodiscard]] bool is_nil() const { return type == Type::nil; }
  [[nodiscard]] bool is_string() const { return type == Type::string; }
  [[nodiscard]] bool is_array() const { return type == Type::array; }
  [[nodiscard]] bool is_error() const { return type == Type::error; }
  [[nodiscard]] bool is_integer() const { return type == Type::integer; }
};

} // namespace d4r::cache::redis
