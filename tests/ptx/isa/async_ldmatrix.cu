// d4r-isa-ptx: async_ldmatrix.sm_90.ptx -arch=sm_90 -O3
// cp.async and ldmatrix (lower_async_copy.cpp, lower_ldmatrix.cpp):
// - cp_async: each thread copies 4, 8 and 16 bytes (.ca) with a src-size from its input (the rest
//   zero-filled), 16 bytes (.cg) whole, with .L2::128B, and with the ignore-src predicate, into a
//   shared area first filled with 0xab; after commit_group / wait_group 0 / wait_all it reads its
//   own area, and after bar.sync its neighbour's.
// - ldmatrix: a 64-row table of b16 in shared memory; lane l of warp w points at row
//   (13 l + 5 + 7 w) mod 64; .x1, .x2, .x4, each with .trans, on .shared addresses and on
//   generic ones.
#include "isa_common.cuh"

__device__ __forceinline__ unsigned shared_address(const void* p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

extern "C" __global__ void cp_async(const unsigned char* src, const unsigned* sizes, unsigned* out)
{
    __shared__ __align__(16) unsigned char area[64 * 80];
    const unsigned t = threadIdx.x;
    unsigned char* mine = area + t * 80;
    for (int k = 0; k < 80; ++k) {
        mine[k] = 0xab;
    }
    const unsigned char* from = src + (blockIdx.x * 64 + t) * 80;
    const size_t g = __cvta_generic_to_global(from);
    const unsigned s = shared_address(mine);
    const unsigned size = sizes[blockIdx.x * 64 + t];
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;" ::"r"(s), "l"(g), "r"(size % 5u));
    asm volatile("cp.async.ca.shared.global [%0+8], [%1+8], 8, %2;" ::"r"(s), "l"(g), "r"(size % 9u));
    asm volatile("cp.async.ca.shared.global [%0+16], [%1+16], 16, %2;" ::"r"(s), "l"(g), "r"(size % 17u));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.cg.shared.global [%0+32], [%1+32], 16;" ::"r"(s), "l"(g));
    asm volatile("cp.async.cg.shared.global.L2::128B [%0+48], [%1+48], 16;" ::"r"(s), "l"(g));
    asm volatile("{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %2, 0;\n\t"
                 "cp.async.ca.shared.global [%0+64], [%1+64], 16, p;\n\t}" ::"r"(s), "l"(g),
                 "r"(size & 1u));
    asm volatile("cp.async.commit_group;");
    asm volatile("cp.async.wait_group 0;");
    asm volatile("cp.async.wait_all;");
    const unsigned* words = reinterpret_cast<const unsigned*>(mine);
    unsigned* o = out + (blockIdx.x * 64 + t) * 40;
    for (int k = 0; k < 20; ++k) {
        o[k] = words[k];
    }
    __syncthreads();
    const unsigned* other = reinterpret_cast<const unsigned*>(area + ((t + 1) % 64) * 80);
    for (int k = 0; k < 20; ++k) {
        o[20 + k] = other[k];
    }
}

extern "C" __global__ void ldmatrix(const unsigned short* table, unsigned* out)
{
    __shared__ __align__(16) unsigned short rows[64 * 8];
    for (unsigned k = threadIdx.x; k < 64 * 8; k += blockDim.x) {
        rows[k] = table[blockIdx.x * 64 * 8 + k];
    }
    __syncthreads();
    const unsigned lane = lane_id();
    const unsigned warp = threadIdx.x / 32;
    const unsigned short* row = rows + ((13 * lane + 5 + 7 * warp) % 64) * 8;
    const unsigned s = shared_address(row);
    unsigned* o = out + (blockIdx.x * blockDim.x + threadIdx.x) * 20;
    unsigned a, b, c, d;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.shared.b16 {%0}, [%1];" : "=r"(a) : "r"(s));
    o[0] = a;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(s));
    o[1] = a;
    o[2] = b;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(s));
    o[3] = a;
    o[4] = b;
    o[5] = c;
    o[6] = d;
    asm volatile("ldmatrix.sync.aligned.m8n8.x1.trans.shared.b16 {%0}, [%1];" : "=r"(a) : "r"(s));
    o[7] = a;
    asm volatile("ldmatrix.sync.aligned.x2.trans.m8n8.shared.b16 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "r"(s));
    o[8] = a;
    o[9] = b;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "r"(s));
    o[10] = a;
    o[11] = b;
    o[12] = c;
    o[13] = d;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(a), "=r"(b), "=r"(c), "=r"(d) : "l"(row));
    o[14] = a;
    o[15] = b;
    o[16] = c;
    o[17] = d;
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.b16 {%0, %1}, [%2];" : "=r"(a), "=r"(b) : "l"(row + 0));
    o[18] = a;
    o[19] = b;
}
