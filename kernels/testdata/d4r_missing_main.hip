// Shipped as d4r_missing_main.hsaco, but the kernel inside has another name: the object does not
// contain the kernel its file promises, which is rejected.
#include "d4r_contract.h"

D4R_KERNEL d4r_missing_main_other(float* out)
{
  out[__builtin_amdgcn_workitem_id_x()] = 2.0f;
}
