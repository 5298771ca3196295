#include "client/kernel_answer.hpp"

#include "d4r/kernel/v1/kernel.pb.h"
#include "util/digest.hpp"

#include <algorithm>
#include <cstring>

namespace d4r::client {

namespace pb = d4r::kernel::v1;

namespace {

// Far above any real code object; a larger size is a malformed reply, not something to map.
constexpr int64_t k_max_object_bytes = 1LL << 30;

// A reply that breaks the protocol; ErrorCode::corrupt is kept for an object file whose bytes
// are not what the reply says (damage the daemon is told about).
Error malformed(std::string_view kernel_name, const std::string& what)
{
  return Error{ErrorCode::invalid_argument,
               "kernel " + std::string(kernel_name) + ": malformed reply: " + what};
}

void fill_resources(const pb::KernelResources& from, const std::string& name, d4rk_resources& to)
{
  to.name = name.c_str();
  to.kernarg_size = from.kernarg_size();
  to.kernarg_align = from.kernarg_align();
  to.wave_size = from.wave_size();
  to.sgpr_count = from.sgpr_count();
  to.vgpr_count = from.vgpr_count();
  to.lds_bytes = from.lds_bytes();
  to.scratch_bytes = from.scratch_bytes();
  to.max_workgroup_size = from.max_workgroup_size();
}

Expected<Mode> answered_mode(const pb::ResolveReply& reply, std::string_view kernel_name,
                             Mode asked_mode)
{
  // A daemon that leaves the mode unset answers for the mode it was asked; one that names the
  // other mode must never be believed (accuracy mode never gets a fast object, nor the reverse).
  if (reply.mode() == pb::MODE_UNSPECIFIED) {
    return asked_mode;
  }
  Mode mode = reply.mode() == pb::MODE_ACCURACY ? Mode::accuracy : Mode::fast;
  if ((reply.mode() != pb::MODE_ACCURACY && reply.mode() != pb::MODE_FAST) || mode != asked_mode) {
    return std::unexpected(malformed(kernel_name, "answer is for another mode"));
  }
  return mode;
}

} // namespace

Expected<std::shared_ptr<const KernelAnswer>>
KernelAnswer::from_reply(pb::ResolveReply& reply, std::string_view kernel_name, Mode asked_mode,
                         bool mirrors_host_variables, std::chrono::steady_clock::time_point deadline)
{
  TRY_ASSIGN(Mode mode, answered_mode(reply, kernel_name, asked_mode));
  auto answer = std::make_shared<KernelAnswer>();
  answer->m_kernel_name = kernel_name;
  answer->m_target = reply.target();
  answer->m_view.kernel_name = answer->m_kernel_name.c_str();
  answer->m_view.target = answer->m_target.c_str();
  answer->m_view.mode = mode == Mode::accuracy ? D4RK_MODE_ACCURACY : D4RK_MODE_FAST;
  TRY(answer->take_object(reply, deadline));
  TRY(answer->take_metadata(reply, kernel_name));
  TRY(answer->take_host_variables(reply, kernel_name, mirrors_host_variables));
  return answer;
}

// A daemon must not serve a kernel with host variables to a client that does not mirror them
// (it would read stale values); one that does anyway is not believed.
Expected<void> KernelAnswer::take_host_variables(const pb::ResolveReply& reply,
                                                 std::string_view kernel_name, bool mirrors)
{
  const pb::LaunchMetadata& meta = reply.metadata();
  if (meta.host_variables_size() == 0) {
    return {};
  }
  if (!mirrors) {
    return std::unexpected(
        malformed(kernel_name, "host variables served to a client that does not mirror them"));
  }
  for (const pb::HostVariable& variable : meta.host_variables()) {
    if (variable.name().empty() || variable.size() == 0) {
      return std::unexpected(malformed(kernel_name, "a host variable without a name or size"));
    }
    m_host_variable_names.push_back(variable.name());
  }
  for (int i = 0; i < meta.host_variables_size(); ++i) {
    m_host_variables.push_back(d4rk_host_variable{
        m_host_variable_names[static_cast<size_t>(i)].c_str(), meta.host_variables(i).size()});
  }
  m_view.host_variable_count = static_cast<uint32_t>(m_host_variables.size());
  m_view.host_variables = m_host_variables.data();
  return {};
}

Expected<void> KernelAnswer::take_object(pb::ResolveReply& reply,
                                         std::chrono::steady_clock::time_point deadline)
{
  if (!reply.has_object()) {
    return std::unexpected(malformed(m_kernel_name, "ready without an object"));
  }
  pb::CodeObject& object = *reply.mutable_object();
  if (object.sha256().size() != 32 || object.size() <= 0 || object.size() > k_max_object_bytes) {
    return std::unexpected(malformed(m_kernel_name, "object digest or size is invalid"));
  }
  Sha256 digest{};
  std::memcpy(digest.data(), object.sha256().data(), digest.size());
  std::span<const std::byte> bytes;
  if (object.has_path()) {
    TRY_ASSIGN(m_bytes,
               verified_objects().read(object.path(), object.size(), digest, deadline));
    bytes = std::as_bytes(std::span<const char>(*m_bytes));
  } else if (object.has_data()) {
    m_bytes = std::make_shared<const std::string>(std::move(*object.mutable_data()));
    bytes = std::as_bytes(std::span<const char>(*m_bytes));
    if (static_cast<int64_t>(bytes.size()) != object.size()) {
      return std::unexpected(malformed(m_kernel_name, "object size does not match its bytes"));
    }
    if (sha256(bytes) != digest) {
      return std::unexpected(malformed(m_kernel_name, "object bytes do not match their sha256"));
    }
  } else {
    return std::unexpected(malformed(m_kernel_name, "object has neither bytes nor a path"));
  }
  m_view.code = bytes.data();
  m_view.code_size = bytes.size();
  std::string hex = to_hex(digest);
  std::memcpy(m_view.sha256_hex, hex.c_str(), hex.size() + 1);
  return {};
}

Expected<void> KernelAnswer::take_metadata(const pb::ResolveReply& reply,
                                           std::string_view kernel_name)
{
  if (!reply.has_metadata() || !reply.metadata().has_main()) {
    return std::unexpected(malformed(kernel_name, "ready without launch metadata"));
  }
  const pb::LaunchMetadata& meta = reply.metadata();
  if (!meta.main().name().empty() && meta.main().name() != kernel_name) {
    return std::unexpected(malformed(kernel_name, "metadata is for kernel " + meta.main().name()));
  }
  if (meta.has_prep() && meta.prep_blocks() == 0) {
    return std::unexpected(malformed(kernel_name, "prep kernel with zero prep blocks"));
  }
  if (meta.posts_size() > D4RK_MAX_POSTS) {
    return std::unexpected(malformed(kernel_name, "more than 8 post kernels"));
  }
  m_amdhsa_target = meta.amdhsa_target();
  m_view.amdhsa_target = m_amdhsa_target.c_str();
  m_main_name = meta.main().name().empty() ? std::string(kernel_name) : meta.main().name();
  fill_resources(meta.main(), m_main_name, m_view.main);
  m_view.has_prep = meta.has_prep() ? 1 : 0;
  m_prep_name = meta.prep().name();
  fill_resources(meta.prep(), m_prep_name, m_view.prep);
  m_view.prep_blocks = meta.prep_blocks();
  m_view.prep_key_offset = meta.prep_key_offset();
  m_view.prep_key_at = meta.prep_key_at();
  m_view.prep_key_slots = meta.prep_key_slots();
  m_view.prep_identity_at = meta.prep_identity_at();
  m_view.block_z = meta.block_z();
  m_view.grid_x = meta.grid_x();
  m_view.post_count = static_cast<uint32_t>(meta.posts_size());
  for (int i = 0; i < meta.posts_size(); ++i) {
    const pb::PostKernel& post = meta.posts(i);
    d4rk_post_kernel& to = m_view.posts[i];
    m_post_names[static_cast<size_t>(i)] = post.name();
    to.name = m_post_names[static_cast<size_t>(i)].c_str();
    to.grid_x = post.grid_x();
    to.grid_y = post.grid_y();
    to.block_x = post.block_x();
    to.block_y = post.block_y();
    to.block_z = post.block_z();
  }
  for (size_t i = m_view.post_count; i < D4RK_MAX_POSTS; ++i) {
    m_view.posts[i].name = "";
  }
  return {};
}

} // namespace d4r::client
