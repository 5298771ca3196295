#include "util/error.hpp"

namespace d4r {

const char* to_string(ErrorCode code)
{
  switch (code) {
  case ErrorCode::invalid_argument:
    return "invalid argument";
  case ErrorCode::not_found:
    return "not found";
  case ErrorCode::io:
    return "i/o error";
  case ErrorCode::corrupt:
    return "corrupt";
  case ErrorCode::rejected:
    return "rejected";
  case ErrorCode::unavailable:
    return "unavailable";
  case ErrorCode::timeout:
    return "timeout";
  case ErrorCode::permission_denied:
    return "permission denied";
  case ErrorCode::resource_exhausted:
    return "resource exhausted";
  case ErrorCode::internal:
    return "internal error";
  }
  return "unknown error";
}

} // namespace d4r
