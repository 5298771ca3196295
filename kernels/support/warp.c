/* warp.c: the source lane of shfl.sync, exactly the PTX ISA pseudo-code.
 * https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-shfl-sync
 *
 *   lane[4:0] = laneid; bval[4:0] = b[4:0]; cval[4:0] = c[4:0]; segmask[4:0] = c[12:8];
 *   maxLane = (lane & segmask) | (cval & ~segmask);  minLane = lane & segmask;
 *   .up:   j = lane - bval; pval = (j >= maxLane);
 *   .down: j = lane + bval; pval = (j <= maxLane);
 *   .bfly: j = lane ^ bval; pval = (j <= maxLane);
 *   .idx:  j = minLane | (bval & ~segmask); pval = (j <= maxLane);
 *   if (!pval) j = lane;
 * j is compared as a signed integer (lane - bval may be negative in .up). Only b[4:0], c[4:0] and
 * c[12:8] are read; the other bits are ignored, as in the pseudo-code.
 */
#include "d4r_ptx_internal.h"

D4R_API uint32_t __d4r_ptx_shfl_source(uint32_t lane, uint32_t mode, uint32_t b, uint32_t c,
                                       uint32_t* in_range)
{
  const int32_t l = (int32_t)(lane & 31u);
  const int32_t bval = (int32_t)(b & 31u);
  const int32_t cval = (int32_t)(c & 31u);
  const int32_t segmask = (int32_t)((c >> 8) & 31u);
  const int32_t max_lane = (l & segmask) | (cval & ~segmask & 31);
  const int32_t min_lane = l & segmask;
  int32_t j;
  int pval;
  switch (mode) {
  case 1:
    j = l - bval;
    pval = j >= max_lane;
    break;
  case 2:
    j = l + bval;
    pval = j <= max_lane;
    break;
  case 3:
    j = l ^ bval;
    pval = j <= max_lane;
    break;
  default:
    j = min_lane | (bval & ~segmask & 31);
    pval = j <= max_lane;
    break;
  }
  *in_range = (uint32_t)pval;
  return pval ? (uint32_t)j : (uint32_t)l;
}
