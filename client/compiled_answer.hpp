#pragma once
// A found compiled module (LookupCompiled) checked and held as the C ABI hands it out: the bytes,
// read from the daemon's cache file or taken from the reply, verified against their SHA-256, and
// a d4rk_compiled whose pointer points into them. The handle itself: d4rk_compiled_free deletes it.

#include "client/d4r_kernel_client.h"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <chrono>
#include <memory>
#include <string>

namespace d4r::kernel::v1 {
class LookupCompiledReply;
}

namespace d4r::client {

struct CompiledAnswer : d4rk_compiled {
  // From a found reply: an object with a 32-byte digest and a size within the cap, its bytes or a
  // path (read before `read_deadline`), and the mode asked for. Errors as KernelAnswer's: corrupt
  // when the file named is not the object described (damage: tell the daemon), timeout, io,
  // invalid_argument for a malformed reply. `reply`'s data bytes are moved, not copied.
  [[nodiscard]] static Expected<std::unique_ptr<CompiledAnswer>>
  from_reply(d4r::kernel::v1::LookupCompiledReply& reply, Mode asked_mode,
             std::chrono::steady_clock::time_point read_deadline);

  CompiledAnswer() : d4rk_compiled{} {}
  CompiledAnswer(const CompiledAnswer&) = delete;
  CompiledAnswer& operator=(const CompiledAnswer&) = delete;

  std::string bytes;
};

} // namespace d4r::client
