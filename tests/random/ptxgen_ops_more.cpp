// Version 3's scalar and warp forms that versions 1-2 left out: FP8 conversion chains (f32 ->
// e4m3x2/e5m2x2 -> f16x2 -> the other format -> f16x2, with .relu), szext, bmsk, fns,
// cvt.pack.sat, cvt .tf32, packed 16x2 integer add/min/max, half min/max (.NaN, .xorsign.abs)
// and abs/neg, f32 min/max .xorsign.abs, and redux.sync, match.sync, elect.sync under a full mask.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions
// https://docs.nvidia.com/cuda/parallel-thread-execution/#parallel-synchronization-and-communication-instructions-redux-sync

#include "tests/random/ptxgen_builder.hpp"

namespace d4r::ptxgen {

void Builder::op_fp8_chain()
{
  static const char* const k_fp8[] = {"e4m3x2", "e5m2x2"};
  const size_t first = m_rng.below(2);
  const Src x = reg(32, 'f'), y = reg(32, 'f');
  auto relu = [&]() { return std::string(m_rng.chance(1, 4) ? ".relu" : ""); };
  const std::string p = fresh(16);
  traced("cvt.rn.satfinite" + relu() + "." + k_fp8[first] + ".f32 " + p + ", " + x.text + ", " + y.text + ";", p, 16,
         SlotType::b16, {x, y});
  const Src packed{p, m_pool16.back().slot};
  const std::string h = fresh(32);
  traced("cvt.rn" + relu() + ".f16x2." + k_fp8[first] + " " + h + ", " + p + ";", h, 32, SlotType::f16x2, {packed});
  const Src halves{h, m_pool32.back().slot};
  const std::string q = fresh(16);
  traced("cvt.rn.satfinite" + relu() + "." + k_fp8[1 - first] + ".f16x2 " + q + ", " + h + ";", q, 16, SlotType::b16,
         {halves});
  const Src other{q, m_pool16.back().slot};
  const std::string back = fresh(32);
  traced("cvt.rn.f16x2." + std::string(k_fp8[1 - first]) + " " + back + ", " + q + ";", back, 32, SlotType::f16x2, {other});
}

void Builder::op_int_more()
{
  const size_t form = m_rng.below(8);
  const std::string d = fresh(32);
  if (form == 0) {
    const Src x = reg(32, 'i'), n = small_src(40);
    traced(std::string("szext") + (m_rng.chance(1, 2) ? ".clamp" : ".wrap") + (m_rng.chance(1, 2) ? ".u32 " : ".s32 ") + d +
               ", " + x.text + ", " + n.text + ";",
           d, 32, SlotType::b32, {x, n});
  } else if (form == 1) {
    const Src pos = small_src(40), len = small_src(40);
    traced(std::string("bmsk") + (m_rng.chance(1, 2) ? ".clamp" : ".wrap") + ".b32 " + d + ", " + pos.text + ", " + len.text +
               ";",
           d, 32, SlotType::b32, {pos, len});
  } else if (form == 2) {
    // fns: the n-th set bit of mask at or after base (n may be negative); 0xffffffff when none.
    const Src mask = int_src(32), base = small_src(32);
    const Src offset = m_rng.chance(1, 2) ? Src{dec(static_cast<int64_t>(m_rng.below(9)) - 4), -1} : reg(32, 'i');
    traced("fns.b32 " + d + ", " + mask.text + ", " + base.text + ", " + offset.text + ";", d, 32, SlotType::b32,
           {mask, base, offset});
  } else if (form == 3) {
    static const char* const k_narrow[] = {"u16", "s16", "u8", "s8", "u4", "s4", "u2", "s2"};
    const size_t which = m_rng.below(std::size(k_narrow));
    const Src a = reg(32, 'i'), b = reg(32, 'i');
    if (which < 2) {
      traced(std::string("cvt.pack.sat.") + k_narrow[which] + ".s32 " + d + ", " + a.text + ", " + b.text + ";", d, 32,
             SlotType::b32, {a, b});
    } else {
      const Src c = reg(32, 'i');
      traced(std::string("cvt.pack.sat.") + k_narrow[which] + ".s32.b32 " + d + ", " + a.text + ", " + b.text + ", " +
                 c.text + ";",
             d, 32, SlotType::b32, {a, b, c});
    }
  } else if (form == 4) {
    static const char* const k_modes[] = {".rna", ".rna.satfinite", ".rn", ".rz", ".rn.relu", ".rz.relu"};
    const Src x = reg(32, 'f');
    traced(std::string("cvt") + k_modes[m_rng.below(std::size(k_modes))] + ".tf32.f32 " + d + ", " + x.text + ";", d, 32,
           SlotType::b32, {x});
  } else {
    static const char* const k_ops[] = {"add.u16x2", "add.s16x2", "min.u16x2", "min.s16x2",
                                        "max.u16x2", "max.s16x2", "min.relu.s16x2", "max.relu.s16x2"};
    const Src x = reg(32, 'i'), y = reg(32, 'i');
    traced(std::string(k_ops[m_rng.below(std::size(k_ops))]) + " " + d + ", " + x.text + ", " + y.text + ";", d, 32,
           SlotType::b32, {x, y});
  }
}

void Builder::op_half_minmax()
{
  const size_t form = m_rng.below(4);
  if (form == 3) { // f32 min/max .xorsign.abs
    const Src x = reg(32, 'f'), y = reg(32, 'f');
    const std::string d = fresh(32);
    traced(std::string(m_rng.chance(1, 2) ? "min" : "max") + (m_rng.chance(1, 2) ? ".NaN" : "") + ".xorsign.abs.f32 " + d +
               ", " + x.text + ", " + y.text + ";",
           d, 32, SlotType::f32, {x, y});
    return;
  }
  const bool bf16 = m_rng.chance(1, 2);
  const bool x2 = m_rng.chance(1, 2);
  const int bits = x2 ? 32 : 16;
  const std::string type = std::string(bf16 ? ".bf16" : ".f16") + (x2 ? "x2" : "");
  const SlotType slot_type = x2 ? SlotType::f16x2 : bf16 ? SlotType::bf16 : SlotType::f16;
  const std::string ftz = !bf16 && m_rng.chance(1, 3) ? ".ftz" : "";
  const Src x = reg(bits, 'f');
  const std::string d = fresh(bits);
  if (form == 2) {
    traced(std::string(m_rng.chance(1, 2) ? "abs" : "neg") + ftz + type + " " + d + ", " + x.text + ";", d, bits, slot_type,
           {x});
    return;
  }
  const Src y = reg(bits, 'f');
  std::string mods = ftz;
  if (m_rng.chance(1, 2)) {
    mods += ".NaN";
  }
  if (m_rng.chance(1, 3)) {
    mods += ".xorsign.abs";
  }
  traced(std::string(form == 0 ? "min" : "max") + mods + type + " " + d + ", " + x.text + ", " + y.text + ";", d, bits,
         slot_type, {x, y});
}

void Builder::op_warp_more()
{
  const size_t form = m_rng.below(5);
  if (form <= 1) {
    static const char* const k_ops[] = {"add.u32", "add.s32", "min.u32", "min.s32", "max.u32",
                                        "max.s32", "and.b32", "or.b32",  "xor.b32"};
    const Src x = reg(32, 'i');
    const std::string d = fresh(32);
    const std::string line =
        std::string("redux.sync.") + k_ops[m_rng.below(std::size(k_ops))] + " " + d + ", " + x.text + ", 0xffffffff;";
    emit(line);
    traced_cross(line, d, 32, SlotType::b32, {x});
  } else if (form == 2) {
    const bool wide = m_rng.chance(1, 2);
    const Src x = reg(wide ? 64 : 32, 'i');
    const std::string d = fresh(32);
    const std::string line = std::string("match.any.sync.b") + (wide ? "64 " : "32 ") + d + ", " + x.text + ", 0xffffffff;";
    emit(line);
    traced_cross(line, d, 32, SlotType::b32, {x});
  } else if (form == 3) {
    const bool wide = m_rng.chance(1, 2);
    const Src x = reg(wide ? 64 : 32, 'i');
    const std::string d = fresh(32), p = fresh(1);
    const std::string line =
        std::string("match.all.sync.b") + (wide ? "64 " : "32 ") + d + "|" + p + ", " + x.text + ", 0xffffffff;";
    emit(line);
    traced_cross(line, d, 32, SlotType::b32, {x});
    traced_cross(line + " (p)", p, 1, SlotType::pred, {x});
  } else {
    const std::string d = fresh(32), p = fresh(1);
    const std::string line = "elect.sync " + d + "|" + p + ", 0xffffffff;";
    emit(line);
    traced_cross(line, d, 32, SlotType::b32, {});
    traced_cross(line + " (p)", p, 1, SlotType::pred, {});
  }
}

} // namespace d4r::ptxgen
