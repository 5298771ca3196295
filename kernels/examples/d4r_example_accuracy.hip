// d4r_example_accuracy: a normalisation whose two builds differ by the accuracy define only. The
// fast build multiplies by the hardware reciprocal (v_rcp_f32, about 1 ulp); the accuracy build
// (-DD4R_ACCURACY) takes the IEEE division, which the compiler expands with v_div_scale_f32,
// v_div_fmas_f32 and v_div_fixup_f32.
#include "../include/d4r_kernel.h"

D4R_DEVICE float d4r_divide(float x, float y)
{
#ifdef D4R_ACCURACY
  return x / y;
#else
  return x * __builtin_amdgcn_rcpf(y);
#endif
}

D4R_KERNEL d4r_example_accuracy(const float* in, const float* scale, float* out, unsigned n)
{
  unsigned i = d4r_index(128u);
  if (i < n) {
    out[i] = d4r_divide(in[i], scale[i] + 1.0f);
  }
}
