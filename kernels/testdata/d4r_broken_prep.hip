// d4r_broken_prep: a prep kernel with d4r_prep_blocks == 0 breaks the contract: the whole object
// must be rejected.
#include "d4r_contract.h"

extern "C" {
D4R_U32(d4r_prep_blocks, 0);
}

D4R_KERNEL d4r_broken_prep(float* out)
{
  out[__builtin_amdgcn_workitem_id_x()] = 1.0f;
}

D4R_KERNEL d4r_broken_prep_prep(float* out)
{
  out[__builtin_amdgcn_workitem_id_x()] = 0.0f;
}
