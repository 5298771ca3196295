// d4r-isa-ptx: module_vars.sm_90.ptx -arch=sm_90 -O3
// Module-scope variables that the host writes before a launch (cuModuleGetGlobal + cuMemcpyHtoD,
// which cudaMemcpyToSymbol is): a __constant__ and a __device__ array without an initialiser, an
// initialised __constant__ table the host may overwrite, and, in a kernel of their own, static
// ones (nvcc 13 writes all of them without .visible). A translator that treats an uninitialised
// variable as a zero constant folds every load from it to 0: the golden cases catch that.
#include "isa_common.cuh"

__constant__ float k_scale[4];
__device__ unsigned d_table[64];
__constant__ unsigned k_init[4] = {0x01234567u, 0x89abcdefu, 0xdeadbeefu, 0x0badf00du};
__device__ unsigned long long d_wide;

static __device__ unsigned s_bias;
static __constant__ unsigned s_mask[2];

extern "C" __global__ void module_vars(const unsigned* in, unsigned* words, float* floats, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = in[i];
    words[i * 4 + 0] = d_table[x & 63];
    words[i * 4 + 1] = k_init[x >> 30];
    words[i * 4 + 2] = static_cast<unsigned>(d_wide >> (x & 31));
    words[i * 4 + 3] = d_table[i & 63] ^ k_init[i & 3];
    floats[i] = k_scale[x & 3] * static_cast<float>(x & 0xffff) + k_scale[(x >> 2) & 3];
}

extern "C" __global__ void module_vars_static(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    out[i] = (in[i] + s_bias) & s_mask[i & 1];
}

#if defined(__HIP__)
// The native twin's host side: a HIP program writes the static variables with hipMemcpyToSymbol,
// and that use of the symbols keeps them host-writable. Without one, clang folds their loads to 0
// and the twin computes less than the PTX does.
void module_vars_static_host_writes(const void** symbols)
{
    symbols[0] = &s_bias;
    symbols[1] = s_mask;
}
#endif
