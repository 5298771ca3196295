// d4r_test_simple: a plain kernel without a single contract symbol: everything reads as its
// default. Parameters: 8 + 4 = 12 bytes of kernarg segment.
#include "d4r_contract.h"

D4R_KERNEL d4r_test_simple(float* out, float value)
{
  unsigned i = __builtin_amdgcn_workgroup_id_x() * 64u + __builtin_amdgcn_workitem_id_x();
  out[i] = out[i] * value + 1.0f;
}
