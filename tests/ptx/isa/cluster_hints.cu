// d4r-isa-ptx: cluster_hints.sm_90.ptx -arch=sm_90 -O3
// d4r-isa-ptx: cluster_hints.sm_90a.ptx -arch=sm_90a -O3
// Clusters of one CTA, elect.sync, cache hints and no-ops (lower_cluster.cpp, lower_hints.cpp,
// lower_memory.cpp):
// - cluster_regs (no cluster directive: each CTA is a cluster of one): %clusterid, %nclusterid,
//   %cluster_ctaid, %cluster_nctaid, %cluster_ctarank, %cluster_nctarank, %is_explicit_cluster,
//   %dynamic_smem_size, and elect.sync under the full mask, a partial one (only its lanes run it)
//   and with a sink destination.
// - cluster_one (__cluster_dims__(1, 1, 1), so .reqnctapercluster 1, 1, 1): the same registers;
//   shared memory written, barrier.cluster.arrive/.wait (plain, .relaxed, .aligned), then read
//   through mapa.shared::cluster (u32), mapa (generic u64), ld/st.shared::cluster and
//   cvta.shared::cluster, with getctarank of both kinds; the mapped addresses minus the
//   originals go to their own output.
// - hints: createpolicy (fractional, range) as the operand of ld/st .L2::cache_hint,
//   applypriority, discard (on a buffer nothing reads), griddepcontrol, pmevent, the proxy
//   fences, fence.mbarrier_init, ld/st .b128 (global and shared), cvta.param of a
//   __grid_constant__ parameter.
// - maxnreg (sm_90a build only): setmaxnreg.dec/.inc around a computation, 128 threads.
#include "isa_common.cuh"

struct Cluster {
    unsigned v[16];
};

__device__ __forceinline__ void cluster_registers(unsigned* o)
{
    asm volatile("mov.u32 %0, %%clusterid.x;" : "=r"(o[0]));
    asm volatile("mov.u32 %0, %%clusterid.y;" : "=r"(o[1]));
    asm volatile("mov.u32 %0, %%clusterid.z;" : "=r"(o[2]));
    asm volatile("mov.u32 %0, %%nclusterid.x;" : "=r"(o[3]));
    asm volatile("mov.u32 %0, %%nclusterid.y;" : "=r"(o[4]));
    asm volatile("mov.u32 %0, %%nclusterid.z;" : "=r"(o[5]));
    asm volatile("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(o[6]));
    asm volatile("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(o[7]));
    asm volatile("mov.u32 %0, %%cluster_ctaid.z;" : "=r"(o[8]));
    asm volatile("mov.u32 %0, %%cluster_nctaid.x;" : "=r"(o[9]));
    asm volatile("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(o[10]));
    asm volatile("mov.u32 %0, %%cluster_nctaid.z;" : "=r"(o[11]));
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(o[12]));
    asm volatile("mov.u32 %0, %%cluster_nctarank;" : "=r"(o[13]));
    asm volatile("{\n\t.reg .pred p;\n\tmov.pred p, %%is_explicit_cluster;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                 : "=r"(o[14]));
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(o[15]));
}

__device__ __forceinline__ unsigned linear_tid()
{
    return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ unsigned linear_block()
{
    return (blockIdx.z * gridDim.y + blockIdx.y) * gridDim.x + blockIdx.x;
}

extern "C" __global__ void cluster_regs(const unsigned* masks, unsigned* out)
{
    extern __shared__ unsigned dynamic[];
    __shared__ unsigned fixed[8];
    const unsigned t = linear_tid();
    const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
    unsigned* o = out + (linear_block() * threads + t) * 24;
    cluster_registers(o);
    if (t < 8) {
        fixed[t] = t * 3u;
    }
    if (t < 4) {
        dynamic[t] = t + 100u;
    }
    __syncthreads();
    o[16] = fixed[(t + 1) % 8] + dynamic[(t + 1) % 4];
    unsigned d, p;
    asm volatile("{\n\t.reg .pred p;\n\telect.sync %0|p, 0xffffffff;\n\tselp.u32 %1, 1, 0, p;\n\t}"
                 : "=r"(d), "=r"(p));
    o[17] = d;
    o[18] = p;
    const unsigned mask = masks[t / 32];
    const unsigned lane = lane_id();
    o[19] = 0xeeeeeeeeu;
    o[20] = 0xeeeeeeeeu;
    o[21] = 0xeeeeeeeeu;
    if ((mask >> lane) & 1u) {
        asm volatile("{\n\t.reg .pred p;\n\telect.sync %0|p, %2;\n\tselp.u32 %1, 1, 0, p;\n\t}"
                     : "=r"(d), "=r"(p)
                     : "r"(mask));
        o[19] = d;
        o[20] = p;
        asm volatile("{\n\t.reg .pred p;\n\telect.sync _|p, %1;\n\tselp.u32 %0, 1, 0, p;\n\t}"
                     : "=r"(p)
                     : "r"(mask));
        o[21] = p;
    }
    o[22] = mask;
    o[23] = lane;
}

extern "C" __global__ void __cluster_dims__(1, 1, 1)
    cluster_one(const unsigned* in, unsigned* out, unsigned long long* addresses)
{
    __shared__ unsigned words[64];
    __shared__ unsigned other[64];
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * blockDim.x + t;
    unsigned* o = out + g * 24;
    cluster_registers(o);
    words[t] = in[g];
    other[t] = 0;
    asm volatile("barrier.cluster.arrive;\n\tbarrier.cluster.wait;" ::: "memory");
    const unsigned n = blockDim.x;
    unsigned rank;
    asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
    // .shared::cluster address of a neighbour's word, mapped into the own CTA.
    const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(&words[(t + 1) % n]));
    unsigned mapped, value;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(mapped) : "r"(s), "r"(rank));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(value) : "r"(mapped));
    o[16] = value;
    // A generic address mapped to rank 0 and read with a generic load.
    const unsigned long long gen = reinterpret_cast<unsigned long long>(&words[(t + 3) % n]);
    unsigned long long gmapped;
    asm volatile("mapa.u64 %0, %1, 0;" : "=l"(gmapped) : "l"(gen));
    asm volatile("ld.u32 %0, [%1];" : "=r"(value) : "l"(gmapped));
    o[17] = value;
    unsigned r32, r64;
    asm volatile("getctarank.shared::cluster.u32 %0, %1;" : "=r"(r32) : "r"(mapped));
    asm volatile("getctarank.u64 %0, %1;" : "=r"(r64) : "l"(gen));
    o[18] = r32;
    o[19] = r64;
    // A .shared::cluster address to generic, read generically.
    unsigned long long cgen;
    asm volatile("cvta.shared::cluster.u64 %0, %1;" : "=l"(cgen) : "l"(static_cast<unsigned long long>(mapped)));
    asm volatile("ld.u32 %0, [%1];" : "=r"(value) : "l"(cgen));
    o[20] = value;
    // st.shared::cluster into the mapped word of `other`, seen after the next cluster barrier.
    const unsigned os = static_cast<unsigned>(__cvta_generic_to_shared(&other[(t + 5) % n]));
    unsigned omapped;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(omapped) : "r"(os), "r"(rank));
    asm volatile("st.shared::cluster.u32 [%0], %1;" ::"r"(omapped), "r"(in[g] ^ 0x5a5a5a5au)
                 : "memory");
    asm volatile("barrier.cluster.arrive.relaxed.aligned;\n\tbarrier.cluster.wait.aligned;" :::
                     "memory");
    o[21] = other[t];
    asm volatile("ld.shared::cluster.v2.u32 {%0, %1}, [%2];"
                 : "=r"(o[22]), "=r"(o[23])
                 : "r"(static_cast<unsigned>(__cvta_generic_to_shared(&other[(t / 2) * 2]))));
    unsigned long long* a = addresses + g * 3;
    a[0] = mapped - s;
    a[1] = gmapped - gen;
    a[2] = cgen - reinterpret_cast<unsigned long long>(&words[(t + 1) % n]);
}

extern "C" __global__ void hints(__grid_constant__ const Cluster param, const unsigned* in,
                                 unsigned* out, const unsigned* discarded)
{
    __shared__ __align__(16) unsigned staged[4 * 64];
    const unsigned t = threadIdx.x;
    const unsigned g = blockIdx.x * blockDim.x + t;
    unsigned* o = out + g * 16;
    asm volatile("griddepcontrol.wait;" ::: "memory");
    unsigned long long first, last, range;
    asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(last));
    asm volatile("createpolicy.fractional.L2::evict_first.L2::evict_unchanged.b64 %0, 0.5;"
                 : "=l"(first));
    asm volatile("createpolicy.range.L2::evict_last.L2::evict_first.b64 %0, [%1], 256, 1024;"
                 : "=l"(range)
                 : "l"(in));
    unsigned v;
    asm volatile("ld.global.L2::cache_hint.u32 %0, [%1], %2;" : "=r"(v) : "l"(in + g), "l"(last));
    o[0] = v;
    asm volatile("ld.global.nc.L1::evict_last.L2::cache_hint.u32 %0, [%1], %2;"
                 : "=r"(v)
                 : "l"(in + (g ^ 1)), "l"(first));
    o[1] = v;
    asm volatile("applypriority.global.L2::evict_normal [%0], 128;" ::"l"(in + (g / 32) * 32));
    asm volatile("discard.global.L2 [%0], 128;" ::"l"(discarded + (g / 32) * 32) : "memory");
    asm volatile("pmevent 1;\n\tpmevent.mask 0x3;");
    asm volatile("st.global.L2::cache_hint.u32 [%0], %1, %2;" ::"l"(o + 2), "r"(v * 3u), "l"(range)
                 : "memory");
    asm volatile("fence.proxy.alias;\n\tfence.proxy.async;\n\tfence.proxy.async.global;\n\t"
                 "fence.proxy.async.shared::cta;\n\tfence.mbarrier_init.release.cluster;\n\t"
                 "fence.proxy.tensormap::generic.release.gpu;" ::: "memory");
    asm volatile("fence.proxy.tensormap::generic.acquire.gpu [%0], 128;" ::"l"(in) : "memory");
    // ld/st .b128: four words in, rotated, four words out; through shared memory too.
    unsigned w0, w1, w2, w3;
    asm volatile("{\n\t.reg .b128 q;\n\t.reg .b64 lo, hi;\n\tld.global.b128 q, [%4];\n\t"
                 "mov.b128 {lo, hi}, q;\n\tmov.b64 {%0, %1}, lo;\n\tmov.b64 {%2, %3}, hi;\n\t}"
                 : "=r"(w0), "=r"(w1), "=r"(w2), "=r"(w3)
                 : "l"(in + (g / 4) * 4));
    asm volatile("{\n\t.reg .b128 q;\n\t.reg .b64 lo, hi;\n\tmov.b64 lo, {%1, %2};\n\t"
                 "mov.b64 hi, {%3, %4};\n\tmov.b128 q, {lo, hi};\n\tst.shared.b128 [%0], q;\n\t}"
                 ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(&staged[t * 4]))),
                 "r"(w1), "r"(w2), "r"(w3), "r"(w0)
                 : "memory");
    __syncthreads();
    asm volatile("{\n\t.reg .b128 q;\n\tld.shared.b128 q, [%0];\n\tst.global.b128 [%1], q;\n\t}"
                 ::"r"(static_cast<unsigned>(__cvta_generic_to_shared(&staged[((t + 1) % 64) * 4]))),
                 "l"(o + 4)
                 : "memory");
    // cvta.param: the parameter's generic address, read with a generic load.
    const unsigned long long p = reinterpret_cast<unsigned long long>(&param);
    asm volatile("ld.u32 %0, [%1];" : "=r"(v) : "l"(p + 4 * (t % 16)));
    o[8] = v;
    o[9] = static_cast<unsigned>(p & 3u);
    asm volatile("membar.proxy.alias;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
    o[10] = v + in[g];
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
extern "C" __global__ void __maxnreg__(128)
    maxnreg(const unsigned* in, unsigned* out)
{
    const unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    asm volatile("setmaxnreg.dec.sync.aligned.u32 64;" ::: "memory");
    unsigned v = in[g];
    asm volatile("setmaxnreg.inc.sync.aligned.u32 128;" ::: "memory");
    out[g] = v * 7u + 1u;
}
#endif
