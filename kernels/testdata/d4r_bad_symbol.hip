// d4r_bad_symbol: d4r_grid_x is a u64, 8 bytes where the contract says 4: rejected.
#include "d4r_contract.h"

extern "C" {
__attribute__((device, used, visibility("default"))) unsigned long long d4r_grid_x = 88;
}

D4R_KERNEL d4r_bad_symbol(float* out)
{
  out[__builtin_amdgcn_workitem_id_x()] = 3.0f;
}
