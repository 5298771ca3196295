/* d4r_ptx_support.h: the PTX support library, exact software versions of PTX's arithmetic that the
 * translator (compiler/translate/) calls where the target has no instruction with the same result.
 * One C11 source, compiled by clang-19 to bitcode for amdgcn-amd-amdhsa (generic, no -mcpu) and for
 * the host; the translator links the bitcode, internalises it and runs O2, so every flag argument,
 * a compile-time constant at the call site, folds away.
 * PTX ISA: https://docs.nvidia.com/cuda/parallel-thread-execution/
 *
 * Conventions
 *   int mode   0 rn (nearest even), 1 rz, 2 rm (toward -inf), 3 rp (toward +inf), 4 rna (nearest,
 *              ties away). For float -> integral float (cvt.rXi) the same numbers
 *              mean rni, rzi, rmi, rpi.
 *   int ftz    1: subnormal f32 (f16 for the f16 ops) inputs and results become zero of the same
 *              sign. A result is flushed when it is subnormal after rounding.
 *   int sat    1: the float result is clamped to [+0.0, 1.0]; NaN and -0.0 become +0.0.
 *   int relu   1: a negative result (and -0.0) becomes +0.0; NaN stays the canonical NaN.
 *   int satfinite 1: a result beyond the largest finite value (infinities included) becomes the
 *              largest finite value of that sign; NaN stays NaN.
 *   f16, bf16, e4m3, e5m2 values travel as their bits (uint16_t, or uint8_t pairs in a uint16_t).
 *   NaN rules (measured on an H200; evidence in compiler/translate/lowering_support.hpp): f32, f16,
 *   bf16, e4m3, e5m2 results are canonical (f32 0x7fffffff, f16/bf16 0x7fff, e4m3/e5m2 0x7f).
 *   f64 arithmetic returns the first NaN operand (a, b, c order) quieted, or 0xfff8000000000000
 *   for a NaN made from non-NaN operands; f64 min/max of two NaNs returns a quieted. cvt between
 *   f32 and f64, f64 -> f16 and cvt.rXi.f64 keep sign and payload (quieted; cvt.ftz.f64.f32 widens
 *   the canonical f32 NaN).
 *   Rounding is exact in every mode without touching the FP environment: the library assumes the
 *   default environment (round to nearest, subnormals kept) for f32 and f64.
 *
 * The approximate instructions (*_approx_*, tanh, ex2, lg2, sin, cos) are accurate to about 1 ulp
 * of f32, well inside PTX's stated bounds; f32 results are compared with a tolerance (the half
 * forms of tanh follow the H200 bit for bit: approx.c).
 */
#ifndef D4R_PTX_SUPPORT_H
#define D4R_PTX_SUPPORT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- rounding.c: f32 / f64 / f16 / bf16 arithmetic with a rounding mode ---- */
float __d4r_ptx_add_f32(float a, float b, int mode, int ftz, int sat);
float __d4r_ptx_sub_f32(float a, float b, int mode, int ftz, int sat);
float __d4r_ptx_mul_f32(float a, float b, int mode, int ftz, int sat);
float __d4r_ptx_fma_f32(float a, float b, float c, int mode, int ftz, int sat);
float __d4r_ptx_div_f32(float a, float b, int mode, int ftz);
float __d4r_ptx_sqrt_f32(float a, int mode, int ftz);
float __d4r_ptx_rcp_f32(float a, int mode, int ftz);
double __d4r_ptx_add_f64(double a, double b, int mode);
double __d4r_ptx_sub_f64(double a, double b, int mode);
double __d4r_ptx_mul_f64(double a, double b, int mode);
double __d4r_ptx_fma_f64(double a, double b, double c, int mode);
double __d4r_ptx_div_f64(double a, double b, int mode);
double __d4r_ptx_sqrt_f64(double a, int mode);
double __d4r_ptx_rcp_f64(double a, int mode);
float __d4r_ptx_ftz_f32(float x);
float __d4r_ptx_sat_f32(float x);
double __d4r_ptx_sat_f64(double x);
/* min/max: PTX min_num/min_nan semantics, -0.0 < +0.0; nan = the .NaN modifier. */
float __d4r_ptx_min_f32(float a, float b, int ftz, int nan);
float __d4r_ptx_max_f32(float a, float b, int ftz, int nan);
double __d4r_ptx_min_f64(double a, double b);
double __d4r_ptx_max_f64(double a, double b);
/* .f16 and .bf16 arithmetic (add/sub/mul/fma{.rnd}{.ftz}{.sat}); bf16 has no ftz in PTX (pass 0). */
uint16_t __d4r_ptx_add_f16(uint16_t a, uint16_t b, int mode, int ftz, int sat);
uint16_t __d4r_ptx_sub_f16(uint16_t a, uint16_t b, int mode, int ftz, int sat);
uint16_t __d4r_ptx_mul_f16(uint16_t a, uint16_t b, int mode, int ftz, int sat);
uint16_t __d4r_ptx_fma_f16(uint16_t a, uint16_t b, uint16_t c, int mode, int ftz, int sat);
uint16_t __d4r_ptx_add_bf16(uint16_t a, uint16_t b, int mode);
uint16_t __d4r_ptx_sub_bf16(uint16_t a, uint16_t b, int mode);
uint16_t __d4r_ptx_mul_bf16(uint16_t a, uint16_t b, int mode);
uint16_t __d4r_ptx_fma_bf16(uint16_t a, uint16_t b, uint16_t c, int mode, int relu);

/* ---- convert.c: cvt ---- */
/* float <-> float */
float __d4r_ptx_cvt_f32_f64(double x, int mode, int ftz, int sat);
double __d4r_ptx_cvt_f64_f32(float x, int ftz, int sat);
uint16_t __d4r_ptx_cvt_f16_f32(float x, int mode, int ftz, int sat);
uint16_t __d4r_ptx_cvt_f16_f32_ex(float x, int mode, int ftz, int sat, int relu, int satfinite);
uint16_t __d4r_ptx_cvt_f16_f64(double x, int mode, int sat);
float __d4r_ptx_cvt_f32_f16(uint16_t h, int ftz, int sat);
double __d4r_ptx_cvt_f64_f16(uint16_t h, int sat);
uint16_t __d4r_ptx_cvt_bf16_f32(float x, int mode, int sat);
uint16_t __d4r_ptx_cvt_bf16_f32_ex(float x, int mode, int sat, int relu, int satfinite);
uint16_t __d4r_ptx_cvt_bf16_f64(double x, int mode);
uint16_t __d4r_ptx_cvt_bf16_f64_ex(double x, int mode); /* NaN: sign and payload kept */
uint16_t __d4r_ptx_cvt_bf16_f16(uint16_t h, int mode);
uint16_t __d4r_ptx_cvt_f16_bf16(uint16_t h, int mode);
float __d4r_ptx_cvt_f32_bf16(uint16_t h);                    /* bit copy: NaN payloads kept */
float __d4r_ptx_cvt_f32_bf16_ex(uint16_t h, int ftz, int sat);
double __d4r_ptx_cvt_f64_bf16(uint16_t h);
/* cvt.rXi.fT.fT: round to an integral value in the same format (mode: 0 rni, 1 rzi, 2 rmi, 3 rpi) */
double __d4r_ptx_cvt_rint_f64(double x, int mode);
uint16_t __d4r_ptx_cvt_rint_f16(uint16_t h, int mode);
uint16_t __d4r_ptx_cvt_rint_bf16(uint16_t h, int mode);
/* int -> float (exact rounding in every mode; 8/16-bit sources widen to the 32-bit functions) */
float __d4r_ptx_cvt_f32_s64(int64_t x, int mode);
float __d4r_ptx_cvt_f32_u64(uint64_t x, int mode);
float __d4r_ptx_cvt_f32_s32(int32_t x, int mode);
float __d4r_ptx_cvt_f32_u32(uint32_t x, int mode);
double __d4r_ptx_cvt_f64_s64(int64_t x, int mode);
double __d4r_ptx_cvt_f64_u64(uint64_t x, int mode);
uint16_t __d4r_ptx_cvt_f16_s64(int64_t x, int mode);
uint16_t __d4r_ptx_cvt_f16_u64(uint64_t x, int mode);
uint16_t __d4r_ptx_cvt_f16_s32(int32_t x, int mode);
uint16_t __d4r_ptx_cvt_f16_u32(uint32_t x, int mode);
uint16_t __d4r_ptx_cvt_bf16_s64(int64_t x, int mode);
uint16_t __d4r_ptx_cvt_bf16_u64(uint64_t x, int mode);

/* ---- fp8.c: e4m3 (no infinity, NaN S.1111.111, max 448) and e5m2 (IEEE-like) ---- */
/* decode: the byte in a[15:8] goes to d[31:16], a[7:0] to d[15:0]; exact. */
uint32_t __d4r_ptx_cvt_f16x2_e4m3x2(uint16_t pair, int relu);
uint32_t __d4r_ptx_cvt_f16x2_e5m2x2(uint16_t pair, int relu);
/* encode (rn): cvt.rn.satfinite{.relu}.e4m3x2.f32 d, a, b puts a in d[15:8], b in d[7:0]. */
uint16_t __d4r_ptx_cvt_e4m3x2_f32(float hi, float lo, int satfinite, int relu);
uint16_t __d4r_ptx_cvt_e5m2x2_f32(float hi, float lo, int satfinite, int relu);
uint16_t __d4r_ptx_cvt_e4m3x2_f16x2(uint32_t f16x2, int satfinite, int relu);
uint16_t __d4r_ptx_cvt_e5m2x2_f16x2(uint32_t f16x2, int satfinite, int relu);
/* one value each way (the pair functions are built from these) */
uint16_t __d4r_ptx_cvt_f16_e4m3(uint8_t v);
uint16_t __d4r_ptx_cvt_f16_e5m2(uint8_t v);
uint8_t __d4r_ptx_cvt_e4m3_f32(float x, int satfinite, int relu);
uint8_t __d4r_ptx_cvt_e5m2_f32(float x, int satfinite, int relu);

/* ---- warp.c ---- */
/* shfl.sync source lane (PTX ISA pseudo-code): mode 0 idx, 1 up, 2 down, 3 bfly; b the lane or
 * offset, c the packed clamp (c[4:0]) and segment mask (c[12:8]). Returns the lane to read;
 * *in_range receives pval (1 when that lane is the computed j, 0 when the thread reads itself). */
uint32_t __d4r_ptx_shfl_source(uint32_t lane, uint32_t mode, uint32_t b, uint32_t c, uint32_t* in_range);

/* ---- approx.c: the .approx instructions, accurate (compare with tolerance) ---- */
float __d4r_ptx_ex2_approx_f32(float x, int ftz);
float __d4r_ptx_lg2_approx_f32(float x, int ftz);
float __d4r_ptx_sin_approx_f32(float x, int ftz);
float __d4r_ptx_cos_approx_f32(float x, int ftz);
float __d4r_ptx_rsqrt_approx_f32(float x, int ftz);
float __d4r_ptx_sqrt_approx_f32(float x, int ftz);
float __d4r_ptx_rcp_approx_f32(float x, int ftz);
float __d4r_ptx_tanh_approx_f32(float x);
float __d4r_ptx_div_approx_f32(float a, float b, int ftz); /* div.approx: 0 for 2^126<|b|<2^128 */
float __d4r_ptx_div_full_f32(float a, float b, int ftz);
double __d4r_ptx_rsqrt_approx_f64(double x);
double __d4r_ptx_rsqrt_approx_ftz_f64(double x);         /* rsqrt.approx.ftz.f64: 1.11.20 format */
double __d4r_ptx_rcp_approx_ftz_f64(double x);           /* rcp.approx.ftz.f64: 1.11.20 format */
uint16_t __d4r_ptx_ex2_approx_f16(uint16_t h);
uint16_t __d4r_ptx_ex2_approx_ftz_bf16(uint16_t h);
uint16_t __d4r_ptx_tanh_approx_f16(uint16_t h);
uint16_t __d4r_ptx_tanh_approx_bf16(uint16_t h);

/* ---- minmax.c: half min/max (.ftz .NaN .xorsign.abs), f32 .xorsign.abs; cvt to .tf32 ---- */
uint16_t __d4r_ptx_minmax_f16(uint16_t a, uint16_t b, int is_max, int ftz, int nan, int xorsign);
uint16_t __d4r_ptx_minmax_bf16(uint16_t a, uint16_t b, int is_max, int nan, int xorsign);
float __d4r_ptx_minmax_xorsign_f32(float a, float b, int is_max, int ftz, int nan);
uint32_t __d4r_ptx_cvt_tf32_f32(float x, int mode, int relu, int satfinite); /* f32 layout */

/* ---- tensor_copy.c, tensor_copy_im2col.c: cp.async.bulk.tensor and cp.reduce.async.bulk.tensor
 * over our tensor-map layout (compiler/translate/tensor_map_layout.hpp): the bytes done, or -1
 * where the H200 stops such a copy (the caller traps) ---- */
int32_t __d4r_ptx_tensor_load(uint8_t* shared, uint32_t window, const uint8_t* map, int32_t rank,
                              int32_t c0, int32_t c1, int32_t c2, int32_t c3, int32_t c4);
int32_t __d4r_ptx_tensor_store(const uint8_t* shared, uint32_t window, const uint8_t* map,
                               int32_t rank, int32_t c0, int32_t c1, int32_t c2, int32_t c3,
                               int32_t c4);
int32_t __d4r_ptx_tensor_reduce(const uint8_t* shared, uint32_t window, const uint8_t* map,
                                int32_t rank, int32_t op, int32_t c0, int32_t c1, int32_t c2,
                                int32_t c3, int32_t c4);
int32_t __d4r_ptx_tensor_load_im2col(uint8_t* shared, uint32_t window, const uint8_t* map,
                                     int32_t rank, int32_t c0, int32_t c1, int32_t c2, int32_t c3,
                                     int32_t c4, int32_t o1, int32_t o2, int32_t o3);
int32_t __d4r_ptx_tensor_store_im2col(const uint8_t* shared, uint32_t window, const uint8_t* map,
                                      int32_t rank, int32_t c0, int32_t c1, int32_t c2,
                                      int32_t c3, int32_t c4);
int32_t __d4r_ptx_tensor_reduce_im2col(const uint8_t* shared, uint32_t window, const uint8_t* map,
                                       int32_t rank, int32_t op, int32_t c0, int32_t c1,
                                       int32_t c2, int32_t c3, int32_t c4);

#ifdef __cplusplus
}
#endif

#endif /* D4R_PTX_SUPPORT_H */
