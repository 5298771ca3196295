#pragma once
// The contract between host IR made by the translator (TargetKind::host) and the CPU executor's
// SIMT runtime (compiler/cpu/). Both sides include this header; nothing else couples them.
//
// Every PTX thread runs as one fiber. A host kernel is
//     void NAME(const uint8_t* params, d4r_host_thread* thread)
// where `params` is the entry's .param block (layout of translator.hpp's KernelParam offsets).
// Every .func gets `d4r_host_thread*` as an extra last argument. Global and generic addresses are
// host addresses; a .shared address is an offset into `thread->shared` (32-bit, as in PTX);
// .local variables are allocas. Special registers are loads from this struct.
//
// Collective operations call the runtime. `site` is a number unique per instruction of the module
// (the translator numbers them): threads of a warp meet only with threads waiting at the same site,
// which is how the runtime knows which threads run convergently. The runtime never returns from a
// collective until every thread it waits for has arrived or exited; a group that can never
// complete is reported as a deadlock error of the launch, never a hang.

#include <cstdint>

extern "C" {

struct d4r_host_thread {
  uint32_t tid[3];
  uint32_t ntid[3];
  uint32_t ctaid[3];
  uint32_t nctaid[3];
  uint32_t laneid;
  uint32_t warpid;      // linear thread index / 32
  uint32_t nwarpid;     // warps per block
  uint32_t lanemask_eq; // 1 << laneid
  uint8_t* shared;      // this block's .shared window: static variables, then the dynamic array
  uint32_t shared_bytes;
  uint32_t reserved;
  void* runtime;        // the runtime's own state (opaque to IR)
};

// Named barriers 0-15 (another id traps). A barrier completes its phase when `count` threads
// (0: every live thread of the block) have arrived, counting bar.sync waiters and bar.arrive
// callers, in the order they arrive; then its waiters are released and the next phase starts.
//
// bar.sync / barrier.sync: arrive and wait for the phase to complete.
void d4r_rt_barrier(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id, uint32_t count);
// bar.red / barrier.red: like d4r_rt_barrier; returns how many waiters of the completed phase
// passed a nonzero `predicate` (.popc; .and and .or are derived from it by the translator).
uint32_t d4r_rt_barrier_reduce(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id,
                               uint32_t count, uint32_t predicate);
// bar.arrive / barrier.arrive: counts toward the phase without waiting for it.
void d4r_rt_barrier_arrive(d4r_host_thread* thread, uint32_t site, uint32_t barrier_id,
                           uint32_t count);
// A spin wait that found nothing (mbarrier.test_wait / try_wait false): lets every other runnable
// thread of the block run once before returning, so that the threads a spinning thread waits for
// can make progress. `observed` is what the wait saw (the barrier word); when every live thread
// keeps spinning on unchanged words and nothing else happens for many rounds, the launch fails
// with a deadlock error instead of hanging.
void d4r_rt_yield(d4r_host_thread* thread, uint32_t site, uint64_t observed);

// isspacep.local: 1 when `address` lies in the calling thread's fiber stack (its .local variables
// and alloca), else 0.
uint32_t d4r_rt_is_local(d4r_host_thread* thread, uint64_t address);

// The value of `value` in lane `source_lane` of the calling thread's convergent group at `site`
// (shfl.sync: the translator computes source_lane with PTX's clamp/segment rules).
// `member_mask` lists the lanes that must arrive; the source lane's value when it is not in the
// group is the caller's own value (PTX leaves it undefined; this choice is documented).
uint32_t d4r_rt_warp_exchange(d4r_host_thread* thread, uint32_t site, uint32_t member_mask,
                              uint32_t value, uint32_t source_lane);

// The ballot (bit per lane) of `predicate` over the group at `site`. member_mask 0 means
// "whoever of the warp is converged here" (activemask, vote without .sync).
uint32_t d4r_rt_warp_ballot(d4r_host_thread* thread, uint32_t site, uint32_t member_mask,
                            uint32_t predicate);

// bar.warp.sync: a rendezvous of `member_mask` at `site`.
void d4r_rt_warp_sync(d4r_host_thread* thread, uint32_t site, uint32_t member_mask);

// All `words` 32-bit words of every lane of the group at `site`: out[lane * words + i].
// For mma.sync's portable lowering (each lane needs others' fragments).
void d4r_rt_warp_gather(d4r_host_thread* thread, uint32_t site, uint32_t member_mask,
                        const uint32_t* mine, uint32_t words, uint32_t* out);

// Images. A .u64 texture or surface handle on the host is the address of a d4r_host_image.
struct d4r_host_image {
  uint8_t* data;
  uint32_t width;       // texels
  uint32_t height;
  uint32_t pitch;       // bytes per row
  uint32_t format;      // d4r_host_image_format
  uint32_t channels;    // 1, 2 or 4
  uint32_t filter;      // 0 point, 1 linear
  uint32_t address;     // 0 clamp, 1 wrap, 2 mirror, 3 border
  uint32_t normalized;  // 1: coordinates in [0, 1)
  uint32_t layers;      // 0: not layered; N: N layers (1D, 2D) or N cubes (cube), one after another
  uint32_t depth;       // a 3D image's slices of height rows (0 otherwise)
  uint32_t shape;       // d4r_host_image_shape
};
// A 1D image has height 1; a cube has six square faces (+x, -x, +y, -y, +z, -z) of height rows
// each, per cube; a buffer is a 1D texture over linear memory (tex1Dfetch: no filtering, no
// address modes, a texel past the end reads 0).
enum d4r_host_image_shape : uint32_t {
  d4r_shape_2d = 0,
  d4r_shape_1d = 1,
  d4r_shape_3d = 2,
  d4r_shape_cube = 3,
  d4r_shape_buffer = 4,
};
enum d4r_host_image_format : uint32_t {
  d4r_image_u8 = 0,    // 8-bit: textures read it normalised (float in [0, 1]); sust.p stores the
                       // unsigned integer (a CUDA UNSIGNED_INT8 array): u32 bits clamped to 255
  d4r_image_f16 = 1,
  d4r_image_f32 = 2,
  d4r_image_u32 = 3,   // raw 32-bit (surfaces)
};
// tex.2d.v4.f32.f32: NVIDIA's filtering (weights quantised to 1/256; the exact arithmetic is in
// cpu/host_images.cpp) on the host.
void d4r_rt_tex_2d_f32(d4r_host_thread* thread, uint64_t handle, float x, float y, float* out4);
// tex.a2d.v4.f32.f32: layer `layer` of a layered texture (unsigned, clamped to the last layer, as
// NVIDIA does), filtered as tex.2d.
void d4r_rt_tex_a2d_f32(d4r_host_thread* thread, uint64_t handle, int32_t layer, float x, float y,
                        float* out4);
// tex.{2d,a2d}.v4.{u32,s32}.f32: the texel's channels as integers, point-sampled (a texture read as
// integers: u8 channels zero-extended, u32 as they are; f16 and f32 channels give their bits);
// channels the format lacks read 0. `layer` is 0 for tex.2d.
void d4r_rt_tex_int(d4r_host_thread* thread, uint64_t handle, int32_t layer, float x, float y,
                    uint32_t* out4);
// sust.b.2d: `bytes` bytes at byte column x, row y; mode 0 .zero (out of range: dropped),
// 1 .clamp, 2 .trap (out of range: the launch fails with an error).
void d4r_rt_sust_b_2d(d4r_host_thread* thread, uint64_t handle, int32_t x_bytes, int32_t y,
                      const void* data, uint32_t bytes, uint32_t mode);
// sust.p.2d (formatted): x in elements; four 32-bit components converted to the image format.
void d4r_rt_sust_p_2d(d4r_host_thread* thread, uint64_t handle, int32_t x, int32_t y,
                      const uint32_t* data4, uint32_t mode);
// suld.b.2d: like sust.b; out-of-range .zero reads give zeros.
void d4r_rt_suld_b_2d(d4r_host_thread* thread, uint64_t handle, int32_t x_bytes, int32_t y,
                      void* data, uint32_t bytes, uint32_t mode);
// The geometry an image instruction names (tex, tld4, suld, sust, sured).
enum d4r_host_geometry : uint32_t {
  d4r_geom_1d = 0,
  d4r_geom_2d = 1,
  d4r_geom_3d = 2,
  d4r_geom_a1d = 3,
  d4r_geom_a2d = 4,
  d4r_geom_cube = 5,
  d4r_geom_acube = 6,
};
enum d4r_host_tex_flags : uint32_t {
  d4r_tex_integer_coords = 1, // .s32 coordinates: texel indices
  d4r_tex_integer_result = 2, // .u32/.s32 results: the texel's integers
  d4r_tex_half_result = 4,    // .v2.f16x2 results: the four channels as halves in out4[0..1]
};
// One tex or tld4 (cpu/host_images.cpp has the rules, fitted to the H200 goldens img_tex_*).
// A host image has one mip level, so .level's lod and .grad's gradients select it whatever they
// are (as on the H200 for a CUDA array, which has no mip levels: img_tex_level_grad).
struct d4r_host_tex_request {
  uint32_t geometry;   // d4r_host_geometry
  uint32_t flags;      // d4r_host_tex_flags
  int32_t layer;       // a1d, a2d, acube: the layer (cube) index
  int32_t gather;      // tld4: the channel (0 r .. 3 a); -1 for tex
  uint32_t coords[3];  // x, y, z: f32 bits, or s32 with d4r_tex_integer_coords
  int32_t offsets[3];  // texel offsets (0 without)
};
// tex / tld4: four 32-bit words (f32 bits, integers, or two f16x2 words and two zeros).
void d4r_rt_tex(d4r_host_thread* thread, uint64_t handle, const d4r_host_tex_request* request,
                uint32_t* out4);
// txq / suq: one attribute (d4r_host_image_query) of the image (the channel format and order are
// not asked for: the translator rejects those queries).
enum d4r_host_image_query : uint32_t {
  d4r_query_width = 0,
  d4r_query_height = 1,
  d4r_query_depth = 2,
  d4r_query_channel_data_type = 3,
  d4r_query_channel_order = 4,
  d4r_query_normalized_coords = 5,
  d4r_query_filter_mode = 6,
  d4r_query_addr_mode_0 = 7,
  d4r_query_addr_mode_1 = 8,
  d4r_query_addr_mode_2 = 9,
  d4r_query_array_size = 10,
  d4r_query_num_mipmap_levels = 11,
  d4r_query_num_samples = 12,
  d4r_query_memory_layout = 13,
};
uint32_t d4r_rt_image_query(d4r_host_thread* thread, uint64_t handle, uint32_t query,
                            uint32_t surface);
// suld.b / sust.b / sust.p on any geometry (cpu/host_surfaces.cpp): x in bytes (.b) or texels
// (.p), y the row (0 for 1d, a1d), `slice` the 3D slice or the layer (0 otherwise); modes as for
// d4r_rt_sust_b_2d.
void d4r_rt_suld_b(d4r_host_thread* thread, uint64_t handle, int32_t x_bytes, int32_t y,
                   int32_t slice, void* data, uint32_t bytes, uint32_t mode);
void d4r_rt_sust_b(d4r_host_thread* thread, uint64_t handle, int32_t x_bytes, int32_t y,
                   int32_t slice, const void* data, uint32_t bytes, uint32_t mode);
void d4r_rt_sust_p(d4r_host_thread* thread, uint64_t handle, int32_t x, int32_t y, int32_t slice,
                   const uint32_t* data4, uint32_t mode);
// sured: an atomic read-modify-write of the 32- or 64-bit texel word at (x, y, slice), x in bytes
// (.b) or texels (`formatted`, .p); `op` d4r_host_sured_op, `type` its operand type.
enum d4r_host_sured_op : uint32_t {
  d4r_sured_add = 0,
  d4r_sured_min = 1,
  d4r_sured_max = 2,
  d4r_sured_and = 3,
  d4r_sured_or = 4,
};
enum d4r_host_sured_type : uint32_t {
  d4r_sured_u32 = 0,
  d4r_sured_s32 = 1,
  d4r_sured_u64 = 2,
  d4r_sured_s64 = 3,
};
void d4r_rt_sured(d4r_host_thread* thread, uint64_t handle, uint32_t op, uint32_t type,
                  uint32_t formatted, int32_t x, int32_t y, int32_t slice, uint64_t value,
                  uint32_t mode);
// trap / brkpt / an out-of-range .trap access: the launch fails; never returns.
void d4r_rt_trap(d4r_host_thread* thread, uint32_t site);

} // extern "C"
