// d4r_example_variant_*: a variant family, as the d4r builds have (hiluma_engine_output_*,
// rrlite_post_*): one source, one kernel per variant, one object that holds them all. The recipe
// serves the family by pattern.
#include "../include/d4r_kernel.h"

#define D4R_VARIANT(name_, scale_)                                                                 \
  D4R_KERNEL d4r_example_variant_##name_(const float* in, float* out, unsigned n)                  \
  {                                                                                                \
    unsigned i = d4r_index(128u);                                                                  \
    if (i < n) {                                                                                   \
      out[i] = in[i] * (scale_);                                                                   \
    }                                                                                              \
  }

D4R_VARIANT(hdr, 2.0f)
D4R_VARIANT(ldr, 0.5f)
D4R_VARIANT(hdr_v2, 4.0f)
