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
// trap / brkpt / an out-of-range .trap access: the launch fails; never returns.
void d4r_rt_trap(d4r_host_thread* thread, uint32_t site);

} // extern "C"
