#pragma once
// The one error type that crosses folders (STYLE.md, rule 5): a code a caller can branch on and a
// message, LLVM style, that names the object ("cache: kernel foo (ptx 3f2a...): sha256 mismatch").

#include <cassert>
#include <expected>
#include <string>
#include <utility>

namespace d4r {

enum class ErrorCode {
  invalid_argument,   // the request or input is malformed: never retried
  not_found,          // nothing to serve: the caller falls back
  io,                 // the filesystem said no (permissions, full disk, ...)
  corrupt,            // stored data failed a check (digest, schema, ELF)
  rejected,           // the input is well formed but breaks a contract
  unavailable,        // a peer or service is not there
  timeout,            // a deadline passed
  permission_denied,  // a peer or caller is not allowed
  resource_exhausted, // a size or count limit
  internal,           // a bug or an unexpected library failure
};

struct Error {
  ErrorCode code = ErrorCode::internal;
  std::string message;
};

template <typename T> using Expected = std::expected<T, Error>;

[[nodiscard]] inline std::unexpected<Error> make_error(ErrorCode code, std::string message)
{
  return std::unexpected<Error>(Error{code, std::move(message)});
}

[[nodiscard]] const char* to_string(ErrorCode code);

} // namespace d4r

// Passes an error up: TRY(expr) for Expected<void>, TRY_ASSIGN(var, expr) to unwrap a value.
#define D4R_CONCAT_INNER(a_, b_) a_##b_
#define D4R_CONCAT(a_, b_) D4R_CONCAT_INNER(a_, b_)

#define TRY(expr_)                                                                                 \
  do {                                                                                             \
    auto&& d4r_try_result_ = (expr_);                                                              \
    if (!d4r_try_result_) {                                                                        \
      return std::unexpected(std::move(d4r_try_result_).error());                                  \
    }                                                                                              \
  } while (false)

#define TRY_ASSIGN(var_, expr_) TRY_ASSIGN_IMPL(var_, expr_, D4R_CONCAT(d4r_try_, __LINE__))
#define TRY_ASSIGN_IMPL(var_, expr_, tmp_)                                                         \
  auto&& tmp_ = (expr_);                                                                           \
  if (!tmp_) {                                                                                     \
    return std::unexpected(std::move(tmp_).error());                                               \
  }                                                                                                \
  var_ = std::move(*tmp_)

#define D4R_UNREACHABLE(why_)                                                                      \
  do {                                                                                             \
    assert(false && why_);                                                                         \
    __builtin_unreachable();                                                                       \
  } while (false)
