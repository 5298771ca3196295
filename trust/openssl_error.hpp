#pragma once
// OpenSSL reports why a call failed on a per-thread error queue; this takes it off as one line,
// so that the message names the cause ("bad end line") and the next call starts with an empty queue.

#include <string>

namespace d4r::trust {

// "error:1E08010C:DECODER routines::unsupported; ..." or "no detail from OpenSSL"; clears the queue.
[[nodiscard]] std::string take_openssl_errors();

} // namespace d4r::trust
