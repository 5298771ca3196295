// d4r-isa-ptx: warp.sm_90.ptx -arch=sm_90 -O3
// Stage 3: shfl.sync in all four modes with per-lane source operands and per-warp clamp/segment
// operands (inline PTX, so the b and c operands come from buffers and every case of the PTX
// pseudo-code is reached, out-of-range lanes included), the intrinsics with widths 32/16/8/4,
// vote (ballot/all/any/uni), activemask in divergent code and the lane masks.
#include "isa_common.cuh"

// values: one per thread; b: per thread; c: per warp. out: 4 values + a predicate mask per thread.
extern "C" __global__ void shfl_raw(const unsigned* values, const unsigned* b, const unsigned* c, unsigned* out)
{
    const unsigned g = D4R_GID;
    const unsigned v = values[g];
    const unsigned bb = b[g];
    const unsigned cc = c[g / 32];
    unsigned r0, r1, r2, r3, p;
    asm volatile("{\n\t.reg .pred q0, q1, q2, q3;\n\t.reg .u32 t;\n\t"
                 "shfl.sync.idx.b32 %0|q0, %5, %6, %7, 0xffffffff;\n\t"
                 "shfl.sync.up.b32 %1|q1, %5, %6, %7, 0xffffffff;\n\t"
                 "shfl.sync.down.b32 %2|q2, %5, %6, %7, 0xffffffff;\n\t"
                 "shfl.sync.bfly.b32 %3|q3, %5, %6, %7, 0xffffffff;\n\t"
                 "selp.u32 %4, 1, 0, q0;\n\t"
                 "selp.u32 t, 2, 0, q1; or.b32 %4, %4, t;\n\t"
                 "selp.u32 t, 4, 0, q2; or.b32 %4, %4, t;\n\t"
                 "selp.u32 t, 8, 0, q3; or.b32 %4, %4, t;\n\t}"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3), "=r"(p)
                 : "r"(v), "r"(bb), "r"(cc));
    unsigned* o = out + g * 5;
    o[0] = r0;
    o[1] = r1;
    o[2] = r2;
    o[3] = r3;
    o[4] = p;
}

extern "C" __global__ void shfl_widths(const float* values, const unsigned* src, float* out)
{
    const unsigned g = D4R_GID;
    const float v = values[g];
    const int s = static_cast<int>(src[g]);
    const unsigned d = src[g] & 7u;
    float* o = out + g * 17;
    o[0] = __shfl_sync(D4R_FULL, v, s, 32);
    o[1] = __shfl_sync(D4R_FULL, v, s, 16);
    o[2] = __shfl_sync(D4R_FULL, v, s, 8);
    o[3] = __shfl_sync(D4R_FULL, v, s, 4);
    o[4] = __shfl_up_sync(D4R_FULL, v, d, 32);
    o[5] = __shfl_up_sync(D4R_FULL, v, d, 16);
    o[6] = __shfl_up_sync(D4R_FULL, v, d, 8);
    o[7] = __shfl_up_sync(D4R_FULL, v, d, 4);
    o[8] = __shfl_down_sync(D4R_FULL, v, d, 32);
    o[9] = __shfl_down_sync(D4R_FULL, v, d, 16);
    o[10] = __shfl_down_sync(D4R_FULL, v, d, 8);
    o[11] = __shfl_down_sync(D4R_FULL, v, d, 4);
    o[12] = __shfl_xor_sync(D4R_FULL, v, static_cast<int>(d), 32);
    o[13] = __shfl_xor_sync(D4R_FULL, v, static_cast<int>(d), 16);
    o[14] = __shfl_xor_sync(D4R_FULL, v, static_cast<int>(d), 8);
    o[15] = __shfl_xor_sync(D4R_FULL, v, static_cast<int>(d), 4);
    const double wide = static_cast<double>(v) * 3.0;
    o[16] = static_cast<float>(__shfl_xor_sync(D4R_FULL, wide, 5) - wide);
}

// Votes over the full warp and inside a data-dependent branch (activemask, ballot over the
// active lanes), plus the lane-mask registers.
extern "C" __global__ void vote(const unsigned* in, unsigned* out)
{
    const unsigned g = D4R_GID;
    const unsigned x = in[g];
    const unsigned lane = lane_id();
    unsigned* o = out + g * 10;
    const bool p = (x & 3u) != 0;
    o[0] = __ballot_sync(D4R_FULL, p);
    o[1] = __all_sync(D4R_FULL, p);
    o[2] = __any_sync(D4R_FULL, (x & 0xffu) == 7u);
    unsigned uni;
    asm volatile("{ .reg .pred q, r; setp.ne.u32 q, %1, 0; vote.sync.uni.pred r, q, 0xffffffff; selp.u32 %0, 1, 0, r; }"
                 : "=r"(uni) : "r"(x & 0x80000000u));
    o[3] = uni;
    o[4] = 0;
    o[5] = 0;
    o[6] = 0;
    if ((x >> 8) & 1u) {
        const unsigned active = __activemask();
        o[4] = active;
        o[5] = __ballot_sync(active, (x >> 9) & 1u);
        o[6] = __all_sync(active, (x >> 10) & 1u) | __any_sync(active, (x >> 11) & 1u) << 1;
    } else if (lane & 1u) {
        o[4] = __activemask() | 0x80000000u;
    }
    o[7] = lane;
    unsigned lt;
    unsigned ge;
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(lt));
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(ge));
    o[8] = lt ^ ge;
    o[9] = __popc(__ballot_sync(D4R_FULL, x > 0x80000000u) & lt);
}

// Undefined in PTX (recorded to see what NVIDIA does; the case does not compare it): lanes 0..15
// shuffle with member mask 0xffff from source lanes 0..31, so half the sources are outside the mask
// and not executing the shfl.
extern "C" __global__ void shfl_outside_mask(const unsigned* values, const unsigned* src, unsigned* out)
{
    const unsigned g = D4R_GID;
    const unsigned v = values[g];
    unsigned r = 0xffffffffu;
    if (lane_id() < 16) {
        r = __shfl_sync(0x0000ffffu, v, static_cast<int>(src[g] & 31u));
    }
    out[g] = r;
}
