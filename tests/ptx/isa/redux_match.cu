// d4r-isa-ptx: redux_match.sm_90.ptx -arch=sm_90 -O3
// Warp reductions and matches with partial member masks (lower_warp_reduce.cpp):
// - each warp w takes its member masks from masks[w]: a lane whose bit is set uses that mask,
//   the others its complement, so a warp holds two groups of any shape;
// - lanes whose bit of exits[w] is set return before the instructions: the ISA defines the
//   results over the non-exited threads of the mask (the masks still name the exited lanes);
// - redux.sync: add (u32, s32), min/max (u32, s32), and/or/xor (b32) of values[gid];
// - match.any/match.all (b32 on keys[gid], b64 on keys[gid] in the high word and keys2[gid] in
//   the low word), match.all with its predicate.
#include "isa_common.cuh"

extern "C" __global__ void redux_match(const unsigned* values, const unsigned* keys,
                                       const unsigned* keys2, const unsigned* masks,
                                       const unsigned* exits, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned warp = i / 32;
    const unsigned lane = lane_id();
    if ((exits[warp] >> lane & 1u) != 0) {
        return;
    }
    const unsigned m = masks[warp];
    const unsigned mask = (m >> lane & 1u) != 0 ? m : ~m;
    const unsigned v = values[i];
    const unsigned k = keys[i];
    const unsigned long long k64 = static_cast<unsigned long long>(k) << 32 | keys2[i];
    unsigned* o = out + i * 16;
    unsigned r;
    asm volatile("redux.sync.add.u32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    o[0] = r;
    asm volatile("redux.sync.add.s32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    o[1] = r;
    asm volatile("redux.sync.min.u32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    o[2] = r;
    asm volatile("redux.sync.min.s32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    o[3] = r;
    asm volatile("redux.sync.max.u32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    o[4] = r;
    asm volatile("redux.sync.max.s32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    o[5] = r;
    asm volatile("redux.sync.and.b32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    o[6] = r;
    asm volatile("redux.sync.or.b32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    o[7] = r;
    asm volatile("redux.sync.xor.b32 %0, %1, %2;" : "=r"(r) : "r"(v), "r"(mask));
    o[8] = r;
    asm volatile("match.any.sync.b32 %0, %1, %2;" : "=r"(r) : "r"(k), "r"(mask));
    o[9] = r;
    asm volatile("match.any.sync.b64 %0, %1, %2;" : "=r"(r) : "l"(k64), "r"(mask));
    o[10] = r;
    unsigned p;
    asm volatile("{\n\t.reg .pred q;\n\tmatch.all.sync.b32 %0|q, %2, %3;\n\tselp.u32 %1, 1, 0, q;\n\t}"
                 : "=r"(r), "=r"(p) : "r"(k), "r"(mask));
    o[11] = r;
    o[12] = p;
    asm volatile("{\n\t.reg .pred q;\n\tmatch.all.sync.b64 %0|q, %2, %3;\n\tselp.u32 %1, 1, 0, q;\n\t}"
                 : "=r"(r), "=r"(p) : "l"(k64), "r"(mask));
    o[13] = r;
    o[14] = p;
    asm volatile("match.all.sync.b32 %0, %1, %2;" : "=r"(r) : "r"(k), "r"(mask));
    o[15] = r;
}

// The full warp with an immediate mask, as __reduce_*_sync(0xffffffff, v) is compiled.
extern "C" __global__ void redux_full(const unsigned* values, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned v = values[i];
    unsigned* o = out + i * 4;
    o[0] = __reduce_add_sync(D4R_FULL, v);
    o[1] = __reduce_min_sync(D4R_FULL, static_cast<int>(v));
    o[2] = __reduce_max_sync(D4R_FULL, v);
    o[3] = __match_any_sync(D4R_FULL, v & 7u);
}
