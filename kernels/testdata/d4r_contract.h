// Shared by the test kernels: a u32 symbol of the override-hook contract, visible in the code
// object's symbol tables as hipModuleGetGlobal finds it (no HIP headers are used).
#pragma once

#define D4R_U32(name_, value_)                                                                     \
  __attribute__((device, used, visibility("default"))) unsigned int name_ = value_

#define D4R_KERNEL extern "C" __attribute__((global)) void
