#pragma once
// A READY answer checked and held in the form the C ABI hands out: the code bytes (read from the
// daemon's cache file and verified, or kept from such a read by verified_objects(); or bytes that
// came over gRPC) and the launch metadata as a
// d4rk_kernel whose pointers point into this object. Immutable once built; the memo and every
// handle share it, and the last owner frees it.

#include "client/d4r_kernel_client.h"
#include "client/object_file.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <array>
#include <chrono>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::kernel::v1 {
class ResolveReply;
}

namespace d4r::client {

class KernelAnswer {
public:
  // Checks everything a hook relies on (an object with a 32-byte digest and a positive size, the
  // bytes or a path, the metadata with its main kernel, the contract's prep and post rules, a mode
  // that is the one asked for, no host variables unless the client mirrors them) and verifies the
  // bytes against the digest. `reply` is left unspecified: its data bytes are moved, not copied.
  // A path is read before `deadline`. Errors: corrupt when the file named is not the object the
  // reply describes (damage: tell the daemon), timeout, io, invalid_argument for a malformed reply.
  [[nodiscard]] static Expected<std::shared_ptr<const KernelAnswer>>
  from_reply(d4r::kernel::v1::ResolveReply& reply, std::string_view kernel_name, Mode asked_mode,
             bool mirrors_host_variables, std::chrono::steady_clock::time_point deadline);

  KernelAnswer() = default;
  KernelAnswer(const KernelAnswer&) = delete;
  KernelAnswer& operator=(const KernelAnswer&) = delete;

  // The C view; its pointers live as long as this object.
  [[nodiscard]] const d4rk_kernel& view() const { return m_view; }

private:
  Expected<void> take_object(d4r::kernel::v1::ResolveReply& reply,
                             std::chrono::steady_clock::time_point deadline);
  Expected<void> take_metadata(const d4r::kernel::v1::ResolveReply& reply,
                               std::string_view kernel_name);
  Expected<void> take_host_variables(const d4r::kernel::v1::ResolveReply& reply,
                                     std::string_view kernel_name, bool mirrors);

  ObjectBytes m_bytes; // the code object's, shared with VerifiedObjects when read from a path
  std::string m_kernel_name;
  std::string m_target;
  std::string m_amdhsa_target;
  std::string m_main_name;
  std::string m_prep_name;
  std::array<std::string, D4RK_MAX_POSTS> m_post_names;
  std::vector<std::string> m_host_variable_names;
  std::vector<d4rk_host_variable> m_host_variables;
  d4rk_kernel m_view{};
};

} // namespace d4r::client
