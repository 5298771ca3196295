/* tensor_copy_im2col.c: the im2col tensor copies of sm_90 (cp.async.bulk.tensor .im2col loads,
 * .im2col_no_offs stores and cp.reduce.async.bulk.tensor reductions) over the tensor map as this
 * project lays it out (compiler/translate/tensor_map_layout.hpp, mode 1; lower_tensor_copy.cpp
 * calls these).
 *
 * The map is a tensor of rank r = 3..5: dimension 0 the channels (C), 1..r-2 the spatial ones (W,
 * H, D) and r-1 the images (N). An instruction gives the coordinates {c, w, (h, (d,)) n} and, for a
 * load, one 16-bit offset per spatial dimension (unsigned). It moves pixels_per_column pixels, each
 * channels_per_pixel elements of the channels c, c + 1, ... of one pixel (a row in shared memory,
 * dense, pixel after pixel). The pixels are those the traversal visits, starting at the
 * coordinates given: along each spatial dimension s the bounding box is [lower[s], dim[s] - 1 +
 * upper[s]] (the map's pixel-box corners, relative to the tensor's first and last index); the
 * traversal steps W by element_stride[1], and past the box's end goes back to its start along
 * that dimension and one step further along the next (W, then H, then D, then N). A pixel reads
 * its element at the traversal position plus the instruction's offsets; any index outside the
 * tensor (a spatial one, an image past the last, a channel past C) is out of bounds, filled as a
 * tile load fills it (or skipped by a store and a reduction). The byte count is the whole box's.
 *
 * Each pixel is one tile box of channels_per_pixel x 1 x .. elements: the copy is the tile copy
 * (tensor_copy.c) of each pixel's row at the row's own shared address, so the swizzle, the fill
 * and the reductions are the tile forms' exactly; as there, a swizzled row narrower than the
 * swizzle's span takes the whole span (the pitch from row to row), the byte count does not.
 *
 * An interleaved map (16B or 32B) is walked otherwise (driver 580; the tma_im2col_interleave_*
 * cases, found with diagnostics whose tensor held each element's own index): a pixel is one chunk
 * of the interleave's size, whatever channels_per_pixel says, and the traversal runs over
 * dimensions 0 .. rank - 3, the chunk index (dimension 0, counted in chunks as in a tile copy)
 * first: along each, the box [lower[s], dim[s] - 1 + upper[s]] with corner s, element stride s
 * and offset s of the instruction belong to dimension s, one lower than without interleave.
 * Dimension rank - 2 stays at its coordinate (never traversed; out of range it is filled, not
 * stopped), and past the last traversed dimension's end the image advances. The byte count is a
 * chunk per pixel; the swizzle moves 16-byte chunks by address (im2col_interleaved_copy).
 *
 * Every function returns the box's bytes, or -1 for what the translated kernel must trap on
 * rather than guess: a map it cannot use (not our layout, not im2col, a rank other than the
 * instruction's or outside 3..5, no pixels or channels), what the tile copy of a row traps on,
 * and the boxes that stop the H200 with an illegal instruction (im2col_copy lists them). The
 * offsets are applied as the H200 applies them (im2col_offsets). Every rule here was checked on
 * the tma_im2col_* golden cases.
 * https://docs.nvidia.com/cuda/parallel-thread-execution/#tensor-im2col-mode
 */
#include "d4r_ptx_internal.h"

#include "../../compiler/translate/tensor_map_layout.hpp"

enum { KIND_LOAD, KIND_STORE, KIND_REDUCE };

/* Bytes of one element of the map's type (0: a type the tile copy rejects too). */
D4R_INLINE int32_t im2col_element_bytes(uint32_t type)
{
  switch (type) {
  case D4R_TMAP_U8:
    return 1;
  case D4R_TMAP_U16:
  case D4R_TMAP_F16:
  case D4R_TMAP_BF16:
    return 2;
  case D4R_TMAP_U64:
  case D4R_TMAP_S64:
  case D4R_TMAP_F64:
    return 8;
  default:
    return type <= D4R_TMAP_TF32_FTZ ? 4 : 0;
  }
}

/* The offsets as the H200 (driver 580's JIT) applies them: fields of 16 bits in 3D, 8 bits in
 * 4D (256 acts as 0: tma_im2col_4d_off256), and 5 bits packed W + (H << 5) + (D << 10) in 5D,
 * so a W offset of 32 moves H by one (tma_im2col_5d_off32). */
D4R_INLINE void im2col_offsets(int32_t rank, const int32_t* offsets, int32_t o[3])
{
  o[0] = offsets[0] & 0xffff;
  o[1] = 0;
  o[2] = 0;
  if (rank == 4) {
    o[0] = offsets[0] & 0xff;
    o[1] = offsets[1] & 0xff;
  } else if (rank == 5) {
    const uint32_t packed = (uint32_t)offsets[0] + ((uint32_t)offsets[1] << 5) + ((uint32_t)offsets[2] << 10);
    o[0] = (int32_t)(packed & 31);
    o[1] = (int32_t)((packed >> 5) & 31);
    o[2] = (int32_t)((packed >> 10) & 31);
  }
}

/* One 16-byte chunk through the tile copy (tensor_copy.c) of `tile`, a 16B-interleaved map whose
 * box is that one chunk: 16, or -1 where the tile copy traps. */
D4R_INLINE int32_t im2col_chunk(int kind, uint8_t* shared, uint32_t window,
                                const struct d4r_tensor_map* tile, int32_t rank, int32_t op,
                                const int32_t* c)
{
  const uint8_t* bytes = (const uint8_t*)tile;
  switch (kind) {
  case KIND_LOAD:
    return __d4r_ptx_tensor_load(shared, window, bytes, rank, c[0], c[1], c[2], c[3], c[4]);
  case KIND_STORE:
    return __d4r_ptx_tensor_store(shared, window, bytes, rank, c[0], c[1], c[2], c[3], c[4]);
  default:
    return __d4r_ptx_tensor_reduce(shared, window, bytes, rank, op, c[0], c[1], c[2], c[3], c[4]);
  }
}

/* The im2col box over an interleaved `map` (see the top): pixel after pixel, one chunk each. A
 * 32-byte chunk q is moved as the 16-byte chunks 2q and 2q + 1 of a 16B map twice as wide, so
 * that the swizzle can move its halves apart by address as it does in tile mode. */
D4R_INLINE int32_t im2col_interleaved_copy(int kind, uint8_t* shared, uint32_t window,
                                           const struct d4r_tensor_map* map, int32_t rank,
                                           int32_t op, const int32_t* coords,
                                           const int32_t* offsets)
{
  if (map->interleave > 2 || map->swizzle > 3) {
    return -1;
  }
  const int32_t halves = map->interleave == 2 ? 2 : 1;
  const int32_t unit = 16 * halves;
  struct d4r_tensor_map tile = *map;
  tile.mode = D4R_TMAP_MODE_TILE;
  tile.interleave = 1;
  tile.swizzle = D4R_TMAP_SWIZZLE_NONE;
  tile.global_dim[0] = map->global_dim[0] * (uint32_t)halves;
  for (int i = 0; i < 5; ++i) {
    tile.box_dim[i] = 1;
    tile.element_stride[i] = 1;
  }
  const int walked = rank - 2; /* dimensions 0 .. rank - 3 */
  int64_t low[3] = {0, 0, 0};
  int64_t high[3] = {0, 0, 0};
  int64_t step[3] = {1, 1, 1};
  int64_t at[4] = {0, 0, 0, 0}; /* the traversed dimensions, then n */
  for (int s = 0; s < walked; ++s) {
    low[s] = map->lower_corner[s];
    high[s] = (int64_t)map->global_dim[s] - 1 + map->upper_corner[s];
    step[s] = map->element_stride[s] > 0 ? map->element_stride[s] : 1;
    at[s] = coords[s];
    /* A start outside the box stops the H200 (tma_im2col_interleave_trap_*), as without
     * interleave; stores and reductions are held to what the non-interleaved forms take. */
    if (at[s] < low[s] || at[s] > high[s] ||
        (kind != KIND_LOAD && (map->lower_corner[s] < 0 || map->upper_corner[s] > 0))) {
      return -1;
    }
  }
  at[walked] = coords[rank - 1];
  if (kind != KIND_LOAD) {
    for (int i = 0; i < rank; ++i) {
      if (coords[i] < 0) {
        return -1;
      }
    }
  }
  int32_t o[3];
  im2col_offsets(rank, offsets, o);
  for (uint32_t k = 0; k < map->pixels_per_column; ++k) {
    int32_t c[5] = {0, 0, 0, 0, 0};
    for (int s = 0; s < walked; ++s) {
      c[s] = (int32_t)(at[s] + o[s]);
    }
    c[rank - 2] = coords[rank - 2];
    c[rank - 1] = (int32_t)at[walked];
    const int32_t chunk = c[0];
    for (int32_t h = 0; h < halves; ++h) {
      c[0] = chunk * halves + h;
      const uint32_t linear = k * (uint32_t)unit + (uint32_t)h * 16;
      const uint32_t offset = d4r_tmap_swizzled(window, linear, map->swizzle) - window;
      if (im2col_chunk(kind, shared + offset, window + offset, &tile, rank, op, c) != 16) {
        return -1;
      }
    }
    for (int s = 0; s < walked; ++s) {
      at[s] += step[s];
      if (at[s] <= high[s]) {
        break;
      }
      at[s] = low[s];
      if (s == walked - 1) {
        at[walked] += 1;
      }
    }
  }
  return (int32_t)map->pixels_per_column * unit;
}

/* The im2col box over `map`, one tile copy per pixel. */
D4R_INLINE int32_t im2col_copy(int kind, uint8_t* shared, uint32_t window, const uint8_t* bytes,
                               int32_t rank, int32_t op, const int32_t* coords,
                               const int32_t* offsets)
{
  const struct d4r_tensor_map* map = (const struct d4r_tensor_map*)bytes;
  if (map->magic != D4R_TENSOR_MAP_MAGIC || map->mode != D4R_TMAP_MODE_IM2COL ||
      map->rank != rank || rank < 3 || rank > 5 || map->channels_per_pixel == 0 ||
      map->pixels_per_column == 0) {
    return -1;
  }
  if (map->interleave != 0) {
    return im2col_interleaved_copy(kind, shared, window, map, rank, op, coords, offsets);
  }
  /* The pixel's tile map: the same tensor, a box of one pixel's channels. */
  struct d4r_tensor_map tile = *map;
  tile.mode = D4R_TMAP_MODE_TILE;
  for (int i = 0; i < 5; ++i) {
    tile.box_dim[i] = 1;
  }
  tile.box_dim[0] = map->channels_per_pixel;
  const int spatial = rank - 2;
  int64_t low[3] = {0, 0, 0};
  int64_t high[3] = {0, 0, 0};
  int64_t step[4] = {1, 1, 1, 1};
  int64_t at[4] = {0, 0, 0, 0}; /* the traversal position: spatial dims, then n */
  for (int s = 0; s < spatial; ++s) {
    low[s] = map->lower_corner[s];
    high[s] = (int64_t)map->global_dim[s + 1] - 1 + map->upper_corner[s];
    step[s] = map->element_stride[s + 1] > 0 ? map->element_stride[s + 1] : 1;
    at[s] = coords[s + 1];
  }
  at[spatial] = coords[rank - 1];
  /* What stops the H200 (an illegal instruction), each seen in recorded cases: a box starting
   * outside its bounding box along a spatial dimension (tma_im2col_3d_start_{past,below}_*; an
   * image past the last is fine: tma_im2col_3d_start_n_past), and a store or reduction over a
   * bounding box that leaves the tensor, a negative lower corner or a positive upper one
   * (tma_im2col_store_3d_f32_lowneg, _wrapneg, _store_3d_upper_pos: every pixel inside), or at a
   * negative coordinate. Offsets are not limited (up to 0x8000: tma_im2col_*_off*). */
  for (int s = 0; s < spatial; ++s) {
    if (at[s] < low[s] || at[s] > high[s] ||
        (kind != KIND_LOAD && (map->lower_corner[s] < 0 || map->upper_corner[s] > 0))) {
      return -1;
    }
  }
  if (kind != KIND_LOAD) {
    for (int i = 0; i < rank; ++i) {
      if (coords[i] < 0) {
        return -1;
      }
    }
  }
  const int32_t row = (int32_t)map->channels_per_pixel * im2col_element_bytes(map->element_type);
  /* A swizzled row takes the swizzle's whole span, as in tile mode (tensor_copy.c); a wider one
   * the tile copy refuses. */
  const int32_t pitch = map->swizzle == D4R_TMAP_SWIZZLE_NONE ? row : (int32_t)16 << map->swizzle;
  if (row == 0 || row > pitch) {
    return -1;
  }
  int32_t o[3];
  im2col_offsets(rank, offsets, o);
  int32_t total = 0;
  for (uint32_t k = 0; k < map->pixels_per_column; ++k) {
    int32_t c[5] = {coords[0], 0, 0, 0, 0};
    for (int s = 0; s < spatial; ++s) {
      c[s + 1] = (int32_t)(at[s] + o[s]);
    }
    c[rank - 1] = (int32_t)at[spatial];
    int32_t bytes_done = 0;
    const uint32_t shift = k * (uint32_t)pitch;
    int negative = 0;
    for (int i = 1; i < rank; ++i) {
      negative |= c[i] < 0;
    }
    switch (negative && kind != KIND_LOAD ? -1 : kind) {
    case -1: /* out of bounds: nothing written */
      bytes_done = row;
      break;
    case KIND_LOAD:
      bytes_done = __d4r_ptx_tensor_load(shared + shift, window + shift, (const uint8_t*)&tile,
                                         rank, c[0], c[1], c[2], c[3], c[4]);
      break;
    case KIND_STORE:
      bytes_done = __d4r_ptx_tensor_store(shared + shift, window + shift, (const uint8_t*)&tile,
                                          rank, c[0], c[1], c[2], c[3], c[4]);
      break;
    default:
      bytes_done = __d4r_ptx_tensor_reduce(shared + shift, window + shift, (const uint8_t*)&tile,
                                           rank, op, c[0], c[1], c[2], c[3], c[4]);
      break;
    }
    if (bytes_done != row) {
      return -1;
    }
    total += bytes_done;
    /* The next pixel: W first; past the box's end, its start and one step along the next. */
    for (int s = 0; s < spatial; ++s) {
      at[s] += step[s];
      if (at[s] <= high[s]) {
        break;
      }
      at[s] = low[s];
      if (s == spatial - 1) {
        at[spatial] += 1;
      }
    }
  }
  return total;
}

D4R_API int32_t __d4r_ptx_tensor_load_im2col(uint8_t* shared, uint32_t window, const uint8_t* map,
                                             int32_t rank, int32_t c0, int32_t c1, int32_t c2,
                                             int32_t c3, int32_t c4, int32_t o1, int32_t o2,
                                             int32_t o3)
{
  const int32_t coords[5] = {c0, c1, c2, c3, c4};
  const int32_t offsets[3] = {o1, o2, o3};
  return im2col_copy(KIND_LOAD, shared, window, map, rank, 0, coords, offsets);
}

D4R_API int32_t __d4r_ptx_tensor_store_im2col(const uint8_t* shared, uint32_t window,
                                              const uint8_t* map, int32_t rank, int32_t c0,
                                              int32_t c1, int32_t c2, int32_t c3, int32_t c4)
{
  const int32_t coords[5] = {c0, c1, c2, c3, c4};
  const int32_t offsets[3] = {0, 0, 0};
  return im2col_copy(KIND_STORE, (uint8_t*)shared, window, map, rank, 0, coords, offsets);
}

D4R_API int32_t __d4r_ptx_tensor_reduce_im2col(const uint8_t* shared, uint32_t window,
                                               const uint8_t* map, int32_t rank, int32_t op,
                                               int32_t c0, int32_t c1, int32_t c2, int32_t c3,
                                               int32_t c4)
{
  const int32_t coords[5] = {c0, c1, c2, c3, c4};
  const int32_t offsets[3] = {0, 0, 0};
  return im2col_copy(KIND_REDUCE, (uint8_t*)shared, window, map, rank, op, coords, offsets);
}
