// d4r_example_wave64: a reduction whose fast build runs wave64 (recipe `wave64 = fast`) and whose
// accuracy build stays wave32, as the d4r build does. The divergent branch makes the compiler
// save the exec mask, 64 bits wide in a wave64 build (s_and_saveexec_b64) and 32 otherwise.
#include "../include/d4r_kernel.h"

D4R_KERNEL d4r_example_wave64(const float* in, float* out, unsigned n)
{
  D4R_SHARED float partial[64];
  unsigned lane = d4r_lane();
  unsigned i = d4r_index(64u);
  float x = 0.0f;
  if (i < n) {
    x = in[i] * in[i];
  }
  partial[lane & 63u] = x;
  __builtin_amdgcn_s_barrier();
  if (lane == 0) {
    float sum = 0.0f;
    for (unsigned k = 0; k < 64u; ++k) {
      sum += partial[k];
    }
    out[__builtin_amdgcn_workgroup_id_x()] = sum;
  }
}
