#include "daemon/launch_record.hpp"

namespace d4r::daemon {

namespace {

cache::LaunchKernel kernel_of(const compiler::KernelResources& from)
{
  return cache::LaunchKernel{from.name,      from.kernarg_size, from.kernarg_align,
                             from.wave_size, from.sgpr_count,   from.vgpr_count,
                             from.lds_bytes, from.scratch_bytes, from.max_workgroup_size};
}

} // namespace

cache::LaunchMetadata launch_record_of(const compiler::LaunchMeta& meta)
{
  cache::LaunchMetadata out;
  out.amdhsa_target = meta.amdhsa_target;
  out.main = kernel_of(meta.main);
  if (meta.prep) {
    out.prep = kernel_of(*meta.prep);
  }
  out.prep_blocks = meta.prep_blocks;
  out.prep_key_offset = meta.prep_key_offset;
  out.prep_key_at = meta.prep_key_at;
  out.prep_key_slots = meta.prep_key_slots;
  out.prep_identity_at = meta.prep_identity_at;
  out.block_z = meta.block_z;
  out.grid_x = meta.grid_x;
  for (const compiler::PostKernelMeta& post : meta.posts) {
    out.posts.push_back(cache::LaunchPost{post.name, post.grid_x, post.grid_y, post.block_x,
                                          post.block_y, post.block_z});
  }
  for (const compiler::HostVariable& variable : meta.host_variables) {
    out.host_variables.push_back(cache::LaunchVariable{variable.name, variable.size});
  }
  out.tensor_map_layout = meta.tensor_map_layout;
  return out;
}

std::string encoded_launch_record(const compiler::LaunchMeta& meta)
{
  return cache::encode_launch_metadata(launch_record_of(meta));
}

} // namespace d4r::daemon
