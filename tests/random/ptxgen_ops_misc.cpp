// Compare and select (setp with every operator, .and/.or/.xor with negated predicates and p|q
// pairs, set, selp, slct, predicate logic), conversions in every direction (integer widths with
// .sat, float to integer, which always saturates and gives 0 for NaN, integer to float, between
// float widths, f16/bf16 pairs and FP8 e4m3/e5m2 x2), register packing, special registers and the
// warp operations (shfl.sync in all modes, vote.sync, activemask) under a full mask.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#comparison-and-selection-instructions
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt

#include "tests/random/ptxgen_builder.hpp"

namespace d4r::ptxgen {

namespace {

// A compared or converted type and the register it lives in.
struct Typed {
  const char* name;
  int bits; // register width
  int width; // value width
  char kind; // 'u', 's', 'b', 'f'
};

constexpr Typed k_compare_types[] = {{"b16", 16, 16, 'b'}, {"b32", 32, 32, 'b'}, {"b64", 64, 64, 'b'},
                                     {"u16", 16, 16, 'u'}, {"s16", 16, 16, 's'}, {"u32", 32, 32, 'u'},
                                     {"s32", 32, 32, 's'}, {"u64", 64, 64, 'u'}, {"s64", 64, 64, 's'},
                                     {"f32", 32, 32, 'f'}, {"f32", 32, 32, 'f'}, {"f64", 64, 64, 'f'},
                                     {"f16", 16, 16, 'f'}, {"bf16", 16, 16, 'f'}};

constexpr Typed k_cvt_ints[] = {{"u8", 16, 8, 'u'},   {"s8", 16, 8, 's'},   {"u16", 16, 16, 'u'},
                                {"s16", 16, 16, 's'}, {"u32", 32, 32, 'u'}, {"s32", 32, 32, 's'},
                                {"u64", 64, 64, 'u'}, {"s64", 64, 64, 's'}};

constexpr Typed k_cvt_floats[] = {{"f16", 16, 16, 'f'}, {"f32", 32, 32, 'f'}, {"f64", 64, 64, 'f'}};

SlotType float_slot(const Typed& type)
{
  return type.width == 16 ? SlotType::f16 : type.width == 32 ? SlotType::f32 : SlotType::f64;
}

const char* compare_op(Rng& rng, char kind)
{
  static const char* const k_bits[] = {"eq", "ne"};
  static const char* const k_ints[] = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"};
  static const char* const k_floats[] = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                                         "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  if (kind == 'b') {
    return k_bits[rng.below(2)];
  }
  if (kind == 'f') {
    return k_floats[rng.below(std::size(k_floats))];
  }
  // lo/ls/hi/hs are the unsigned operators: on a signed type they are still the unsigned compare.
  return k_ints[rng.below(kind == 'u' ? std::size(k_ints) : 6)];
}

// The source range of `from` fits in `to`: .sat is not allowed (it could change nothing).
bool fits(const Typed& from, const Typed& to)
{
  if (from.kind == to.kind) {
    return to.width >= from.width;
  }
  if (from.kind == 'u' && to.kind == 's') {
    return to.width > from.width;
  }
  return false;
}

} // namespace

void Builder::op_setp()
{
  const Typed& type = k_compare_types[m_rng.below(std::size(k_compare_types))];
  std::string line = std::string("setp.") + compare_op(m_rng, type.kind);
  std::vector<Src> sources;
  const Src x = reg(type.bits, type.kind == 'f' ? 'f' : 'i');
  const Src y = type.kind == 'f' ? (type.bits == 32 ? f32_src() : type.bits == 64 ? f64_src() : reg(16))
                                 : int_src(type.bits);
  sources = {x, y};
  std::string combine;
  if (!m_poolp.empty() && m_rng.chance(1, 2)) {
    static const char* const k_bool[] = {".and", ".or", ".xor"};
    line += k_bool[m_rng.below(3)];
    const Src c = pred();
    combine = ", " + negated(c);
    sources.push_back(c);
  }
  if (std::string(type.name) == "f32" && m_rng.chance(1, 3)) {
    line += ".ftz";
  }
  line += std::string(".") + type.name + " ";
  const std::string p = fresh(1);
  if (type.bits != 16 && m_rng.chance(1, 4)) { // no p|q pair for f16/bf16: ptxas refuses it
    const std::string q = fresh(1);
    line += p + "|" + q + ", " + x.text + ", " + y.text + combine + ";";
    emit(line);
    const int slot_p = add_slot(line, SlotType::pred, sources);
    trace_store(p, 1, SlotType::pred);
    const int slot_q = add_slot(line + " (q)", SlotType::pred, sources);
    trace_store(q, 1, SlotType::pred);
    m_poolp.push_back(Reg{p, slot_p});
    m_poolp.push_back(Reg{q, slot_q});
    return;
  }
  traced(line + p + ", " + x.text + ", " + y.text + combine + ";", p, 1, SlotType::pred, sources);
}

void Builder::op_set()
{
  // f16/bf16 sources only with a 16-bit float destination (ptxas): left out.
  const Typed& type = k_compare_types[m_rng.below(std::size(k_compare_types) - 2)];
  static const char* const k_dests[] = {"u32", "s32", "f32"};
  const char* dest_type = k_dests[m_rng.below(3)];
  std::string line = std::string("set.") + compare_op(m_rng, type.kind);
  const Src x = reg(type.bits, type.kind == 'f' ? 'f' : 'i');
  const Src y = type.kind == 'f' ? (type.bits == 32 ? f32_src() : type.bits == 64 ? f64_src() : reg(16))
                                 : int_src(type.bits);
  std::vector<Src> sources{x, y};
  std::string combine;
  if (m_rng.chance(1, 2)) {
    static const char* const k_bool[] = {".and", ".or", ".xor"};
    line += k_bool[m_rng.below(3)];
    const Src c = pred();
    combine = ", " + negated(c);
    sources.push_back(c);
  }
  if (std::string(type.name) == "f32" && m_rng.chance(1, 3)) {
    line += ".ftz";
  }
  const std::string d = fresh(32);
  // Not guarded from version 2: the H200 writes the destination of a guarded set when the guard
  // is false (tests/random/README.md, "H200 deviations").
  traced(line + "." + dest_type + "." + type.name + " " + d + ", " + x.text + ", " + y.text + combine + ";", d, 32,
         std::string(dest_type) == "f32" ? SlotType::f32 : SlotType::b32, sources, m_version < 2);
}

void Builder::op_selp()
{
  static const Typed k_types[] = {{"b16", 16, 16, 'b'}, {"b32", 32, 32, 'b'}, {"b64", 64, 64, 'b'},
                                  {"u32", 32, 32, 'u'}, {"s64", 64, 64, 's'}, {"f32", 32, 32, 'f'},
                                  {"f64", 64, 64, 'f'}};
  const Typed& type = k_types[m_rng.below(std::size(k_types))];
  const SlotType slot_type = type.kind == 'f' ? (type.bits == 32 ? SlotType::f32 : SlotType::f64) : bits_type(type.bits);
  const char kind = type.kind == 'f' ? 'f' : 'i';
  const Src x = reg(type.bits, kind), y = type.kind == 'f' ? reg(type.bits, kind) : int_src(type.bits);
  const std::string d = fresh(type.bits);
  if (m_rng.chance(1, 3)) { // slct: the sign of c (an s32, or an f32 where -0 counts as >= 0)
    const bool by_float = m_rng.chance(1, 2);
    const Src c = by_float ? f32_src() : int_src(32);
    const std::string ftz = by_float && m_rng.chance(1, 2) ? ".ftz" : "";
    traced("slct" + ftz + "." + type.name + (by_float ? ".f32 " : ".s32 ") + d + ", " + x.text + ", " + y.text + ", " +
               c.text + ";",
           d, type.bits, slot_type, {x, y, c});
    return;
  }
  const Src c = pred();
  traced(std::string("selp.") + type.name + " " + d + ", " + x.text + ", " + y.text + ", " + c.text + ";", d, type.bits,
         slot_type, {x, y, c});
}

void Builder::op_pred_logic()
{
  const Src x = pred();
  const std::string d = fresh(1);
  const size_t op = m_rng.below(4);
  if (op == 3) {
    traced("not.pred " + d + ", " + x.text + ";", d, 1, SlotType::pred, {x});
    return;
  }
  static const char* const k_ops[] = {"and", "or", "xor"};
  const Src y = pred();
  traced(std::string(k_ops[op]) + ".pred " + d + ", " + x.text + ", " + y.text + ";", d, 1, SlotType::pred, {x, y});
}

void Builder::op_cvt_int()
{
  const Typed& to = k_cvt_ints[m_rng.below(std::size(k_cvt_ints))];
  const Typed& from = k_cvt_ints[m_rng.below(std::size(k_cvt_ints))];
  const bool sat = !fits(from, to) && m_rng.chance(1, 2);
  const Src x = reg(from.bits, 'i');
  const std::string d = fresh(to.bits);
  traced(std::string("cvt") + (sat ? ".sat." : ".") + to.name + "." + from.name + " " + d + ", " + x.text + ";", d,
         to.bits, bits_type(to.bits), {x});
}

void Builder::op_cvt_float_int()
{
  static const char* const k_modes[] = {".rni", ".rzi", ".rmi", ".rpi"};
  const Typed& to = k_cvt_ints[m_rng.below(std::size(k_cvt_ints))];
  const Typed& from = k_cvt_floats[m_rng.below(std::size(k_cvt_floats))];
  std::string mods = k_modes[m_rng.below(4)];
  if (from.width == 32 && m_rng.chance(1, 3)) {
    mods += ".ftz";
  }
  if (m_rng.chance(1, 3)) {
    mods += ".sat";
  }
  const Src x = reg(from.bits, 'f');
  const std::string d = fresh(to.bits);
  traced("cvt" + mods + "." + to.name + "." + from.name + " " + d + ", " + x.text + ";", d, to.bits, bits_type(to.bits), {x});
}

void Builder::op_cvt_int_float()
{
  static const char* const k_modes[] = {".rn", ".rz", ".rm", ".rp"};
  const Typed& to = k_cvt_floats[m_rng.below(std::size(k_cvt_floats))];
  const Typed& from = k_cvt_ints[m_rng.below(std::size(k_cvt_ints))];
  const Src x = reg(from.bits, 'i');
  const std::string d = fresh(to.bits);
  traced(std::string("cvt") + k_modes[m_rng.below(4)] + "." + to.name + "." + from.name + " " + d + ", " + x.text + ";", d,
         to.bits, float_slot(to), {x});
}

void Builder::op_cvt_float()
{
  static const char* const k_int_modes[] = {".rni", ".rzi", ".rmi", ".rpi"};
  static const char* const k_modes[] = {".rn", ".rz", ".rm", ".rp"};
  const Typed& to = k_cvt_floats[1 + m_rng.below(2)];
  const Typed& from = k_cvt_floats[1 + m_rng.below(2)];
  std::string mods;
  if (to.width == from.width) {
    mods = k_int_modes[m_rng.below(4)]; // round to an integral value
  } else if (to.width < from.width) {
    mods = k_modes[m_rng.below(4)];
  }
  if ((to.width == 32 || from.width == 32) && m_rng.chance(1, 3)) {
    mods += ".ftz";
  }
  if (m_rng.chance(1, 4)) {
    mods += ".sat";
  }
  const Src x = reg(from.bits, 'f');
  const std::string d = fresh(to.bits);
  traced("cvt" + mods + "." + to.name + "." + from.name + " " + d + ", " + x.text + ";", d, to.bits, float_slot(to), {x});
}

void Builder::op_cvt_half()
{
  static const char* const k_modes[] = {".rn", ".rz", ".rm", ".rp"};
  const size_t form = m_rng.below(6);
  if (form == 0 || form == 1) { // to f16 from f32/f64, rounded
    const bool f64 = form == 1;
    const Src x = reg(f64 ? 64 : 32, 'f');
    const std::string d = fresh(16);
    std::string mods = k_modes[m_rng.below(4)];
    if (!f64 && m_rng.chance(1, 3)) {
      mods += ".ftz";
    }
    if (m_rng.chance(1, 4)) {
      mods += ".sat";
    } else if (m_version >= 2 && !f64 && mods == ".rn" && m_rng.chance(1, 4)) {
      mods += m_rng.chance(1, 2) ? ".relu" : ".relu.satfinite";
    }
    traced("cvt" + mods + ".f16" + (f64 ? ".f64 " : ".f32 ") + d + ", " + x.text + ";", d, 16, SlotType::f16, {x});
  } else if (form == 2) { // from f16/bf16, exact
    const bool bf16 = m_rng.chance(1, 2);
    const bool f64 = !bf16 && m_rng.chance(1, 3);
    const Src x = reg(16, 'f');
    const std::string d = fresh(f64 ? 64 : 32);
    const std::string ftz = !f64 && !bf16 && m_rng.chance(1, 3) ? ".ftz" : "";
    traced("cvt" + ftz + (f64 ? ".f64" : ".f32") + (bf16 ? ".bf16 " : ".f16 ") + d + ", " + x.text + ";", d, f64 ? 64 : 32,
           f64 ? SlotType::f64 : SlotType::f32, {x});
  } else if (form == 3) { // to bf16 from f32
    const Src x = reg(32, 'f');
    const std::string d = fresh(16);
    std::string mods = ".rn";
    if (m_rng.chance(1, 4)) {
      mods += ".relu";
    }
    if (m_rng.chance(1, 3)) {
      mods += ".satfinite";
    }
    traced("cvt" + mods + ".bf16.f32 " + d + ", " + x.text + ";", d, 16, SlotType::bf16, {x});
  } else { // f16x2 / bf16x2 from two f32
    const bool bf16 = form == 5;
    const Src x = reg(32, 'f'), y = reg(32, 'f');
    const std::string d = fresh(32);
    std::string mods = ".rn";
    if (m_rng.chance(1, 4)) {
      mods += ".relu";
    }
    if (m_rng.chance(1, 3)) {
      mods += ".satfinite";
    }
    traced("cvt" + mods + (bf16 ? ".bf16x2" : ".f16x2") + ".f32 " + d + ", " + x.text + ", " + y.text + ";", d, 32,
           SlotType::f16x2, {x, y});
  }
}

void Builder::op_cvt_fp8()
{
  const char* fp8 = m_rng.chance(1, 2) ? "e4m3x2" : "e5m2x2";
  const std::string relu = m_rng.chance(1, 4) ? ".relu" : "";
  const size_t form = m_rng.below(3);
  if (form == 0) {
    const Src x = reg(32, 'f'), y = reg(32, 'f');
    const std::string d = fresh(16);
    traced("cvt.rn.satfinite" + relu + "." + fp8 + ".f32 " + d + ", " + x.text + ", " + y.text + ";", d, 16, SlotType::b16,
           {x, y});
  } else if (form == 1) {
    const Src x = reg(32, 'f');
    const std::string d = fresh(16);
    traced("cvt.rn.satfinite" + relu + "." + fp8 + ".f16x2 " + d + ", " + x.text + ";", d, 16, SlotType::b16, {x});
  } else {
    const Src x = reg(16, 'i');
    const std::string d = fresh(32);
    traced("cvt.rn" + relu + ".f16x2." + fp8 + " " + d + ", " + x.text + ";", d, 32, SlotType::f16x2, {x});
  }
}

void Builder::op_mov_pack()
{
  const bool wide = m_rng.chance(1, 2);
  const int whole = wide ? 64 : 32, half = wide ? 32 : 16;
  if (m_rng.chance(1, 2)) {
    const Src lo = reg(half), hi = reg(half);
    const std::string d = fresh(whole);
    traced("mov.b" + dec(whole) + " " + d + ", {" + lo.text + ", " + hi.text + "};", d, whole, bits_type(whole), {lo, hi});
    return;
  }
  const Src x = reg(whole);
  const std::string lo = fresh(half), hi = fresh(half);
  const std::string line = "mov.b" + dec(whole) + " {" + lo + ", " + hi + "}, " + x.text + ";";
  emit(line);
  const int slot_lo = add_slot(line, bits_type(half), {x});
  trace_store(lo, half, bits_type(half));
  const int slot_hi = add_slot(line + " (hi)", bits_type(half), {x});
  trace_store(hi, half, bits_type(half));
  pool(half).push_back(Reg{lo, slot_lo});
  pool(half).push_back(Reg{hi, slot_hi});
}

void Builder::op_load()
{
  // The thread's inputs read again in other widths and signedness, vectors and .nc included.
  static const Typed k_types[] = {{"u8", 16, 8, 'u'},   {"s8", 16, 8, 's'},  {"u8", 32, 8, 'u'}, {"s8", 32, 8, 's'},
                                  {"u16", 32, 16, 'u'}, {"s16", 32, 16, 's'}, {"s32", 64, 32, 's'}, {"u32", 64, 32, 'u'}};
  const char* cache = m_rng.chance(1, 4) ? ".nc" : "";
  const size_t form = m_rng.below(4);
  if (form == 0) {
    const bool four = m_rng.chance(1, 2);
    const int count = four ? 4 : 2;
    const int offset = static_cast<int>(m_rng.below(static_cast<size_t>(k_input_words * 8 / (count * 4)))) * count * 4;
    std::vector<std::string> regs;
    std::string list;
    for (int i = 0; i < count; ++i) {
      regs.push_back(fresh(32));
      list += (i == 0 ? "" : ", ") + regs.back();
    }
    const std::string line = std::string("ld.global") + cache + (four ? ".v4" : ".v2") + ".b32 {" + list + "}, [%ia+" +
                             dec(offset) + "];";
    emit(line);
    for (int i = 0; i < count; ++i) {
      const int slot = add_slot(line + " (" + dec(i) + ")", SlotType::b32, {});
      trace_store(regs[static_cast<size_t>(i)], 32, SlotType::b32);
      m_pool32.push_back(Reg{regs[static_cast<size_t>(i)], slot});
    }
    return;
  }
  const Typed& type = k_types[m_rng.below(std::size(k_types))];
  const int offset = static_cast<int>(m_rng.below(static_cast<size_t>(k_input_words * 8 / (type.width / 8)))) * (type.width / 8);
  const std::string d = fresh(type.bits);
  traced(std::string("ld.global") + cache + "." + type.name + " " + d + ", [%ia+" + dec(offset) + "];", d, type.bits,
         bits_type(type.bits), {});
}

void Builder::op_special_reg()
{
  static const char* const k_regs[] = {"%tid.x",         "%ntid.x",        "%laneid",        "%lanemask_eq",
                                       "%lanemask_lt",   "%lanemask_le",   "%lanemask_gt",   "%lanemask_ge",
                                       "%ctaid.x",       "%nctaid.x",      "%tid.y",         "%ntid.z"};
  const std::string d = fresh(32);
  traced(std::string("mov.u32 ") + d + ", " + k_regs[m_rng.below(std::size(k_regs))] + ";", d, 32, SlotType::b32, {});
}

void Builder::op_shfl()
{
  static const char* const k_modes[] = {"up", "down", "bfly", "idx"};
  static const uint64_t k_clamps[] = {0x1f, 0x1f, 0, 0x1c1f, 0x181f, 0x101f, 0x0f, 0x1c00, 0x1007};
  const char* mode = k_modes[m_rng.below(4)];
  const Src x = reg(32);
  const Src lane = small_src(34);
  const Src clamp = m_rng.chance(1, 6) ? reg(32) : Src{hex(k_clamps[m_rng.below(std::size(k_clamps))]), -1};
  const std::string d = fresh(32);
  if (m_rng.chance(1, 3)) {
    const std::string p = fresh(1);
    const std::string line = std::string("shfl.sync.") + mode + ".b32 " + d + "|" + p + ", " + x.text + ", " + lane.text +
                             ", " + clamp.text + ", 0xffffffff;";
    emit(line);
    const int slot_d = add_slot(line, SlotType::b32, {x, lane, clamp});
    trace_store(d, 32, SlotType::b32);
    const int slot_p = add_slot(line + " (p)", SlotType::pred, {x, lane, clamp});
    trace_store(p, 1, SlotType::pred);
    m_pool32.push_back(Reg{d, slot_d});
    m_poolp.push_back(Reg{p, slot_p});
    return;
  }
  traced(std::string("shfl.sync.") + mode + ".b32 " + d + ", " + x.text + ", " + lane.text + ", " + clamp.text +
             ", 0xffffffff;",
         d, 32, SlotType::b32, {x, lane, clamp}, false);
}

void Builder::op_vote()
{
  const Src x = pred();
  const size_t op = m_rng.below(5);
  if (op == 4) {
    const std::string d = fresh(32);
    traced("activemask.b32 " + d + ";", d, 32, SlotType::b32, {}, false);
    return;
  }
  if (op == 3) {
    const std::string d = fresh(32);
    traced("vote.sync.ballot.b32 " + d + ", " + negated(x) + ", 0xffffffff;", d, 32, SlotType::b32, {x}, false);
    return;
  }
  static const char* const k_ops[] = {"all", "any", "uni"};
  const std::string d = fresh(1);
  traced(std::string("vote.sync.") + k_ops[op] + ".pred " + d + ", " + negated(x) + ", 0xffffffff;", d, 1, SlotType::pred, {x},
         false);
}

} // namespace d4r::ptxgen
