#pragma once
// One program under construction: the register pools (every value a register holds was traced to
// a slot), the body text, and the operation families (ptxgen_ops_*.cpp) that append to it.

#include "tests/random/ptxgen_internal.hpp"

#include <string>
#include <vector>

namespace d4r::ptxgen {

struct Reg {
  std::string name;
  int slot = -1;  // the slot holding its value
};

// An operand: a register (slot >= 0) or an immediate (slot -1).
struct Src {
  std::string text;
  int slot = -1;
};

class Builder {
public:
  Builder(uint64_t seed, Program& program) : m_rng(seed), m_program(program) {}
  void build(const Options& options);

private:
  Rng m_rng;
  Program& m_program;
  std::string m_body;
  std::vector<Reg> m_pool16, m_pool32, m_pool64, m_poolp;
  int m_labels = 0;
  int m_count16 = 0, m_count32 = 0, m_count64 = 0, m_countp = 0;
  bool m_in_branch = false; // not every thread runs this code: no warp operations, no barriers
  bool m_in_loop = false;
  int m_version = k_generator_version; // Options::version
  std::vector<int> m_control;          // Slot::control of the code being written
  // Version 3 (ptxgen_ops_tensor.cpp, ptxgen_ops_async.cpp).
  int m_threads = k_threads;
  bool m_cluster = false;            // `.reqnctapercluster 1, 1, 1`: st.async and red.async allowed
  std::vector<uint64_t> m_block;     // the block's input words (after the threads' words)
  std::string m_shared;              // extra .shared declarations
  int m_barriers = 0;                // mbarriers declared (one per region: each waits on phase 0)
  int m_wgmma_family = -1;           // the type family of the image material (-1: no image yet)
  int64_t m_image_words = -1;        // where the image material starts in m_block (u64 words)
  int64_t m_meta_words = -1;         // where the sparsity metadata starts in m_block
  int m_staging = 0;                 // bulk-copy staging buffers declared
  bool m_smat = false;               // stmatrix's buffer declared
  int m_regions3 = 0;                // version 3 regions written (wgmma, bulk, async)
  int m_wgmma_regions = 0, m_async_regions = 0;

  // Registers and operands.
  std::vector<Reg>& pool(int bits);
  std::string fresh(int bits);
  Src reg(int bits, char kind = 0); // kind: 'i' integer, 'f' float, 0 any
  Src pred();
  Src int_src(int bits);      // register or integer immediate
  Src small_src(int limit);   // a 32-bit register or an immediate in [0, limit)
  Src f32_src();
  Src f64_src();
  std::string negated(const Src& p);
  // Emits `line` (which writes `dest`), guarded when the caller allows it, and traces dest.
  void traced(const std::string& line, const std::string& dest, int bits, SlotType type,
              std::vector<Src> sources, bool guardable = true);
  void trace_store(const std::string& dest, int bits, SlotType type);
  int add_slot(const std::string& text, SlotType type, const std::vector<Src>& sources);
  // A slot of a result that reads other threads' values (Slot::cross): dest is stored and pooled.
  void traced_cross(const std::string& text, const std::string& dest, int bits, SlotType type,
                    const std::vector<Src>& sources);
  void emit(const std::string& line) { m_body += "  " + line + "\n"; }

  // Program parts.
  void prologue(int64_t slots);
  void one_op();
  void branch_region(int ops);
  void loop_region(int ops);
  void shared_exchange();
  void partial_warp_region();
  void barrier_reduction();

  // Operation families (ptxgen_ops_int.cpp, ptxgen_ops_float.cpp, ptxgen_ops_misc.cpp).
  void op_int_arith();
  void op_int_mul();
  void op_int_div();
  void op_int_minmax();
  void op_int_logic();
  void op_int_shift();
  void op_int_bitfield();
  void op_int_bitcount();
  void op_int_perm();
  void op_int_dot();
  void op_carry_chain();
  void op_float_arith();
  void op_float_special();
  void op_half_arith();
  void op_testp();
  void op_setp();
  void op_set();
  void op_selp();
  void op_pred_logic();
  void op_cvt_int();
  void op_cvt_float_int();
  void op_cvt_int_float();
  void op_cvt_float();
  void op_cvt_half();
  void op_cvt_fp8();
  void op_mov_pack();
  void op_load();
  void op_special_reg();
  void shared_reduction();
  void op_shfl();
  void op_vote();

  // Version 3 (ptxgen_ops_mma.cpp, ptxgen_ops_tensor.cpp, ptxgen_ops_async.cpp, ptxgen_ops_more.cpp).
  void op_mma();
  void op_fp8_chain();
  void op_int_more();
  void op_half_minmax();
  void op_warp_more();
  void wgmma_region();
  void op_video();
  void matrix_region();
  void cp_async_region();
  void fill_image();
  Src image_value(); // a traced load of an image word (after the image is written)
  void bulk_load_region();
  void bulk_store_region();
  void async_store_region();
  std::string new_barrier();              // declares an mbarrier, returns its name
  void barrier_wait(const std::string& barrier); // every thread waits for phase 0, traced
  int64_t block_words(int64_t words);     // reserves zeroed block words; their byte offset from %ib
  std::vector<Src> fragment(int count, char kind); // `count` 32-bit registers of the pools

  std::string declarations() const;
  friend Program generate(uint64_t seed, const Options& options);
};

// Spelling helpers.
[[nodiscard]] std::string hex(uint64_t value);
[[nodiscard]] std::string dec(int64_t value);
[[nodiscard]] SlotType bits_type(int bits);

} // namespace d4r::ptxgen
