// d4r-isa-ptx: surface_modes.sm_90.ptx -arch=sm_90 -O3
// Stage 4, the out-of-range modes of suld.b / sust.b / sust.p besides .zero (images.cu has .zero):
// - surface_clamp: one thread walks a list of texel coordinates, most of them past an edge
//   (negative, just past, far past), and for each, in order, loads from filled surfaces and stores
//   to others in .clamp mode: b8, b32 and v4.b16 accesses (x in bytes) and sust.p (x in samples).
//   One thread, so that stores clamped onto the same texel land in program order.
// - surface_trap: every thread loads and stores its own texel in .trap mode (CUDA's default
//   boundary mode), then thread (0, 0) copies texel (load_x, 0) of `src` to texel (store_x, 0) of
//   `dst`; the cases put one of them past an edge, which must fail the launch.
#include "isa_common.cuh"

extern "C" __global__ void surface_clamp(cudaSurfaceObject_t src8, cudaSurfaceObject_t dst8,
                                         cudaSurfaceObject_t src32, cudaSurfaceObject_t dst32,
                                         cudaSurfaceObject_t src64, cudaSurfaceObject_t dst64,
                                         cudaSurfaceObject_t dstp, const int* xs, const int* ys, int n,
                                         unsigned char* loaded8, unsigned* loaded32, ushort4* loaded64)
{
    for (int i = 0; i < n; ++i) {
        const int x = xs[i];
        const int y = ys[i];
        const unsigned char v8 = surf2Dread<unsigned char>(src8, x, y, cudaBoundaryModeClamp);
        const unsigned v32 = surf2Dread<unsigned>(src32, x * 4, y, cudaBoundaryModeClamp);
        const ushort4 v64 = surf2Dread<ushort4>(src64, x * 8, y, cudaBoundaryModeClamp);
        loaded8[i] = v8;
        loaded32[i] = v32;
        loaded64[i] = v64;
        surf2Dwrite<unsigned char>(static_cast<unsigned char>(i * 7 + 1), dst8, x, y, cudaBoundaryModeClamp);
        surf2Dwrite<unsigned>(v32 ^ (static_cast<unsigned>(i) * 0x01010101u), dst32, x * 4, y,
                              cudaBoundaryModeClamp);
        surf2Dwrite<ushort4>(make_ushort4(static_cast<unsigned short>(i), v64.x, v64.y, v8), dst64, x * 8, y,
                             cudaBoundaryModeClamp);
        asm volatile("sust.p.2d.v4.b32.clamp [%0, {%1, %2}], {%3, %4, %5, %6};"
                     :
                     : "l"(dstp), "r"(x), "r"(y), "r"(i), "r"(x), "r"(y), "r"(v32)
                     : "memory");
    }
}

extern "C" __global__ void surface_trap(cudaSurfaceObject_t src, cudaSurfaceObject_t dst, int load_x, int store_x)
{
    const int x = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
    const int y = static_cast<int>(blockIdx.y * blockDim.y + threadIdx.y);
    const unsigned v = surf2Dread<unsigned>(src, x * 4, y, cudaBoundaryModeTrap);
    surf2Dwrite<unsigned>(v * 3u + 1u, dst, x * 4, y, cudaBoundaryModeTrap);
    if (x == 0 && y == 0) {
        const unsigned u = surf2Dread<unsigned>(src, load_x * 4, 0, cudaBoundaryModeTrap);
        surf2Dwrite<unsigned>(u, dst, store_x * 4, 0, cudaBoundaryModeTrap);
    }
}
