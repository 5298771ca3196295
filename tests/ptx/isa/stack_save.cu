// d4r-isa-ptx: stack_save.sm_90.ptx -arch=sm_90 -O3
// stacksave / stackrestore (lower_control.cpp), which nvcc writes only from inline PTX: each thread
// saves the stack pointer, allocas a data-dependent number of words (nvcc's `alloca`), fills and
// sums them, and restores the pointer, four rounds in a loop; then once more with .u32 (the low
// half of the .local address, which is all of it). NVIDIA's stack grows down and ours up, so the
// outputs are what does not depend on the direction: the sums; whether the pointer read again
// after each restore equals the one saved; whether an alloca of the same size after a restore
// gets the same address as the first round's; whether the pointer moved at all after an alloca;
// and each address modulo 16 (the alignment nvcc asks for). Four u32 per round and four more.
#include <alloca.h>
#include "isa_common.cuh"

// clang 19 writes alloca's alignment as 0, which ptxas refuses ("Alignment must be a power of
// two"), unless it is given one; nvcc asks for 16 by itself.
#ifdef __clang__
#define D4R_ALLOCA(bytes) __builtin_alloca_with_align((bytes), 128)
#else
#define D4R_ALLOCA(bytes) alloca(bytes)
#endif

__device__ __forceinline__ unsigned long long stack_save()
{
    unsigned long long p;
    asm volatile("stacksave.u64 %0;" : "=l"(p) :: "memory");
    return p;
}

// An address as a number nvcc knows nothing of: without it, nvcc folds "two allocas have different
// addresses" and "an alloca of alignment 16 is 16-aligned" to constants.
__device__ __forceinline__ unsigned long long opaque(const void* p)
{
    unsigned long long v;
    asm volatile("mov.b64 %0, %1;" : "=l"(v) : "l"(reinterpret_cast<unsigned long long>(p)));
    return v;
}

__device__ __forceinline__ void stack_restore(unsigned long long p)
{
    asm volatile("stackrestore.u64 %0;" :: "l"(p) : "memory");
}

extern "C" __global__ void stack_save_restore(const unsigned* in, unsigned* out, int n)
{
    const unsigned i = D4R_GID;
    if (i >= static_cast<unsigned>(n)) {
        return;
    }
    const unsigned x = in[i];
    const unsigned size = 1u + x % 29u;
    unsigned* o = out + i * 20u;
    unsigned long long first = 0;
    for (unsigned round = 0; round < 4u; ++round) {
        const unsigned long long saved = stack_save();
        // The size through a volatile move, so that nvcc keeps one alloca per round instead of
        // hoisting the first out of the loop.
        unsigned s;
        asm volatile("mov.u32 %0, %1;" : "=r"(s) : "r"(size));
        unsigned* words = static_cast<unsigned*>(D4R_ALLOCA(s * sizeof(unsigned)));
        const unsigned long long moved = stack_save();
        for (unsigned j = 0; j < size; ++j) {
            words[j] = x * (j + round + 1u) ^ (j << 8);
        }
        unsigned sum = 0;
        for (unsigned j = 0; j < size; j += 1u + (x & 1u)) {
            sum = sum * 33u + words[(j * 5u + round) % size];
        }
        const unsigned long long at = opaque(words);
        if (round == 0) {
            first = at;
        }
        stack_restore(saved);
        const unsigned long long again = stack_save();
        o[4 * round] = sum;
        o[4 * round + 1] = (again == saved ? 1u : 0u) | (at == first ? 2u : 0u);
        o[4 * round + 2] = moved != saved ? 1u : 0u;
        o[4 * round + 3] = static_cast<unsigned>(at & 15u);
    }
    // The .u32 forms: save, an alloca, restore, save again.
    unsigned saved32, again32;
    asm volatile("stacksave.u32 %0;" : "=r"(saved32) :: "memory");
    unsigned* more = static_cast<unsigned*>(D4R_ALLOCA((size + 3u) * sizeof(unsigned)));
    for (unsigned j = 0; j < size + 3u; ++j) {
        more[j] = x + j;
    }
    unsigned sum = 0;
    for (unsigned j = 0; j < size + 3u; ++j) {
        sum += more[j] * (j + 1u);
    }
    asm volatile("stackrestore.u32 %0;" :: "r"(saved32) : "memory");
    asm volatile("stacksave.u32 %0;" : "=r"(again32) :: "memory");
    o[16] = sum;
    o[17] = again32 == saved32 ? 1u : 0u;
    o[18] = static_cast<unsigned>(opaque(more) & 15u);
    o[19] = 0x5a5a0000u | size;
}
