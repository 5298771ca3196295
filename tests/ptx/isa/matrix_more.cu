// d4r-isa-ptx: matrix_more.sm_90.ptx -arch=sm_90 -O3
// Warp matrix forms beyond mma.m16n8k16 (lower_wmma.cpp, lower_mma.cpp, lower_ldmatrix.cpp):
// - wmma_*: wmma.load.{a,b,c} / wmma.mma / wmma.store.d through nvcuda::wmma. Only memory results
//   are observable (the fragment layout is the implementation's), so every kernel loads A, B and C
//   from memory with a stride, multiplies and stores D. Each warp w works on its own slice of the
//   inputs. f16/bf16: every shape (m16n16k16, m32n8k16, m8n32k16), both A and B layouts, f32 and
//   f16 accumulators loaded and stored row- and column-major, from global, shared and generic
//   addresses. Then s8/u8 (s32, with and without .satfinite), tf32 m16n16k8, f64 m8n8k4, s4/u4
//   m8n8k32 and b1 m8n8k128 (xor and and popc).
// - mma_*: mma.sync forms whose per-thread fragments the ISA defines: each lane takes its A, B and
//   C registers from the input buffers as raw words and writes its D registers, so the outputs
//   check the fragment layout element by element.
// - movmatrix, stmatrix (.x1/.x2/.x4, .trans): per-lane words in, per-lane words (or the stored
//   shared rows) out.
#include "isa_common.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <mma.h>

using namespace nvcuda;

namespace {

constexpr int k_ld = 40; // every input matrix's leading dimension (elements): a strided load

template <typename Layout>
constexpr wmma::layout_t mem_layout()
{
    return std::is_same_v<Layout, wmma::row_major> ? wmma::mem_row_major : wmma::mem_col_major;
}

// D = A * B + C for one shape and pair of layouts; C is loaded in `c_layout` and D stored in
// `d_layout`, with leading dimensions k_ld and the natural one.
template <int M, int N, int K, typename In, typename Frag, typename ALayout, typename BLayout,
          typename Acc>
__device__ void tile(const In* a, const In* b, const Acc* c, Acc* d, wmma::layout_t c_layout,
                     wmma::layout_t d_layout)
{
    wmma::fragment<wmma::matrix_a, M, N, K, Frag, ALayout> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, Frag, BLayout> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, k_ld);
    wmma::load_matrix_sync(fb, b, k_ld);
    wmma::load_matrix_sync(fc, c, k_ld, c_layout);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, d_layout == wmma::mem_row_major ? N : M, d_layout);
}

// The four layout pairs of one shape, each with an f32 and an f16 accumulator (f16 inputs) or
// only f32 (bf16): D tiles of M * N elements one after another.
template <int M, int N, int K, typename In, bool f16_acc>
__device__ void shape_all(const In* a, const In* b, const float* c, const half* ch, float* d,
                          half* dh)
{
    constexpr int e = M * N;
    tile<M, N, K, In, In, wmma::row_major, wmma::col_major>(a, b, c, d, wmma::mem_row_major,
                                                            wmma::mem_row_major);
    tile<M, N, K, In, In, wmma::row_major, wmma::row_major>(a, b, c, d + e, wmma::mem_col_major,
                                                            wmma::mem_row_major);
    tile<M, N, K, In, In, wmma::col_major, wmma::col_major>(a, b, c, d + 2 * e,
                                                            wmma::mem_row_major,
                                                            wmma::mem_col_major);
    tile<M, N, K, In, In, wmma::col_major, wmma::row_major>(a, b, c, d + 3 * e,
                                                            wmma::mem_col_major,
                                                            wmma::mem_col_major);
    if constexpr (f16_acc) {
        tile<M, N, K, In, In, wmma::row_major, wmma::col_major>(a, b, ch, dh, wmma::mem_row_major,
                                                                wmma::mem_row_major);
        tile<M, N, K, In, In, wmma::col_major, wmma::row_major>(a, b, ch, dh + e,
                                                                wmma::mem_col_major,
                                                                wmma::mem_col_major);
    }
}

constexpr int k_in = 2048; // input elements per warp (A, B, C each)

} // namespace

// f16 in, per warp: A, B at a/b + 2048 w, C (f32, f16) likewise; D: three shapes of 4 f32 tiles
// and 2 f16 tiles (out + 3584 w, outh + 1536 w), then the m16n16k16 col/row tile from shared
// memory (out + 3584 w + 3072) and the m32n8k16 row/col tile through generic pointers (+ 256).
extern "C" __global__ void wmma_f16(const half* a, const half* b, const float* c, const half* ch,
                                    float* out, half* outh, int generic_shared)
{
    __shared__ __align__(32) half sa[2][k_in];
    __shared__ __align__(32) half sb[2][k_in];
    const int w = threadIdx.x / 32;
    a += k_in * w;
    b += k_in * w;
    c += k_in * w;
    ch += k_in * w;
    float* d = out + 3584 * w;
    half* dh = outh + 1536 * w;
    shape_all<16, 16, 16, half, true>(a, b, c, ch, d, dh);
    shape_all<32, 8, 16, half, true>(a, b, c, ch, d + 1024, dh + 512);
    shape_all<8, 32, 16, half, true>(a, b, c, ch, d + 2048, dh + 1024);
    for (int k = threadIdx.x % 32; k < k_in; k += 32) {
        sa[w][k] = a[k];
        sb[w][k] = b[k];
    }
    __syncwarp();
    tile<16, 16, 16, half, half, wmma::col_major, wmma::row_major>(
        sa[w], sb[w], c, d + 3072, wmma::mem_row_major, wmma::mem_row_major);
    // A generic pointer: shared or global, chosen at run time, so no state space is known.
    const half* ga = generic_shared != 0 ? sa[w] : a;
    const half* gb = generic_shared != 0 ? sb[w] : b;
    tile<32, 8, 16, half, half, wmma::row_major, wmma::col_major>(
        ga, gb, c, d + 3072 + 256, wmma::mem_col_major, wmma::mem_col_major);
}

// bf16 in (f32 accumulators only): per warp three shapes of 4 tiles (out + 3072 w).
extern "C" __global__ void wmma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b,
                                     const float* c, float* out)
{
    const int w = threadIdx.x / 32;
    a += k_in * w;
    b += k_in * w;
    c += k_in * w;
    float* d = out + 3072 * w;
    shape_all<16, 16, 16, __nv_bfloat16, false>(a, b, c, nullptr, d, nullptr);
    shape_all<32, 8, 16, __nv_bfloat16, false>(a, b, c, nullptr, d + 1024, nullptr);
    shape_all<8, 32, 16, __nv_bfloat16, false>(a, b, c, nullptr, d + 2048, nullptr);
}

namespace {

template <int M, int N, int K, typename In, typename ALayout, typename BLayout>
__device__ void int_tile(const In* a, const In* b, const int* c, int* d, bool satf)
{
    wmma::fragment<wmma::matrix_a, M, N, K, In, ALayout> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, In, BLayout> fb;
    wmma::fragment<wmma::accumulator, M, N, K, int> fc;
    wmma::load_matrix_sync(fa, a, k_ld);
    wmma::load_matrix_sync(fb, b, k_ld);
    wmma::load_matrix_sync(fc, c, k_ld, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc, satf);
    wmma::store_matrix_sync(d, fc, M, wmma::mem_col_major);
}

template <int M, int N, int K, typename In>
__device__ void int_shape(const In* a, const In* b, const int* c, int* d)
{
    constexpr int e = M * N;
    int_tile<M, N, K, In, wmma::row_major, wmma::col_major>(a, b, c, d, false);
    int_tile<M, N, K, In, wmma::col_major, wmma::row_major>(a, b, c, d + e, true);
    int_tile<M, N, K, In, wmma::row_major, wmma::row_major>(a, b, c, d + 2 * e, true);
    int_tile<M, N, K, In, wmma::col_major, wmma::col_major>(a, b, c, d + 3 * e, false);
}

} // namespace

// s8 and u8 in, s32 C (large values, so .satfinite clamps and the plain form wraps): per warp
// three shapes of 4 tiles for s8 (out + 6144 w), then the same for u8 (+ 3072).
extern "C" __global__ void wmma_int8(const signed char* a, const signed char* b, const int* c,
                                     int* out)
{
    const int w = threadIdx.x / 32;
    a += k_in * w;
    b += k_in * w;
    c += k_in * w;
    int* d = out + 6144 * w;
    int_shape<16, 16, 16, signed char>(a, b, c, d);
    int_shape<32, 8, 16, signed char>(a, b, c, d + 1024);
    int_shape<8, 32, 16, signed char>(a, b, c, d + 2048);
    const unsigned char* ua = reinterpret_cast<const unsigned char*>(a);
    const unsigned char* ub = reinterpret_cast<const unsigned char*>(b);
    int_shape<16, 16, 16, unsigned char>(ua, ub, c, d + 3072);
    int_shape<32, 8, 16, unsigned char>(ua, ub, c, d + 4096);
    int_shape<8, 32, 16, unsigned char>(ua, ub, c, d + 5120);
}

// tf32 m16n16k8 (inputs exact in tf32), f64 m8n8k4: per warp 4 tf32 tiles (out + 1024 w) and
// 4 f64 tiles (outd + 256 w).
extern "C" __global__ void wmma_tf32_f64(const float* a, const float* b, const float* c,
                                         const double* ad, const double* bd, const double* cd,
                                         float* out, double* outd)
{
    const int w = threadIdx.x / 32;
    a += k_in * w;
    b += k_in * w;
    c += k_in * w;
    ad += k_in * w;
    bd += k_in * w;
    cd += k_in * w;
    float* d = out + 1024 * w;
    using wmma::col_major;
    using wmma::row_major;
    using tf32 = wmma::precision::tf32;
    tile<16, 16, 8, float, tf32, row_major, col_major>(a, b, c, d, wmma::mem_row_major,
                                                       wmma::mem_row_major);
    tile<16, 16, 8, float, tf32, row_major, row_major>(a, b, c, d + 256, wmma::mem_col_major,
                                                       wmma::mem_row_major);
    tile<16, 16, 8, float, tf32, col_major, col_major>(a, b, c, d + 512, wmma::mem_row_major,
                                                       wmma::mem_col_major);
    tile<16, 16, 8, float, tf32, col_major, row_major>(a, b, c, d + 768, wmma::mem_col_major,
                                                       wmma::mem_col_major);
    double* dd = outd + 256 * w;
    tile<8, 8, 4, double, double, row_major, col_major>(ad, bd, cd, dd, wmma::mem_row_major,
                                                        wmma::mem_row_major);
    tile<8, 8, 4, double, double, row_major, row_major>(ad, bd, cd, dd + 64, wmma::mem_col_major,
                                                        wmma::mem_row_major);
    tile<8, 8, 4, double, double, col_major, col_major>(ad, bd, cd, dd + 128, wmma::mem_row_major,
                                                        wmma::mem_col_major);
    tile<8, 8, 4, double, double, col_major, row_major>(ad, bd, cd, dd + 192, wmma::mem_col_major,
                                                        wmma::mem_col_major);
}

namespace {

template <typename Prec>
__device__ void sub_byte_tile(const void* a, const void* b, const int* c, int* d, int ld)
{
    wmma::fragment<wmma::matrix_a, 8, 8, 32, Prec, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 32, Prec, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 32, int> fc;
    wmma::load_matrix_sync(fa, a, ld);
    wmma::load_matrix_sync(fb, b, ld);
    wmma::load_matrix_sync(fc, c, k_ld, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, 8, wmma::mem_row_major);
}

__device__ void b1_tile(const void* a, const void* b, const int* c, int* d, bool use_and)
{
    using wmma::experimental::precision::b1;
    wmma::fragment<wmma::matrix_a, 8, 8, 128, b1, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 128, b1, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 128, int> fc;
    wmma::load_matrix_sync(fa, a, 256);
    wmma::load_matrix_sync(fb, b, 256);
    wmma::load_matrix_sync(fc, c, k_ld, wmma::mem_col_major);
    if (use_and) {
        wmma::bmma_sync(fc, fa, fb, fc, wmma::experimental::bmmaBitOpAND);
    } else {
        wmma::bmma_sync(fc, fa, fb, fc, wmma::experimental::bmmaBitOpXOR);
    }
    wmma::store_matrix_sync(d, fc, 8, wmma::mem_col_major);
}

} // namespace

// s4, u4 m8n8k32 (leading dimension 64 elements, 32 bytes) and b1 m8n8k128 xor/and popc (256
// bits): raw 32-bit words in; per warp 4 tiles of 64 s32 (out + 256 w).
extern "C" __global__ void wmma_sub_byte(const unsigned* a, const unsigned* b, const int* c,
                                         int* out)
{
    const int w = threadIdx.x / 32;
    a += 512 * w;
    b += 512 * w;
    c += k_in * w;
    int* d = out + 256 * w;
    sub_byte_tile<wmma::experimental::precision::s4>(a, b, c, d, 64);
    sub_byte_tile<wmma::experimental::precision::u4>(a, b, c, d + 64, 64);
    b1_tile(a, b, c, d + 128, false);
    b1_tile(a, b, c, d + 192, true);
}

// mma.sync integer forms on raw words: lane l takes A from in[8 l ..], B from in[256 + 4 l ..], C
// from c[4 l ..] and writes D to out[128 f + 4 l ..] for form f (D words past the form's count
// stay as the host filled them). Block b reads in + 512 b, c + 128 b and writes out + 2048 b.
#define D4R_MMA_INT_2(SHAPE_TYPES, f)                                                              \
    asm volatile("mma.sync.aligned." SHAPE_TYPES " {%0, %1}, {%2}, {%3}, {%4, %5};"               \
                 : "=r"(d[128 * f]), "=r"(d[128 * f + 1])                                          \
                 : "r"(a[0]), "r"(b[0]), "r"(c[0]), "r"(c[1]))

extern "C" __global__ void mma_int(const unsigned* in, const int* cin, int* out)
{
    const unsigned lane = lane_id();
    const unsigned* a = in + 512 * blockIdx.x + 8 * lane;
    const unsigned* b = in + 512 * blockIdx.x + 256 + 4 * lane;
    const int* c = cin + 128 * blockIdx.x + 4 * lane;
    int* d = out + 2048 * blockIdx.x + 4 * lane;
    D4R_MMA_INT_2("m8n8k16.row.col.s32.s8.s8.s32", 0);
    D4R_MMA_INT_2("m8n8k16.row.col.s32.u8.s8.s32", 1);
    D4R_MMA_INT_2("m8n8k16.row.col.satfinite.s32.u8.u8.s32", 2);
    D4R_MMA_INT_2("m8n8k32.row.col.s32.s4.s4.s32", 3);
    D4R_MMA_INT_2("m8n8k32.row.col.satfinite.s32.u4.s4.s32", 4);
    D4R_MMA_INT_2("m8n8k128.row.col.s32.b1.b1.s32.xor.popc", 5);
    D4R_MMA_INT_2("m8n8k128.row.col.s32.b1.b1.s32.and.popc", 6);
    asm volatile("mma.sync.aligned.m16n8k16.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                 "{%7, %8, %9, %10};"
                 : "=r"(d[128 * 7]), "=r"(d[128 * 7 + 1]), "=r"(d[128 * 7 + 2]), "=r"(d[128 * 7 + 3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.satfinite.s32.s8.u8.s32 {%0, %1, %2, %3}, "
                 "{%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[128 * 8]), "=r"(d[128 * 8 + 1]), "=r"(d[128 * 8 + 2]), "=r"(d[128 * 8 + 3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[128 * 9]), "=r"(d[128 * 9 + 1]), "=r"(d[128 * 9 + 2]), "=r"(d[128 * 9 + 3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k32.row.col.satfinite.s32.u8.u8.s32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[128 * 10]), "=r"(d[128 * 10 + 1]), "=r"(d[128 * 10 + 2]), "=r"(d[128 * 10 + 3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s4.u4.s32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                 "{%7, %8, %9, %10};"
                 : "=r"(d[128 * 11]), "=r"(d[128 * 11 + 1]), "=r"(d[128 * 11 + 2]), "=r"(d[128 * 11 + 3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k64.row.col.s32.s4.s4.s32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[128 * 12]), "=r"(d[128 * 12 + 1]), "=r"(d[128 * 12 + 2]), "=r"(d[128 * 12 + 3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k64.row.col.satfinite.s32.u4.u4.s32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[128 * 13]), "=r"(d[128 * 13 + 1]), "=r"(d[128 * 13 + 2]), "=r"(d[128 * 13 + 3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k128.row.col.s32.b1.b1.s32.and.popc {%0, %1, %2, %3}, "
                 "{%4, %5}, {%6}, {%7, %8, %9, %10};"
                 : "=r"(d[128 * 14]), "=r"(d[128 * 14 + 1]), "=r"(d[128 * 14 + 2]), "=r"(d[128 * 14 + 3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "r"(c[0]), "r"(c[1]), "r"(c[2]), "r"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k256.row.col.s32.b1.b1.s32.xor.popc {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=r"(d[128 * 15]), "=r"(d[128 * 15 + 1]), "=r"(d[128 * 15 + 2]), "=r"(d[128 * 15 + 3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "r"(c[0]),
                   "r"(c[1]), "r"(c[2]), "r"(c[3]));
}

// mma.sync floating-point forms on small integers (exact whatever the summation order): lane l
// takes f16x2 words from h[8 l ..] (A) and h[256 + 4 l ..] (B), f32 words from f[8 l ..] (tf32
// A), f[256 + 4 l ..] (tf32 B) and f[512 + 8 l ..] (C), f64 from dbl[8 l ..] (A), dbl[256 + 4 l
// ..] (B), dbl[512 + 4 l ..] (C); D to out[256 form + 8 l ..] and outd[128 form + 4 l ..].
extern "C" __global__ void mma_float(const unsigned* h, const float* f, const double* dbl,
                                     float* out, double* outd)
{
    const unsigned l = lane_id();
    const unsigned* ha = h + 8 * l;
    const unsigned* hb = h + 256 + 4 * l;
    const unsigned* fa = reinterpret_cast<const unsigned*>(f) + 8 * l; // tf32 in .b32 registers
    const unsigned* fb = reinterpret_cast<const unsigned*>(f) + 256 + 4 * l;
    const float* fc = f + 512 + 8 * l;
    const unsigned* hc = h + 512 + 8 * l; // f16x2 C words
    float* d = out + 8 * l;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5}, {%6}, "
                 "{%7, %8, %9, %10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(ha[0]), "r"(ha[1]), "r"(hb[0]), "f"(fc[0]), "f"(fc[1]), "f"(fc[2]), "f"(fc[3]));
    unsigned* du = reinterpret_cast<unsigned*>(out) + 8 * l;
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f16.f16.f16.f16 {%0, %1}, {%2, %3}, {%4}, "
                 "{%5, %6};"
                 : "=r"(du[256]), "=r"(du[257])
                 : "r"(ha[0]), "r"(ha[1]), "r"(hb[0]), "r"(hc[0]), "r"(hc[1]));
    // bf16 words from the f32 integers (exact in bf16: their low 16 bits are zero).
    const unsigned ba[2] = {(fa[0] >> 16) | (fa[1] & 0xffff0000u), (fa[2] >> 16) | (fa[3] & 0xffff0000u)};
    const unsigned bb = (fb[0] >> 16) | (fb[1] & 0xffff0000u);
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6}, {%7, %8, %9, %10};"
                 : "=f"(d[512]), "=f"(d[513]), "=f"(d[514]), "=f"(d[515])
                 : "r"(ba[0]), "r"(ba[1]), "r"(bb), "f"(fc[0]), "f"(fc[1]), "f"(fc[2]), "f"(fc[3]));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d[768]), "=f"(d[769]), "=f"(d[770]), "=f"(d[771])
                 : "r"(fa[0]), "r"(fa[1]), "r"(fa[2]), "r"(fa[3]), "r"(fb[0]), "r"(fb[1]),
                   "f"(fc[0]), "f"(fc[1]), "f"(fc[2]), "f"(fc[3]));
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6}, {%7, %8, %9, %10};"
                 : "=f"(d[1024]), "=f"(d[1025]), "=f"(d[1026]), "=f"(d[1027])
                 : "r"(fa[4]), "r"(fa[5]), "r"(fb[2]), "f"(fc[4]), "f"(fc[5]), "f"(fc[6]), "f"(fc[7]));
    const double* da = dbl + 8 * l;
    const double* db = dbl + 256 + 4 * l;
    const double* dc = dbl + 512 + 4 * l;
    double* dd = outd + 4 * l;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%4, %5};"
                 : "=d"(dd[0]), "=d"(dd[1])
                 : "d"(da[0]), "d"(db[0]), "d"(dc[0]), "d"(dc[1]));
    asm volatile("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6}, {%7, %8, %9, %10};"
                 : "=d"(dd[128]), "=d"(dd[129]), "=d"(dd[130]), "=d"(dd[131])
                 : "d"(da[0]), "d"(da[1]), "d"(db[0]), "d"(dc[0]), "d"(dc[1]), "d"(dc[2]), "d"(dc[3]));
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=d"(dd[256]), "=d"(dd[257]), "=d"(dd[258]), "=d"(dd[259])
                 : "d"(da[0]), "d"(da[1]), "d"(da[2]), "d"(da[3]), "d"(db[0]), "d"(db[1]),
                   "d"(dc[0]), "d"(dc[1]), "d"(dc[2]), "d"(dc[3]));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%16, %17, %18, %19};"
                 : "=d"(dd[384]), "=d"(dd[385]), "=d"(dd[386]), "=d"(dd[387])
                 : "d"(da[0]), "d"(da[1]), "d"(da[2]), "d"(da[3]), "d"(da[4]), "d"(da[5]),
                   "d"(da[6]), "d"(da[7]), "d"(db[0]), "d"(db[1]), "d"(db[2]), "d"(db[3]),
                   "d"(dc[0]), "d"(dc[1]), "d"(dc[2]), "d"(dc[3]));
}

// mma.m8n8k4 with .f16 A/B and f32 C/D (four quad-pairs, each its own 8x8x4 product), as
// mma_float: A words h[8 l ..], B h[256 + 4 l ..], C f[512 + 8 l ..]; D to out[8 l ..].
extern "C" __global__ void mma_m8n8k4_f16(const unsigned* h, const float* f, float* out)
{
    const unsigned l = lane_id();
    const unsigned* ha = h + 8 * l;
    const unsigned* hb = h + 256 + 4 * l;
    const float* fc = f + 512 + 8 * l;
    float* d = out + 8 * l;
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "{%8, %9}, {%10, %11}, {%12, %13, %14, %15, %16, %17, %18, %19};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]),
                   "=f"(d[5]), "=f"(d[6]), "=f"(d[7])
                 : "r"(ha[0]), "r"(ha[1]), "r"(hb[0]), "r"(hb[1]), "f"(fc[0]), "f"(fc[1]),
                   "f"(fc[2]), "f"(fc[3]), "f"(fc[4]), "f"(fc[5]), "f"(fc[6]), "f"(fc[7]));
}

// movmatrix and stmatrix: lane l's words w[4 l ..] (random bits). movmatrix: out[l]. stmatrix:
// each lane points at row (5 l + 3) mod 32 of a 32-row b16 table in shared memory (16 bytes a
// row, filled with 0xffff first); after .x1, .x2, .x4 and their .trans forms (each into a fresh
// table) the tables go to out[32 + 256 k ..].
extern "C" __global__ void movmatrix_stmatrix(const unsigned* w, unsigned* out)
{
    __shared__ __align__(16) unsigned short rows[32 * 8];
    const unsigned l = lane_id();
    const unsigned* mine = w + 4 * l;
    unsigned moved;
    asm volatile("movmatrix.sync.aligned.m8n8.trans.b16 %0, %1;" : "=r"(moved) : "r"(mine[0]));
    out[l] = moved;
    const unsigned s =
        static_cast<unsigned>(__cvta_generic_to_shared(rows + ((5 * l + 3) % 32) * 8));
    for (int k = 0; k < 6; ++k) {
        for (int i = l; i < 32 * 8; i += 32) {
            rows[i] = 0xffff;
        }
        __syncwarp();
        switch (k) {
        case 0:
            asm volatile("stmatrix.sync.aligned.m8n8.x1.shared.b16 [%0], {%1};" ::"r"(s), "r"(mine[0]));
            break;
        case 1:
            asm volatile("stmatrix.sync.aligned.m8n8.x2.shared.b16 [%0], {%1, %2};" ::"r"(s),
                         "r"(mine[0]), "r"(mine[1]));
            break;
        case 2:
            asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(s),
                         "r"(mine[0]), "r"(mine[1]), "r"(mine[2]), "r"(mine[3]));
            break;
        case 3:
            asm volatile("stmatrix.sync.aligned.m8n8.x1.trans.shared.b16 [%0], {%1};" ::"r"(s),
                         "r"(mine[0]));
            break;
        case 4:
            asm volatile("stmatrix.sync.aligned.m8n8.x2.trans.shared::cta.b16 [%0], {%1, %2};" ::"r"(s),
                         "r"(mine[0]), "r"(mine[1]));
            break;
        default:
            asm volatile("stmatrix.sync.aligned.m8n8.x4.trans.shared.b16 [%0], {%1, %2, %3, %4};" ::"r"(s),
                         "r"(mine[0]), "r"(mine[1]), "r"(mine[2]), "r"(mine[3]));
            break;
        }
        __syncwarp();
        const unsigned* table = reinterpret_cast<const unsigned*>(rows);
        for (int i = l; i < 128; i += 32) {
            out[32 + 128 * k + i] = table[i];
        }
        __syncwarp();
    }
}

// The other m8n8k4 .f16 forms (as mma_m8n8k4_f16's inputs): col.row with f32 C/D (out[8 l ..]),
// row.row with f16 C/D (outh[4 l ..] as f16x2 words) and col.col with f16 C and f32 D
// (out[256 + 8 l ..]; the ISA has no f32 C with f16 D for this shape).
extern "C" __global__ void mma_m8n8k4_more(const unsigned* h, const float* f, float* out,
                                           unsigned* outh)
{
    const unsigned l = lane_id();
    const unsigned* ha = h + 8 * l;
    const unsigned* hb = h + 256 + 4 * l;
    const unsigned* hc = h + 512 + 4 * l;
    const float* fc = f + 512 + 8 * l;
    float* d = out + 8 * l;
    unsigned* dh = outh + 4 * l;
    asm volatile("mma.sync.aligned.m8n8k4.col.row.f32.f16.f16.f32 {%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "{%8, %9}, {%10, %11}, {%12, %13, %14, %15, %16, %17, %18, %19};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3]), "=f"(d[4]), "=f"(d[5]),
                   "=f"(d[6]), "=f"(d[7])
                 : "r"(ha[0]), "r"(ha[1]), "r"(hb[0]), "r"(hb[1]), "f"(fc[0]), "f"(fc[1]),
                   "f"(fc[2]), "f"(fc[3]), "f"(fc[4]), "f"(fc[5]), "f"(fc[6]), "f"(fc[7]));
    asm volatile("mma.sync.aligned.m8n8k4.row.row.f16.f16.f16.f16 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6, %7}, {%8, %9, %10, %11};"
                 : "=r"(dh[0]), "=r"(dh[1]), "=r"(dh[2]), "=r"(dh[3])
                 : "r"(ha[0]), "r"(ha[1]), "r"(hb[0]), "r"(hb[1]), "r"(hc[0]), "r"(hc[1]),
                   "r"(hc[2]), "r"(hc[3]));
    asm volatile("mma.sync.aligned.m8n8k4.col.col.f32.f16.f16.f16 {%0, %1, %2, %3, %4, %5, %6, %7}, "
                 "{%8, %9}, {%10, %11}, {%12, %13, %14, %15};"
                 : "=f"(d[256]), "=f"(d[257]), "=f"(d[258]), "=f"(d[259]), "=f"(d[260]),
                   "=f"(d[261]), "=f"(d[262]), "=f"(d[263])
                 : "r"(ha[0]), "r"(ha[1]), "r"(hb[0]), "r"(hb[1]), "r"(hc[0]), "r"(hc[1]),
                   "r"(hc[2]), "r"(hc[3]));
}

// mma.sync with FP8 inputs on raw words (as mma_int): lane l takes A from in[8 l ..], B from
// in[256 + 4 l ..], f32 C from c[4 l ..]; D to out[128 f + 4 l ..] for form f: m16n8k16
// e4m3.e4m3, m16n8k16 e5m2.e4m3, m16n8k32 e4m3.e4m3, m16n8k32 e5m2.e5m2.
extern "C" __global__ void mma_fp8(const unsigned* in, const float* cin, float* out)
{
    const unsigned l = lane_id();
    const unsigned* a = in + 8 * l;
    const unsigned* b = in + 256 + 4 * l;
    const float* c = cin + 4 * l;
    float* d = out + 4 * l;
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6}, {%7, %8, %9, %10};"
                 : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.e5m2.e4m3.f32 {%0, %1, %2, %3}, {%4, %5}, "
                 "{%6}, {%7, %8, %9, %10};"
                 : "=f"(d[128]), "=f"(d[129]), "=f"(d[130]), "=f"(d[131])
                 : "r"(a[0]), "r"(a[1]), "r"(b[0]), "f"(c[0]), "f"(c[1]), "f"(c[2]), "f"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d[256]), "=f"(d[257]), "=f"(d[258]), "=f"(d[259])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
                   "f"(c[1]), "f"(c[2]), "f"(c[3]));
    asm volatile("mma.sync.aligned.m16n8k32.row.col.f32.e5m2.e5m2.f32 {%0, %1, %2, %3}, "
                 "{%4, %5, %6, %7}, {%8, %9}, {%10, %11, %12, %13};"
                 : "=f"(d[384]), "=f"(d[385]), "=f"(d[386]), "=f"(d[387])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]),
                   "f"(c[1]), "f"(c[2]), "f"(c[3]));
}
