// d4r-isa-ptx: wgmma_sparse2.sm_90a.ptx -arch=sm_90a -O3
// The FP8 (e4m3/e5m2) and sparse (wgmma.mma_async.sp: sp-meta from aregs[form * 512 + thread * 4],
// sparsity selector an immediate) forms, kept apart from wgmma.cu, recorded to learn the H200's
// FP8 sums and sparse metadata layout (lower_wgmma.cpp: wgmma_fp8_*, wgmma_sp_* bit for bit).
// Written by wgmma.gen.py (edit that, then run it): wgmma.mma_async (sm_90a), one kernel per input
// type, each a sequence of forms (shapes, accumulator types, imm-scale-a/b = -1, imm-trans-a/b,
// A from shared memory or registers, .satfinite, a scale-d predicate from the table), 128 threads
// (one warpgroup). Every kernel copies its 48 KB input image verbatim into shared memory, so the
// descriptors (the table: per form A, B and scale-d, start addresses relative to the image) decide
// what the H200 reads: every swizzle mode, K-major and MN-major, canonical and odd strides, K steps
// inside a swizzle row, base offsets. C comes per thread in fragment order (c32 for f32/s32, c16
// for f16 pairs) and each thread writes its D registers in the same order, so the outputs check the
// fragment layout, the descriptor layouts and the arithmetic element by element. A in registers:
// aregs[form * 512 + thread * 4 + r]. Between forms: wgmma.fence, commit_group and wait_group 0
// (the first two forms of wgmma_f16 are in flight together: wait_group 1, then 0).
#include "isa_common.cuh"

namespace {

struct Args {
    const unsigned long long* table;
    const unsigned* c32;
    const unsigned* c16;
    const unsigned* aregs;
    unsigned* out32;
    unsigned* out16;
    unsigned long long base; // the image's shared address >> 4 (a descriptor's start field)
    unsigned wgmma_sp_tf32_op0_c = 0;
    unsigned wgmma_sp_tf32_op1_c = 512;
    unsigned wgmma_sp_tf32_op2_c = 4608;
    unsigned wgmma_sp_regs_op0_c = 0;
    unsigned wgmma_sp_regs_op1_c = 1024;
    unsigned wgmma_sp_regs_op2_c = 3072;
    unsigned wgmma_sp_regs_op3_c = 0;
};

__device__ __forceinline__ unsigned long long load_image(unsigned* smem, const unsigned* image)
{
    for (unsigned i = threadIdx.x; i < 12288; i += 128) {
        smem[i] = image[i];
    }
    __syncthreads();
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
    return static_cast<unsigned long long>(__cvta_generic_to_shared(smem) >> 4);
}

} // namespace

// wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32
__device__ __forceinline__ void wgmma_sp_tf32_op0_issue(float* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    const unsigned* c = x.c32 + x.wgmma_sp_tf32_op0_c;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        d[r] = __uint_as_float(c[tid * 4 + r]);
    }
    unsigned long long da = x.table[0] + x.base;
    unsigned meta = x.aregs[0 * 512 + tid * 4];
    unsigned long long db = x.table[1] + x.base;
    unsigned sd = static_cast<unsigned>(x.table[2]);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %7, 0;\nwgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {%0, %1, %2, %3}, %4, %5, %6, 0, p, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "l"(da), "l"(db), "r"(meta), "r"(sd)
                 : "memory");
}

__device__ __forceinline__ void wgmma_sp_tf32_op0_store(float* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    unsigned* out = x.out32 + x.wgmma_sp_tf32_op0_c;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        asm volatile("" : "+f"(d[r]) :: "memory");
        out[tid * 4 + r] = __float_as_uint(d[r]);
    }
}

// wgmma.mma_async.sp.sync.aligned.m64n64k16.f32.tf32.tf32
__device__ __forceinline__ void wgmma_sp_tf32_op1_issue(float* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    const unsigned* c = x.c32 + x.wgmma_sp_tf32_op1_c;
#pragma unroll
    for (int r = 0; r < 32; ++r) {
        d[r] = __uint_as_float(c[tid * 32 + r]);
    }
    unsigned long long da = x.table[3] + x.base;
    unsigned meta = x.aregs[1 * 512 + tid * 4];
    unsigned long long db = x.table[4] + x.base;
    unsigned sd = static_cast<unsigned>(x.table[5]);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %35, 0;\nwgmma.mma_async.sp.sync.aligned.m64n64k16.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, %32, %33, %34, 1, p, -1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
                 : "l"(da), "l"(db), "r"(meta), "r"(sd)
                 : "memory");
}

__device__ __forceinline__ void wgmma_sp_tf32_op1_store(float* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    unsigned* out = x.out32 + x.wgmma_sp_tf32_op1_c;
#pragma unroll
    for (int r = 0; r < 32; ++r) {
        asm volatile("" : "+f"(d[r]) :: "memory");
        out[tid * 32 + r] = __float_as_uint(d[r]);
    }
}

// wgmma.mma_async.sp.sync.aligned.m64n16k16.f32.tf32.tf32
__device__ __forceinline__ void wgmma_sp_tf32_op2_issue(float* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    const unsigned* c = x.c32 + x.wgmma_sp_tf32_op2_c;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        d[r] = __uint_as_float(c[tid * 8 + r]);
    }
    unsigned long long da = x.table[6] + x.base;
    unsigned meta = x.aregs[2 * 512 + tid * 4];
    unsigned long long db = x.table[7] + x.base;
    unsigned sd = static_cast<unsigned>(x.table[8]);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %11, 0;\nwgmma.mma_async.sp.sync.aligned.m64n16k16.f32.tf32.tf32 {%0, %1, %2, %3, %4, %5, %6, %7}, %8, %9, %10, 0, p, 1, -1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "l"(da), "l"(db), "r"(meta), "r"(sd)
                 : "memory");
}

__device__ __forceinline__ void wgmma_sp_tf32_op2_store(float* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    unsigned* out = x.out32 + x.wgmma_sp_tf32_op2_c;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        asm volatile("" : "+f"(d[r]) :: "memory");
        out[tid * 8 + r] = __float_as_uint(d[r]);
    }
}

extern "C" __global__ void __launch_bounds__(128)
wgmma_sp_tf32(const unsigned* image, const unsigned long long* table, const unsigned* c32,
    const unsigned* c16, const unsigned* aregs, unsigned* out32, unsigned* out16)
{
    __shared__ __align__(1024) unsigned smem[12288];
    Args x{table, c32, c16, aregs, out32, out16, 0};
    x.base = load_image(smem, image);
    {
        float d[4];
        wgmma_sp_tf32_op0_issue(d, x);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        wgmma_sp_tf32_op0_store(d, x);
    }
    {
        float d[32];
        wgmma_sp_tf32_op1_issue(d, x);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        wgmma_sp_tf32_op1_store(d, x);
    }
    {
        float d[8];
        wgmma_sp_tf32_op2_issue(d, x);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        wgmma_sp_tf32_op2_store(d, x);
    }
}

// wgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 (A in registers)
__device__ __forceinline__ void wgmma_sp_regs_op0_issue(float* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    const unsigned* c = x.c32 + x.wgmma_sp_regs_op0_c;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        d[r] = __uint_as_float(c[tid * 8 + r]);
    }
    unsigned a[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        a[r] = x.aregs[0 * 512 + tid * 4 + r];
    }
    unsigned meta = x.aregs[0 * 512 + tid * 4];
    unsigned long long db = x.table[1] + x.base;
    unsigned sd = static_cast<unsigned>(x.table[2]);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %14, 0;\nwgmma.mma_async.sp.sync.aligned.m64n16k32.f32.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, {%8, %9, %10, %11}, %12, %13, 0, p, 1, 1, 0;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(meta), "r"(sd)
                 : "memory");
}

__device__ __forceinline__ void wgmma_sp_regs_op0_store(float* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    unsigned* out = x.out32 + x.wgmma_sp_regs_op0_c;
#pragma unroll
    for (int r = 0; r < 8; ++r) {
        asm volatile("" : "+f"(d[r]) :: "memory");
        out[tid * 8 + r] = __float_as_uint(d[r]);
    }
}

// wgmma.mma_async.sp.sync.aligned.m64n32k32.f32.bf16.bf16 (A in registers)
__device__ __forceinline__ void wgmma_sp_regs_op1_issue(float* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    const unsigned* c = x.c32 + x.wgmma_sp_regs_op1_c;
#pragma unroll
    for (int r = 0; r < 16; ++r) {
        d[r] = __uint_as_float(c[tid * 16 + r]);
    }
    unsigned a[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        a[r] = x.aregs[1 * 512 + tid * 4 + r];
    }
    unsigned meta = x.aregs[1 * 512 + tid * 4];
    unsigned long long db = x.table[4] + x.base;
    unsigned sd = static_cast<unsigned>(x.table[5]);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %22, 0;\nwgmma.mma_async.sp.sync.aligned.m64n32k32.f32.bf16.bf16 {%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15}, {%16, %17, %18, %19}, %20, %21, 1, p, 1, 1, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(meta), "r"(sd)
                 : "memory");
}

__device__ __forceinline__ void wgmma_sp_regs_op1_store(float* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    unsigned* out = x.out32 + x.wgmma_sp_regs_op1_c;
#pragma unroll
    for (int r = 0; r < 16; ++r) {
        asm volatile("" : "+f"(d[r]) :: "memory");
        out[tid * 16 + r] = __float_as_uint(d[r]);
    }
}

// wgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 (A in registers)
__device__ __forceinline__ void wgmma_sp_regs_op2_issue(unsigned* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    const unsigned* c = x.c32 + x.wgmma_sp_regs_op2_c;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        d[r] = c[tid * 4 + r];
    }
    unsigned a[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        a[r] = x.aregs[2 * 512 + tid * 4 + r];
    }
    unsigned meta = x.aregs[2 * 512 + tid * 4];
    unsigned long long db = x.table[7] + x.base;
    unsigned sd = static_cast<unsigned>(x.table[8]);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\nwgmma.mma_async.sp.sync.aligned.m64n8k64.s32.s8.s8 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 0, p;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(meta), "r"(sd)
                 : "memory");
}

__device__ __forceinline__ void wgmma_sp_regs_op2_store(unsigned* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    unsigned* out = x.out32 + x.wgmma_sp_regs_op2_c;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        asm volatile("" : "+r"(d[r]) :: "memory");
        out[tid * 4 + r] = d[r];
    }
}

// wgmma.mma_async.sp.sync.aligned.m64n16k32.f16.f16.f16 (A in registers)
__device__ __forceinline__ void wgmma_sp_regs_op3_issue(unsigned* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    const unsigned* c = x.c16 + x.wgmma_sp_regs_op3_c;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        d[r] = c[tid * 4 + r];
    }
    unsigned a[4];
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        a[r] = x.aregs[3 * 512 + tid * 4 + r];
    }
    unsigned meta = x.aregs[3 * 512 + tid * 4];
    unsigned long long db = x.table[10] + x.base;
    unsigned sd = static_cast<unsigned>(x.table[11]);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %10, 0;\nwgmma.mma_async.sp.sync.aligned.m64n16k32.f16.f16.f16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, %9, 1, p, -1, 1, 0;\n}\n"
                 : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(meta), "r"(sd)
                 : "memory");
}

__device__ __forceinline__ void wgmma_sp_regs_op3_store(unsigned* d, const Args& x)
{
    unsigned tid = threadIdx.x;
    unsigned* out = x.out16 + x.wgmma_sp_regs_op3_c;
#pragma unroll
    for (int r = 0; r < 4; ++r) {
        asm volatile("" : "+r"(d[r]) :: "memory");
        out[tid * 4 + r] = d[r];
    }
}

extern "C" __global__ void __launch_bounds__(128)
wgmma_sp_regs(const unsigned* image, const unsigned long long* table, const unsigned* c32,
    const unsigned* c16, const unsigned* aregs, unsigned* out32, unsigned* out16)
{
    __shared__ __align__(1024) unsigned smem[12288];
    Args x{table, c32, c16, aregs, out32, out16, 0};
    x.base = load_image(smem, image);
    {
        float d[8];
        wgmma_sp_regs_op0_issue(d, x);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        wgmma_sp_regs_op0_store(d, x);
    }
    {
        float d[16];
        wgmma_sp_regs_op1_issue(d, x);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        wgmma_sp_regs_op1_store(d, x);
    }
    {
        unsigned d[4];
        wgmma_sp_regs_op2_issue(d, x);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        wgmma_sp_regs_op2_store(d, x);
    }
    {
        unsigned d[4];
        wgmma_sp_regs_op3_issue(d, x);
        asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
        asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
        wgmma_sp_regs_op3_store(d, x);
    }
}
