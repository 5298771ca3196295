#pragma once
/* The tensor map (CUtensorMap) as this project lays it out: 128 bytes, 64-byte aligned, that the
 * host writes and the translated cp.async.bulk.tensor / cp.reduce.async.bulk.tensor /
 * tensormap.replace read and write. NVIDIA's layout is opaque (the driver's
 * cuTensorMapEncodeTiled/Im2col fill it and PTX reads it through the TMA unit), so a translated
 * kernel cannot read a map the NVIDIA driver made: the client (ZLUDA's cuTensorMapEncodeTiled and
 * cuTensorMapEncodeIm2col, cuTensorMapReplaceAddress) writes THIS layout instead, from the same
 * arguments, and passes it where the program passes the map (a `.param .align 64 .b8 [128]`
 * kernel parameter, or 128 bytes in global or constant memory). compiler/translate/COVERAGE.md
 * ("Tensor maps") says which forms read it.
 *
 * Written in the common subset of C and C++: kernels/support/tensor_copy.c (the support library
 * that does the copies) includes this header too, so both sides read one definition.
 *
 *   offset size  field                what it holds
 *        0    8  global_address       the tensor's first element (a global/generic address),
 *                                     16-byte aligned (32 with interleave 32B)
 *        8   32  global_stride[4]     bytes between consecutive indices of dimensions 1..4
 *                                     (cuTensorMapEncode's globalStrides[0..rank-2]; dimension 0
 *                                     is dense: the element size); multiples of 16, < 2^40
 *       40   20  global_dim[5]        elements per dimension (1 .. 2^32 - 1; dims >= rank: 1)
 *       60    4  magic                D4R_TENSOR_MAP_MAGIC: a map this layout wrote (a kernel
 *                                     given anything else traps instead of reading garbage)
 *       64   20  box_dim[5]           the box: elements per dimension, 1..256 (boxDim)
 *       84   20  element_stride[5]    traversal stride per dimension, 1..8 (elementStrides): the
 *                                     box holds ceil(box_dim / element_stride) elements along it
 *      104    1  rank                 1..5
 *      105    1  element_type         D4R_TMAP_* below: PTX's tensormap.replace numbering, NOT
 *                                     CUtensorMapDataType's (the client converts)
 *      106    1  interleave           0 none, 1 16B, 2 32B (tensormap.replace numbering)
 *      107    1  swizzle              0 none, 1 32B, 2 64B, 3 128B (likewise)
 *      108    1  l2_promotion         0 none, 1 64B, 2 128B, 3 256B (a cache hint, never read)
 *      109    1  fill                 0 zeros, 1 NaN (CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
 *      110    1  swizzle_atomicity    as tensormap.replace writes it (sm_100 maps; kept, unread)
 *      111    1  mode                 0 tile (cuTensorMapEncodeTiled), 1 im2col
 *      112    6  lower_corner[3]      im2col: pixelBoxLowerCorner (s16; spatial dims 1..rank-2)
 *      118    6  upper_corner[3]      im2col: pixelBoxUpperCorner (s16)
 *      124    2  channels_per_pixel   im2col
 *      126    2  pixels_per_column    im2col
 *
 * Little-endian. Every field is naturally aligned, so tensormap.replace's .b32/.b64 values are
 * plain stores; the u8 fields take the low byte of a .b32 value.
 */

#include <stdint.h>

#define D4R_TENSOR_MAP_BYTES 128
#define D4R_TENSOR_MAP_ALIGN 64
#define D4R_TENSOR_MAP_MAGIC 0x314d5444u /* "DTM1" */
/* A code object translated from a kernel that reads or writes maps in this layout exports a u32
 * symbol of this name holding D4R_TENSOR_MAP_MAGIC (lower_tensor_copy.cpp writes it, launch_meta.cpp
 * reads it): the daemon serves such an object only to a client that sets
 * D4RK_FLAG_WRITES_D4R_TENSOR_MAPS (client/d4r_kernel_client.h), since given NVIDIA's map it traps. */
#define D4R_TENSOR_MAP_SYMBOL "d4r_tensor_maps"

#define D4R_TMAP_OFF_GLOBAL_ADDRESS 0
#define D4R_TMAP_OFF_GLOBAL_STRIDE 8
#define D4R_TMAP_OFF_GLOBAL_DIM 40
#define D4R_TMAP_OFF_MAGIC 60
#define D4R_TMAP_OFF_BOX_DIM 64
#define D4R_TMAP_OFF_ELEMENT_STRIDE 84
#define D4R_TMAP_OFF_RANK 104
#define D4R_TMAP_OFF_ELEMENT_TYPE 105
#define D4R_TMAP_OFF_INTERLEAVE 106
#define D4R_TMAP_OFF_SWIZZLE 107
#define D4R_TMAP_OFF_L2_PROMOTION 108
#define D4R_TMAP_OFF_FILL 109
#define D4R_TMAP_OFF_SWIZZLE_ATOMICITY 110
#define D4R_TMAP_OFF_MODE 111
#define D4R_TMAP_OFF_LOWER_CORNER 112
#define D4R_TMAP_OFF_UPPER_CORNER 118
#define D4R_TMAP_OFF_CHANNELS_PER_PIXEL 124
#define D4R_TMAP_OFF_PIXELS_PER_COLUMN 126

/* Element types: the numbers tensormap.replace.elemtype writes (PTX ISA, "Tensormap element
 * type"). */
#define D4R_TMAP_U8 0
#define D4R_TMAP_U16 1
#define D4R_TMAP_U32 2
#define D4R_TMAP_S32 3
#define D4R_TMAP_U64 4
#define D4R_TMAP_S64 5
#define D4R_TMAP_F16 6
#define D4R_TMAP_F32 7
#define D4R_TMAP_F32_FTZ 8
#define D4R_TMAP_F64 9
#define D4R_TMAP_BF16 10
#define D4R_TMAP_TF32 11
#define D4R_TMAP_TF32_FTZ 12

#define D4R_TMAP_SWIZZLE_NONE 0
#define D4R_TMAP_SWIZZLE_32B 1
#define D4R_TMAP_SWIZZLE_64B 2
#define D4R_TMAP_SWIZZLE_128B 3

#define D4R_TMAP_FILL_ZERO 0
#define D4R_TMAP_FILL_NAN 1

#define D4R_TMAP_MODE_TILE 0
#define D4R_TMAP_MODE_IM2COL 1

struct d4r_tensor_map {
  uint64_t global_address;
  uint64_t global_stride[4];
  uint32_t global_dim[5];
  uint32_t magic;
  uint32_t box_dim[5];
  uint32_t element_stride[5];
  uint8_t rank;
  uint8_t element_type;
  uint8_t interleave;
  uint8_t swizzle;
  uint8_t l2_promotion;
  uint8_t fill;
  uint8_t swizzle_atomicity;
  uint8_t mode;
  int16_t lower_corner[3];
  int16_t upper_corner[3];
  uint16_t channels_per_pixel;
  uint16_t pixels_per_column;
};

#ifdef __cplusplus
#include <cstddef>

static_assert(sizeof(d4r_tensor_map) == D4R_TENSOR_MAP_BYTES, "the layout is 128 bytes");
static_assert(offsetof(d4r_tensor_map, global_stride) == D4R_TMAP_OFF_GLOBAL_STRIDE);
static_assert(offsetof(d4r_tensor_map, global_dim) == D4R_TMAP_OFF_GLOBAL_DIM);
static_assert(offsetof(d4r_tensor_map, magic) == D4R_TMAP_OFF_MAGIC);
static_assert(offsetof(d4r_tensor_map, box_dim) == D4R_TMAP_OFF_BOX_DIM);
static_assert(offsetof(d4r_tensor_map, element_stride) == D4R_TMAP_OFF_ELEMENT_STRIDE);
static_assert(offsetof(d4r_tensor_map, rank) == D4R_TMAP_OFF_RANK);
static_assert(offsetof(d4r_tensor_map, mode) == D4R_TMAP_OFF_MODE);
static_assert(offsetof(d4r_tensor_map, lower_corner) == D4R_TMAP_OFF_LOWER_CORNER);
static_assert(offsetof(d4r_tensor_map, pixels_per_column) == D4R_TMAP_OFF_PIXELS_PER_COLUMN);
#endif
