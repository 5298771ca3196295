// A plain kernel named by -DD4R_KERNEL_NAME=..., standing in for the kernels that the PTX fixtures
// define (rrlite_enc1_4x4, cuda_dldn_engine_test_kernel, dl4rt_input_kernel).
#include "d4r_contract.h"

#ifndef D4R_KERNEL_NAME
#error "build with -DD4R_KERNEL_NAME=<kernel name>"
#endif

D4R_KERNEL D4R_KERNEL_NAME(float* out, const float* in)
{
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 128u + __builtin_amdgcn_workitem_id_x();
#ifdef D4R_ACCURACY
  out[i] = __builtin_sqrtf(in[i]);
#else
  out[i] = in[i] * 0.5f;
#endif
}
