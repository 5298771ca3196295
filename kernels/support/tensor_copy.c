/* tensor_copy.c: the tile-mode tensor copies of sm_90 (cp.async.bulk.tensor between global and
 * shared memory, cp.reduce.async.bulk.tensor into global memory) over the tensor map as this
 * project lays it out (compiler/translate/tensor_map_layout.hpp; lower_tensor_copy.cpp calls
 * these). Each call moves one whole box at once, which is one of the orders the ISA allows for an
 * asynchronous copy; the translator then does the barrier's complete-tx of the returned bytes.
 *
 * The box: along dimension i it starts at coordinate c[i] and holds n[i] = ceil(box_dim[i] /
 * element_stride[i]) elements, the k-th at index c[i] + k * element_stride[i] of the tensor;
 * without interleave the TMA has no stride along dimension 0 (cuTensorMapEncodeTiled ignores
 * elementStrides[0]: tma_load_2d_estride_cols), so there n[0] = box_dim[0], stride 1. In shared
 * memory dimension 0 is fastest; a row (the n[0] elements of one index of the other dimensions)
 * takes n[0] * element size bytes without a swizzle and the swizzle's whole span (32, 64 or 128
 * bytes) with one, however few bytes it holds (the H200 leaves the rest alone:
 * tma_load_2d_swizzle128_narrow, tma_load_2d_sw*_rows*). With a swizzle mode the 16-byte chunk of
 * byte address A moves to the chunk A[4..] xor A[7..] over 1 (32B), 2 (64B) or 3 (128B) bits:
 * bits 4-6 of the shared-window address take bits 7-9 into account, so the pattern repeats every
 * 256, 512 or 1024 bytes of the window (the CUTLASS Swizzle<B,4,3> functors; CUDA Programming
 * Guide, "TMA Swizzle"). An element with any index outside [0, global_dim[i]) is out of bounds: a
 * load fills it (zeros, or a NaN for the fill mode NaN on float types), a store or a reduction
 * skips it. The byte count of a load is the box's elements times their size, out-of-bounds
 * elements included (not the padded rows).
 *
 * An interleaved map (16B or 32B: NC/8HWC8-like layouts, rank 3-5) is copied as the H200 copies it
 * (driver 580; the tma_interleave_* cases, found with diagnostics whose tensor held each element's
 * own index): a box position along dimension 0 is a whole chunk of the interleave's size, whatever
 * the element type: index c[0] + k * element_stride[0] (the stride counts here) for k below
 * ceil(box_dim[0] / element_stride[0]), at byte (index * 16 or 32) from the row's start, in bounds
 * while index < global_dim[0]; so a row of box_dim[0] chunks runs on through the memory of the
 * following indices of dimension 1 and beyond, unchecked. Along dimension rank - 2 the box holds
 * only its start c[rank - 2] (box_dim and element_stride ignored there), checked like any index;
 * the other dimensions are traversed as in tile mode. A chunk out of bounds is filled (loads) or
 * skipped (stores, reductions), the byte count is every chunk's, the swizzle moves 16-byte
 * chunks by address as above with rows at their own width (a row narrower than the span was never
 * measured: it traps).
 *
 * Every function returns the box's bytes, or -1 for what the translated kernel must trap on
 * rather than guess: a map it cannot use (not our layout, a rank other than the instruction's,
 * im2col, an unknown element type, a non-interleaved swizzled row wider than the span, which
 * cuTensorMapEncodeTiled refuses, a reduction the element type does not have), and what stops
 * the H200 with an illegal instruction: a box whose innermost coordinate is not a multiple of 16
 * bytes (tma_trap_*_unaligned; Triton's Gluon TMA tutorial states the rule too), and a store or
 * reduction box with a negative coordinate in any dimension, partly or wholly outside
 * (tma_trap_{store,reduce}_*_negative; past the high end they write what lies inside).
 * https://docs.nvidia.com/cuda/parallel-thread-execution/#tensor-copy-instructions
 */
#include "d4r_ptx_internal.h"

#include "../../compiler/translate/tensor_map_layout.hpp"

/* The box of one instruction, read from the map once. */
typedef struct {
  uint8_t* global;
  int64_t start[5];
  int64_t dim[5];
  int64_t step[5];     /* element stride */
  int64_t count[5];    /* elements in the shared box */
  int64_t stride[5];   /* bytes; stride[0] is the unit's size */
  int64_t row;         /* bytes from one shared row (dimension 0) to the next */
  int64_t reach0;      /* indices along dimension 0 that are written or read: dim[0], or for a
                          store or reduction up to the end of the last 16-byte chunk */
  uint32_t swizzle;
  uint32_t type;
  uint32_t fill;
  int64_t size;        /* element bytes */
  int64_t unit;        /* bytes a box position moves: the element, or with interleave its chunk */
  int64_t elements;    /* box positions */
} Box;

D4R_INLINE int64_t element_bytes(uint32_t type)
{
  switch (type) {
  case D4R_TMAP_U8:
    return 1;
  case D4R_TMAP_U16:
  case D4R_TMAP_F16:
  case D4R_TMAP_BF16:
    return 2;
  case D4R_TMAP_U32:
  case D4R_TMAP_S32:
  case D4R_TMAP_F32:
  case D4R_TMAP_F32_FTZ:
  case D4R_TMAP_TF32:
  case D4R_TMAP_TF32_FTZ:
    return 4;
  case D4R_TMAP_U64:
  case D4R_TMAP_S64:
  case D4R_TMAP_F64:
    return 8;
  default:
    return 0;
  }
}

/* 0 when the map cannot be used or the box would stop the H200 (see the top). */
D4R_INLINE int read_box(Box* box, const uint8_t* bytes, int32_t rank, const int32_t* coords)
{
  const struct d4r_tensor_map* map = (const struct d4r_tensor_map*)bytes;
  if (map->magic != D4R_TENSOR_MAP_MAGIC || map->rank != rank || rank < 1 || rank > 5 ||
      map->mode != D4R_TMAP_MODE_TILE || map->interleave > 2 || map->swizzle > 3) {
    return 0;
  }
  box->size = element_bytes(map->element_type);
  if (box->size == 0) {
    return 0;
  }
  const int interleaved = map->interleave != 0;
  box->unit = interleaved ? (int64_t)16 << (map->interleave - 1) : box->size;
  if (interleaved && rank < 3) {
    return 0; /* cuTensorMapEncodeTiled refuses it */
  }
  box->global = (uint8_t*)(uintptr_t)map->global_address;
  box->swizzle = map->swizzle;
  box->type = map->element_type;
  box->fill = map->fill;
  box->elements = 1;
  for (int i = 0; i < 5; ++i) {
    const int used = i < rank;
    box->start[i] = used ? coords[i] : 0;
    box->dim[i] = used ? (int64_t)map->global_dim[i] : 1;
    box->step[i] = used ? (int64_t)map->element_stride[i] : 1;
    int64_t extent = used ? (int64_t)map->box_dim[i] : 1;
    if (box->step[i] < 1 || extent < 1) {
      return 0;
    }
    if (i == 0 && !interleaved) {
      box->step[0] = 1; /* no traversal stride along dimension 0 without interleave */
    }
    if (interleaved && i == rank - 2) {
      extent = 1; /* the H200 takes only the start along dimension rank - 2 (see the top) */
    }
    box->count[i] = (extent + box->step[i] - 1) / box->step[i];
    box->stride[i] = i == 0 ? box->unit : (used ? (int64_t)map->global_stride[i - 1] : 0);
    box->elements *= box->count[i];
  }
  box->reach0 = box->dim[0];
  box->row = box->count[0] * box->unit;
  if (box->swizzle != D4R_TMAP_SWIZZLE_NONE) {
    const int64_t span = (int64_t)16 << box->swizzle; /* 32, 64, 128 */
    if (interleaved) {
      /* interleaved rows wider than the span are swizzled by address alone (tma_interleave_*);
         narrower ones were never measured */
      if (box->row % span != 0) {
        return 0;
      }
    } else if (box->row > span) {
      return 0;
    } else {
      box->row = span;
    }
  }
  return (box->start[0] * box->unit) % 16 == 0;
}

/* A store or reduction writes whole 16-byte chunks along dimension 0: when a row's bytes are not a
 * multiple of 16, the elements past the tensor in its last chunk (the row's padding up to the
 * stride) are written too, the last row's as well (tma_diag_chunk_store, tma_diag_chunk_reduce;
 * Triton issue 11583 says the same of stores): up to 15 bytes past the tensor, which the golden
 * format's buffers hold (launch_case.cpp). A load fills those elements like any outside the
 * tensor (tma_diag_chunk_load). */
D4R_INLINE void write_whole_chunks(Box* box)
{
  box->reach0 = (box->dim[0] * box->unit + 15) / 16 * 16 / box->unit;
}

/* Whether a store or reduction box starts at a negative coordinate: the H200 stops such a box
 * (loads take them, filling what lies outside). */
D4R_INLINE int starts_below(const Box* box)
{
  for (int i = 0; i < 5; ++i) {
    if (box->start[i] < 0) {
      return 1;
    }
  }
  return 0;
}

/* The shared byte offset from `window` of the box's byte `linear`, swizzled: per element, since a
 * 32-byte interleave chunk's two 16-byte halves move apart. */
D4R_INLINE uint32_t shared_offset(const Box* box, uint32_t window, int64_t linear)
{
  return d4r_tmap_swizzled(window, (uint32_t)linear, box->swizzle) - window;
}

/* Position e of the box (dimension 0 fastest): its unswizzled shared byte offset and its global
 * address, or null when it lies outside the tensor (for a store or reduction: outside its rows
 * rounded up to 16 bytes). */
D4R_INLINE uint8_t* element_at(const Box* box, int64_t e, int64_t* linear)
{
  *linear = e / box->count[0] * box->row + e % box->count[0] * box->unit;
  int64_t offset = 0;
  int inside = 1;
  for (int i = 0; i < 5; ++i) {
    const int64_t k = e % box->count[i];
    e /= box->count[i];
    const int64_t index = box->start[i] + k * box->step[i];
    inside &= index >= 0 && index < (i == 0 ? box->reach0 : box->dim[i]);
    offset += index * box->stride[i];
  }
  return inside ? box->global + offset : (uint8_t*)0;
}

/* The NaN fill: the H200 writes 0x7ff77ff7 into f32 elements (tma_replace), the 16-bit "OOB NaN"
 * 0x7ff7 of fma.oob repeated, so every float width gets that pattern (f16 and bf16 0x7ff7, f64
 * 0x7ff77ff77ff77ff7, all NaNs); integer types take zeros. */
D4R_INLINE uint64_t fill_bits(const Box* box)
{
  if (box->fill != D4R_TMAP_FILL_NAN) {
    return 0;
  }
  switch (box->type) {
  case D4R_TMAP_F16:
  case D4R_TMAP_BF16:
  case D4R_TMAP_F32:
  case D4R_TMAP_F32_FTZ:
  case D4R_TMAP_TF32:
  case D4R_TMAP_TF32_FTZ:
  case D4R_TMAP_F64:
    return 0x7ff77ff77ff77ff7ull;
  default:
    return 0;
  }
}

D4R_INLINE uint64_t load_bits(const uint8_t* p, int64_t size)
{
  switch (size) {
  case 1:
    return *p;
  case 2:
    return *(const uint16_t*)p;
  case 4:
    return *(const uint32_t*)p;
  default:
    return *(const uint64_t*)p;
  }
}

D4R_INLINE void store_bits(uint8_t* p, int64_t size, uint64_t bits)
{
  switch (size) {
  case 1:
    *p = (uint8_t)bits;
    break;
  case 2:
    *(uint16_t*)p = (uint16_t)bits;
    break;
  case 4:
    *(uint32_t*)p = (uint32_t)bits;
    break;
  default:
    *(uint64_t*)p = bits;
    break;
  }
}

D4R_API int32_t __d4r_ptx_tensor_load(uint8_t* shared, uint32_t window, const uint8_t* map,
                                      int32_t rank, int32_t c0, int32_t c1, int32_t c2, int32_t c3,
                                      int32_t c4)
{
  const int32_t coords[5] = {c0, c1, c2, c3, c4};
  Box box;
  if (!read_box(&box, map, rank, coords)) {
    return -1;
  }
  const uint64_t fill = fill_bits(&box);
  for (int64_t e = 0; e < box.elements; ++e) {
    int64_t linear = 0;
    const uint8_t* source = element_at(&box, e, &linear);
    for (int64_t k = 0; k < box.unit; k += box.size) {
      const uint32_t offset = shared_offset(&box, window, linear + k);
      store_bits(shared + offset, box.size, source ? load_bits(source + k, box.size) : fill);
    }
  }
  return (int32_t)(box.elements * box.unit);
}

D4R_API int32_t __d4r_ptx_tensor_store(const uint8_t* shared, uint32_t window, const uint8_t* map,
                                       int32_t rank, int32_t c0, int32_t c1, int32_t c2, int32_t c3,
                                       int32_t c4)
{
  const int32_t coords[5] = {c0, c1, c2, c3, c4};
  Box box;
  if (!read_box(&box, map, rank, coords) || starts_below(&box)) {
    return -1;
  }
  write_whole_chunks(&box);
  for (int64_t e = 0; e < box.elements; ++e) {
    int64_t linear = 0;
    uint8_t* target = element_at(&box, e, &linear);
    for (int64_t k = 0; target && k < box.unit; k += box.size) {
      const uint32_t offset = shared_offset(&box, window, linear + k);
      store_bits(target + k, box.size, load_bits(shared + offset, box.size));
    }
  }
  return (int32_t)(box.elements * box.unit);
}

enum { OP_ADD, OP_MIN, OP_MAX, OP_INC, OP_DEC, OP_AND, OP_OR, OP_XOR };

/* The new value of one element: `old` combined with `value`; 0 in *ok for a combination the
 * element type does not have (what the H200 recorded: add on u32 s32 u64 f32 f64 f16 bf16, min/max
 * on u32 s32 u64 s64 f16 bf16, inc/dec on u32, and/or/xor on u32 s32 u64; tma_diag_r_*,
 * tma_trap_reduce_2d_*). Integer min/max compare as the type's signedness. */
D4R_INLINE uint64_t combine(uint32_t type, int32_t op, uint64_t old, uint64_t value, int* ok)
{
  const int wide = type == D4R_TMAP_U64 || type == D4R_TMAP_S64;
  const int is_signed = type == D4R_TMAP_S32 || type == D4R_TMAP_S64;
  const int integer = wide || type == D4R_TMAP_U32 || type == D4R_TMAP_S32;
  const uint64_t mask = wide ? ~0ull : 0xffffffffull;
  if (integer && (op == OP_MIN || op == OP_MAX)) {
    const int64_t a = wide ? (int64_t)old : is_signed ? (int64_t)(int32_t)old : (int64_t)old;
    const int64_t b = wide ? (int64_t)value : is_signed ? (int64_t)(int32_t)value : (int64_t)value;
    const int less = (wide && !is_signed) ? old < value : a < b;
    return (op == OP_MIN) == less ? old : value & mask;
  }
  /* and/or/xor on an s64 map stop the H200 (tma_trap_reduce_2d_s64_*), on u64 they do not */
  if (integer && op >= OP_AND && type != D4R_TMAP_S64) {
    return op == OP_AND ? old & value : op == OP_OR ? old | value : old ^ value;
  }
  if (integer && op == OP_ADD && type != D4R_TMAP_S64) {
    return (old + value) & mask;
  }
  if (type == D4R_TMAP_U32 && op == OP_INC) {
    return old >= value ? 0 : old + 1;
  }
  if (type == D4R_TMAP_U32 && op == OP_DEC) {
    return (old == 0 || old > value) ? value : old - 1;
  }
  if (type == D4R_TMAP_F32 && op == OP_ADD) { /* subnormals kept, canonical NaN */
    union { uint32_t u; float f; } x = {(uint32_t)old}, y = {(uint32_t)value};
    x.f = __d4r_ptx_add_f32(x.f, y.f, D4R_RN, 0, 0);
    return x.u;
  }
  if (type == D4R_TMAP_F64 && op == OP_ADD) {
    union { uint64_t u; double f; } x = {old}, y = {value};
    x.f = __d4r_ptx_add_f64(x.f, y.f, D4R_RN);
    return x.u;
  }
  if ((type == D4R_TMAP_F16 || type == D4R_TMAP_BF16) && op <= OP_MAX) {
    const int bf16 = type == D4R_TMAP_BF16;
    if (op == OP_ADD) {
      return bf16 ? __d4r_ptx_add_bf16((uint16_t)old, (uint16_t)value, D4R_RN)
                  : __d4r_ptx_add_f16((uint16_t)old, (uint16_t)value, D4R_RN, 0, 0);
    }
    return bf16 ? __d4r_ptx_minmax_bf16((uint16_t)old, (uint16_t)value, op == OP_MAX, 0, 0)
                : __d4r_ptx_minmax_f16((uint16_t)old, (uint16_t)value, op == OP_MAX, 0, 0, 0);
  }
  *ok = 0;
  return old;
}

/* One element's atomic read-modify-write (a compare-and-swap loop at the element's width). */
D4R_INLINE void reduce_element(uint8_t* target, int64_t size, uint32_t type, int32_t op,
                               uint64_t value)
{
  int ok = 1;
  if (size == 2) {
    uint16_t* p = (uint16_t*)target;
    uint16_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, (uint16_t)combine(type, op, old, value, &ok), 1,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
  } else if (size == 4) {
    uint32_t* p = (uint32_t*)target;
    uint32_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, (uint32_t)combine(type, op, old, value, &ok), 1,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
  } else {
    uint64_t* p = (uint64_t*)target;
    uint64_t old = __atomic_load_n(p, __ATOMIC_RELAXED);
    while (!__atomic_compare_exchange_n(p, &old, combine(type, op, old, value, &ok), 1,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
    }
  }
}

D4R_API int32_t __d4r_ptx_tensor_reduce(const uint8_t* shared, uint32_t window, const uint8_t* map,
                                        int32_t rank, int32_t op, int32_t c0, int32_t c1,
                                        int32_t c2, int32_t c3, int32_t c4)
{
  const int32_t coords[5] = {c0, c1, c2, c3, c4};
  Box box;
  if (!read_box(&box, map, rank, coords) || starts_below(&box) || box.size == 1) {
    return -1;
  }
  int ok = 1;
  (void)combine(box.type, op, 0, 0, &ok);
  if (!ok) {
    return -1; /* checked before any element changes */
  }
  write_whole_chunks(&box);
  for (int64_t e = 0; e < box.elements; ++e) {
    int64_t linear = 0;
    uint8_t* target = element_at(&box, e, &linear);
    for (int64_t k = 0; target && k < box.unit; k += box.size) {
      const uint32_t offset = shared_offset(&box, window, linear + k);
      reduce_element(target + k, box.size, box.type, op, load_bits(shared + offset, box.size));
    }
  }
  return (int32_t)(box.elements * box.unit);
}
