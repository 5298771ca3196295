// The few definitions the example native kernels share, without HIP headers (they are built with
// -nogpuinc -nogpulib): a u32 symbol of the launch-metadata contract, visible to hipModuleGetGlobal
// (../shared/reference/d4r-contract.md §3), the kernel and LDS attributes, and the thread indices.
#pragma once

#define D4R_U32(name_, value_)                                                                     \
  __attribute__((device, used, visibility("default"))) unsigned int name_ = value_

#define D4R_KERNEL extern "C" __attribute__((global)) void
#define D4R_SHARED __attribute__((shared))
#define D4R_DEVICE __attribute__((device)) static inline

D4R_DEVICE unsigned d4r_lane()
{
  return __builtin_amdgcn_workitem_id_x();
}
D4R_DEVICE unsigned d4r_index(unsigned block)
{
  return __builtin_amdgcn_workgroup_id_x() * block + __builtin_amdgcn_workitem_id_x();
}
