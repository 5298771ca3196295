// Version 3's video instructions (scalar vadd ... vshr with operand selects, .sat, secondary
// operations and merges; SIMD vadd2 ... vset4 with selects and .add), ldmatrix / stmatrix /
// movmatrix, and cp.async (non-bulk) with commit/wait groups.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#video-instructions
// https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-ldmatrix
//
// Well-defined: ldmatrix reads rows of `smem` that every thread wrote before a bar.sync;
// stmatrix writes a region of its own warp (`smat`), read back after a bar.sync; cp.async copies
// a thread's own input bytes to its own 16 staging bytes, read after wait_group and a bar.sync.

#include "tests/random/ptxgen_builder.hpp"

namespace d4r::ptxgen {

void Builder::op_video()
{
  static const char* const k_selects[] = {"", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"};
  const char* dtype = m_rng.chance(1, 2) ? ".u32" : ".s32";
  const char* atype = m_rng.chance(1, 2) ? ".u32" : ".s32";
  const char* btype = m_rng.chance(1, 2) ? ".u32" : ".s32";
  const Src a = reg(32, 'i'), b = reg(32, 'i');
  const std::string d = fresh(32);
  const size_t form = m_rng.below(9);
  auto sel = [&]() { return std::string(k_selects[m_rng.below(std::size(k_selects))]); };
  if (form <= 4) {
    static const char* const k_ops[] = {"vadd", "vsub", "vabsdiff", "vmin", "vmax"};
    std::string line = std::string(k_ops[form]) + dtype + atype + btype;
    const std::string sat = m_rng.chance(1, 3) ? ".sat" : "";
    const size_t shape = m_rng.below(3); // plain, secondary op with c, merge into d.dsel with c
    const std::string asel = sel(), bsel = sel();
    if (shape == 0) {
      traced(line + sat + " " + d + ", " + a.text + asel + ", " + b.text + bsel + ";", d, 32, SlotType::b32, {a, b});
      return;
    }
    const Src c = reg(32, 'i');
    if (shape == 1) {
      static const char* const k_second[] = {".add", ".min", ".max"};
      traced(line + sat + k_second[m_rng.below(3)] + " " + d + ", " + a.text + asel + ", " + b.text + bsel + ", " + c.text +
                 ";",
             d, 32, SlotType::b32, {a, b, c});
      return;
    }
    static const char* const k_dsel[] = {".b0", ".b1", ".b2", ".b3", ".h0", ".h1"};
    // The merge: d is c with the selected field replaced.
    traced(line + sat + " " + d + k_dsel[m_rng.below(6)] + ", " + a.text + asel + ", " + b.text + bsel + ", " + c.text + ";",
           d, 32, SlotType::b32, {a, b, c});
    return;
  }
  if (form == 5) {
    const std::string line = std::string(m_rng.chance(1, 2) ? "vshl" : "vshr") + dtype + atype + ".u32" +
                             (m_rng.chance(1, 3) ? ".sat" : "") + (m_rng.chance(1, 2) ? ".clamp" : ".wrap");
    traced(line + " " + d + ", " + a.text + sel() + ", " + b.text + sel() + ";", d, 32, SlotType::b32, {a, b});
    return;
  }
  // SIMD: two halves or four bytes, with c (added with .add, else merged by the mask).
  const bool quad = form == 8 || m_rng.chance(1, 2);
  static const char* const k_ops2[] = {"vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2"};
  static const char* const k_ops4[] = {"vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4"};
  static const char* const k_sel2[] = {"", ".h10", ".h01", ".h00", ".h11"};
  static const char* const k_sel4[] = {"", ".b3210", ".b0123", ".b1032", ".b7654", ".b0000"};
  static const char* const k_mask2[] = {"", ".h0", ".h1", ".h10"};
  static const char* const k_mask4[] = {"", ".b0", ".b31", ".b210", ".b3210"};
  const Src c = reg(32, 'i');
  const std::string op = quad ? k_ops4[m_rng.below(6)] : k_ops2[m_rng.below(6)];
  const std::string asel = quad ? k_sel4[m_rng.below(6)] : k_sel2[m_rng.below(5)];
  const std::string bsel = quad ? k_sel4[m_rng.below(6)] : k_sel2[m_rng.below(5)];
  const bool add = m_rng.chance(1, 3);
  const std::string mask = add ? "" : quad ? k_mask4[m_rng.below(5)] : k_mask2[m_rng.below(4)];
  std::string mods = add ? ".add" : m_rng.chance(1, 3) && op.find("avrg") == std::string::npos ? ".sat" : "";
  if (op.find("avrg") != std::string::npos && mods == ".sat") {
    mods.clear();
  }
  traced(op + dtype + atype + btype + mods + " " + d + mask + ", " + a.text + asel + ", " + b.text + bsel + ", " + c.text +
             ";",
         d, 32, SlotType::b32, {a, b, c});
}

void Builder::matrix_region()
{
  ++m_regions3;
  if (!m_smat) {
    m_shared += "  .shared .align 16 .b8 smat[" + dec(m_threads * 16) + "];\n";
    m_smat = true;
  }
  // Every thread writes its 8 bytes of smem; ldmatrix reads rows of 16 bytes from it.
  const Src value = reg(64);
  emit("bar.sync 0;");
  emit("st.shared.b64 [%sa], " + value.text + ";");
  emit("bar.sync 0;");
  const int count = 1 << m_rng.below(3);
  const bool trans = m_rng.chance(1, 3);
  const int64_t shift = static_cast<int64_t>(m_rng.below(16)) * 16;
  emit("shl.b32 %tw, %lane, 4;");
  emit("add.u32 %tw, %tw, " + dec(shift) + ";");
  emit("and.b32 %tw, %tw, " + dec(m_threads * 8 - 16) + ";");
  emit("add.u32 %tw, %tw, %sb;");
  std::vector<std::string> regs;
  std::string list;
  for (int i = 0; i < count; ++i) {
    regs.push_back(fresh(32));
    list += (i == 0 ? "" : ", ") + regs.back();
  }
  const std::string line = "ldmatrix.sync.aligned.m8n8.x" + dec(count) + (trans ? ".trans" : "") + ".shared.b16 {" + list +
                           "}, [%tw];";
  emit(line);
  std::vector<Src> loaded;
  for (int i = 0; i < count; ++i) {
    traced_cross(line + " (" + dec(i) + ")", regs[static_cast<size_t>(i)], 32, SlotType::b32, {value});
    loaded.push_back(Src{regs[static_cast<size_t>(i)], m_pool32.back().slot});
  }
  if (m_rng.chance(1, 2)) {
    const std::string d = fresh(32);
    const std::string move = "movmatrix.sync.aligned.m8n8.trans.b16 " + d + ", " + loaded[0].text + ";";
    emit(move);
    traced_cross(move, d, 32, SlotType::b32, {loaded[0]});
  }
  // stmatrix into the warp's own 16 * 32 bytes of smat, then every lane reads a word of it.
  const bool trans_store = m_rng.chance(1, 3);
  const int stored = 1 << m_rng.below(3);
  const std::vector<Src> fragments = fragment(stored, 'i');
  std::string store_list;
  for (int i = 0; i < stored; ++i) {
    store_list += (i == 0 ? "" : ", ") + fragments[static_cast<size_t>(i)].text;
  }
  emit("bar.sync 0;");
  emit("mov.u32 %tw, smat;");
  emit("and.b32 %tv, %tx, " + hex(static_cast<uint64_t>(~31u & 0xffffffffu)) + ";");
  emit("shl.b32 %tv, %tv, 4;");
  emit("add.u32 %tw, %tw, %tv;");
  emit("shl.b32 %tv, %lane, 4;");
  emit("and.b32 %tv, %tv, " + dec(stored * 128 - 16) + ";");
  emit("add.u32 %tw, %tw, %tv;");
  const std::string store = "stmatrix.sync.aligned.m8n8.x" + dec(stored) + (trans_store ? ".trans" : "") + ".shared.b16 [%tw], {" +
                            store_list + "};";
  emit(store);
  emit("bar.sync 0;");
  // Lane l reads word (l * 4 + k) mod (stored * 32) of its warp's region.
  const int64_t k = static_cast<int64_t>(m_rng.below(4));
  emit("mov.u32 %tw, smat;");
  emit("and.b32 %tv, %tx, " + hex(static_cast<uint64_t>(~31u & 0xffffffffu)) + ";");
  emit("shl.b32 %tv, %tv, 4;");
  emit("add.u32 %tw, %tw, %tv;");
  emit("shl.b32 %tv, %lane, 2;");
  emit("add.u32 %tv, %tv, " + dec(k * 4) + ";");
  emit("and.b32 %tv, %tv, " + dec(stored * 128 - 4) + ";");
  emit("add.u32 %tw, %tw, %tv;");
  const std::string d = fresh(32);
  const std::string load = "ld.shared.b32 " + d + ", [%tw];";
  emit(load);
  traced_cross(load + " (after " + store + ")", d, 32, SlotType::b32, fragments);
}

void Builder::cp_async_region()
{
  ++m_regions3;
  if (m_staging == 0) {
    m_shared += "  .shared .align 128 .b8 sbulk[2048];\n";
    m_staging = 1;
  }
  emit("bar.sync 0;");
  // Thread t copies its own input bytes to sbulk[16 t .. 16 t + 15].
  const int size = 4 << m_rng.below(3);
  const bool cg = size == 16 && m_rng.chance(1, 2);
  const int64_t from = static_cast<int64_t>(m_rng.below(static_cast<size_t>(k_input_words * 8 / size))) * size;
  const int chunks = 16 / size;
  emit("mov.u32 %tw, sbulk;");
  emit("shl.b32 %tv, %tx, 4;");
  emit("add.u32 %tw, %tw, %tv;");
  std::string what;
  for (int i = 0; i < chunks; ++i) {
    const int64_t source = (from + i * size) % (k_input_words * 8);
    // src-size below the copy size fills the rest with zeros.
    const bool zero_fill = m_rng.chance(1, 4);
    const std::string line = std::string("cp.async.") + (cg ? "cg" : "ca") + ".shared.global [%tw+" + dec(i * size) +
                             "], [%ia+" + dec(source) + "], " + dec(size) +
                             (zero_fill ? ", " + dec(static_cast<int64_t>(m_rng.below(static_cast<size_t>(size)))) : "") + ";";
    emit(line);
    what = line;
  }
  emit("cp.async.commit_group;");
  emit(m_rng.chance(1, 2) ? "cp.async.wait_group 0;" : "cp.async.wait_all;");
  emit("bar.sync 0;");
  // Thread t reads the 8 bytes at 8 (t + distance) mod (16 threads).
  const int64_t distance = static_cast<int64_t>(m_rng.below(static_cast<size_t>(2 * m_threads)));
  emit("add.u32 %tv, %tx, " + dec(distance) + ";");
  emit("and.b32 %tv, %tv, " + dec(2 * m_threads - 1) + ";");
  emit("shl.b32 %tv, %tv, 3;");
  emit("mov.u32 %tw, sbulk;");
  emit("add.u32 %tw, %tw, %tv;");
  const std::string d = fresh(64);
  const std::string load = "ld.shared.b64 " + d + ", [%tw];";
  emit(load);
  traced_cross(load + " (after " + what + ")", d, 64, SlotType::b64, {});
}

} // namespace d4r::ptxgen
