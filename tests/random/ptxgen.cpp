// The generator's frame: registers and their traced values, the prologue that loads the inputs,
// the control structures (a forward branch over a region, a bounded loop, a shared-memory
// exchange between barriers) and the choice of the next operation. The operation families are in
// ptxgen_ops_*.cpp.
//
// Well-definedness is kept by construction: a register is read only once every thread that reads
// it has written it (values defined inside a branch region are dropped from the pools after it,
// a guarded instruction first gets its old value by a traced mov), warp operations and barriers
// run only where the whole warp runs, divisors are never 0 (nor -1 for signed types), and every
// float add/sub/mul names its rounding mode, so that ptxas may not contract it into an fma.

#include "tests/random/ptxgen_builder.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace d4r::ptxgen {

std::string hex(uint64_t value)
{
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string dec(int64_t value)
{
  return std::to_string(value);
}

SlotType bits_type(int bits)
{
  return bits == 16 ? SlotType::b16 : bits == 32 ? SlotType::b32 : SlotType::b64;
}

std::vector<Reg>& Builder::pool(int bits)
{
  return bits == 16 ? m_pool16 : bits == 32 ? m_pool32 : bits == 64 ? m_pool64 : m_poolp;
}

std::string Builder::fresh(int bits)
{
  switch (bits) {
  case 16:
    return "%h" + dec(m_count16++);
  case 32:
    return "%r" + dec(m_count32++);
  case 64:
    return "%d" + dec(m_count64++);
  default:
    return "%p" + dec(m_countp++);
  }
}

// Recent values are picked more often, so that results feed later operations.
bool is_float_slot(SlotType type)
{
  return type == SlotType::f16 || type == SlotType::bf16 || type == SlotType::f16x2 || type == SlotType::f32 ||
         type == SlotType::f64;
}

// Version 2 and later keep integers and floats apart where they can: the H200 (ptxas) mis-executes
// some programs that use one register as both (tests/random/README.md), so a float operand is
// picked among values a float operation (or a float-class input) made, an integer one among the
// others, falling back to any register of the width when there is none.
Src Builder::reg(int bits, char kind)
{
  std::vector<Reg>& all = pool(bits);
  std::vector<Reg> typed;
  if (m_version >= 2 && kind != 0 && bits != 1) {
    for (const Reg& candidate : all) {
      if (is_float_slot(m_program.slots[static_cast<size_t>(candidate.slot)].type) == (kind == 'f')) {
        typed.push_back(candidate);
      }
    }
  }
  const std::vector<Reg>& regs = typed.empty() ? all : typed;
  const size_t n = regs.size();
  size_t index = m_rng.chance(1, 2) && n > 6 ? n - 1 - m_rng.below(6) : m_rng.below(n);
  return Src{regs[index].name, regs[index].slot};
}

Src Builder::pred()
{
  return reg(1);
}

Src Builder::int_src(int bits)
{
  if (m_rng.chance(1, 6)) {
    const uint64_t value = int_value(m_rng, bits);
    // A negative immediate is written as such half of the time.
    const uint64_t sign = uint64_t{1} << (bits - 1);
    if ((value & sign) != 0 && bits < 64 && m_rng.chance(1, 2)) {
      return Src{dec(static_cast<int64_t>(value) - static_cast<int64_t>(sign << 1)), -1};
    }
    return Src{hex(value), -1};
  }
  return reg(bits, 'i');
}

Src Builder::small_src(int limit)
{
  if (m_rng.chance(1, 2)) {
    return Src{dec(static_cast<int64_t>(m_rng.below(static_cast<size_t>(limit)))), -1};
  }
  return reg(32, 'i');
}

Src Builder::f32_src()
{
  if (m_rng.chance(1, 8)) {
    char text[16];
    std::snprintf(text, sizeof text, "0f%08llX", static_cast<unsigned long long>(f32_value(m_rng)));
    return Src{text, -1};
  }
  return reg(32, 'f');
}

Src Builder::f64_src()
{
  if (m_rng.chance(1, 8)) {
    char text[24];
    std::snprintf(text, sizeof text, "0d%016llX", static_cast<unsigned long long>(f64_value(m_rng)));
    return Src{text, -1};
  }
  return reg(64, 'f');
}

std::string Builder::negated(const Src& p)
{
  return m_rng.chance(1, 3) ? "!" + p.text : p.text;
}

int Builder::add_slot(const std::string& text, SlotType type, const std::vector<Src>& sources)
{
  Slot slot;
  slot.text = text;
  slot.type = type;
  slot.in_loop = m_in_loop;
  slot.control = m_control;
  for (const Src& source : sources) {
    if (source.slot >= 0) {
      slot.sources.push_back(source.slot);
      slot.source_regs.push_back(source.text);
    }
  }
  m_program.slots.push_back(std::move(slot));
  return static_cast<int>(m_program.slots.size()) - 1;
}

void Builder::traced_cross(const std::string& text, const std::string& dest, int bits, SlotType type,
                           const std::vector<Src>& sources)
{
  const int slot = add_slot(text, type, sources);
  m_program.slots[static_cast<size_t>(slot)].cross = true;
  trace_store(dest, bits, type);
  pool(bits).push_back(Reg{dest, slot});
}

void Builder::trace_store(const std::string& dest, int bits, SlotType type)
{
  const std::string offset = dec(static_cast<int64_t>(m_program.slots.size() - 1) * 8);
  if (type == SlotType::pred) {
    emit("selp.u32 %t, 1, 0, " + dest + ";");
    emit("st.global.u32 [%oa+" + offset + "], %t;");
  } else {
    emit("st.global.b" + dec(bits) + " [%oa+" + offset + "], " + dest + ";");
  }
}

void Builder::traced(const std::string& line, const std::string& dest, int bits, SlotType type,
                     std::vector<Src> sources, bool guardable)
{
  std::string text = line;
  if (guardable && !m_poolp.empty() && m_rng.chance(1, 8)) {
    // The guarded write leaves the old value where the guard is false: give dest one first.
    const Src old = reg(bits);
    const std::string mov = "mov." + std::string(bits == 1 ? "pred" : "b" + dec(bits)) + " " + dest + ", " + old.text + ";";
    emit(mov);
    add_slot(mov, type, {old});
    trace_store(dest, bits, type);
    const Src guard = pred();
    const bool negate = m_rng.chance(1, 2);
    text = std::string("@") + (negate ? "!" : "") + guard.text + " " + line;
    sources.push_back(guard);
    sources.push_back(Src{dest, static_cast<int>(m_program.slots.size()) - 1});
  }
  emit(text);
  const int slot = add_slot(text, type, sources);
  trace_store(dest, bits, type);
  pool(bits).push_back(Reg{dest, slot});
}

void Builder::prologue(int64_t slots)
{
  emit("ld.param.u64 %ia, [p_in];");
  emit("ld.param.u64 %oa, [p_out];");
  emit("cvta.to.global.u64 %ia, %ia;");
  emit("cvta.to.global.u64 %oa, %oa;");
  if (m_version >= 3) {
    emit("mov.b64 %ib, %ia;"); // the input buffer's start: the block's words follow the threads'
  }
  emit("mov.u32 %tx, %tid.x;");
  if (m_version >= 3) {
    emit("setp.eq.u32 %pe, %tx, 0;"); // the thread that issues the block's bulk copies
  }
  emit("mul.wide.u32 %ta, %tx, " + dec(k_input_words * 8) + ";");
  emit("add.s64 %ia, %ia, %ta;");
  emit("mul.wide.u32 %ta, %tx, " + dec(slots * 8) + ";");
  emit("add.s64 %oa, %oa, %ta;");
}

void Builder::branch_region(int ops)
{
  const Src guard = pred();
  const std::string label = "L" + dec(m_labels++);
  emit("@" + negated(guard) + " bra " + label + ";");
  m_control.push_back(guard.slot);
  const size_t keep16 = m_pool16.size(), keep32 = m_pool32.size(), keep64 = m_pool64.size(), keepp = m_poolp.size();
  const bool outer = m_in_branch;
  m_in_branch = true;
  for (int i = 0; i < ops; ++i) {
    one_op();
  }
  m_in_branch = outer;
  m_control.pop_back();
  // Threads that jumped never wrote these registers.
  m_pool16.resize(keep16);
  m_pool32.resize(keep32);
  m_pool64.resize(keep64);
  m_poolp.resize(keepp);
  m_body += label + ":\n";
}

void Builder::loop_region(int ops)
{
  // 1 to 4 iterations, a different count per thread; one accumulator carried round the loop. The
  // counter is traced but kept out of the pools: the loop changes it.
  const Src count_src = reg(32);
  const std::string count = fresh(32);
  const std::string count_line = "and.b32 " + count + ", " + count_src.text + ", 3;";
  emit(count_line);
  add_slot(count_line, SlotType::b32, {count_src});
  trace_store(count, 32, SlotType::b32);
  const Src acc_init = reg(32);
  const std::string acc = fresh(32);
  traced("mov.b32 " + acc + ", " + acc_init.text + ";", acc, 32, SlotType::b32, {acc_init}, false);
  const std::string label = "L" + dec(m_labels++) + "_loop";
  m_body += label + ":\n";
  const bool outer_loop = m_in_loop, outer_branch = m_in_branch;
  m_in_loop = true;
  m_in_branch = true;
  // The accumulator's pool entry (its mov) stays readable in the body; it is replaced after.
  const size_t keep16 = m_pool16.size(), keep32 = m_pool32.size() - 1, keep64 = m_pool64.size(), keepp = m_poolp.size();
  const Src acc_src{acc, m_pool32.back().slot};
  for (int i = 0; i < ops; ++i) {
    one_op();
  }
  const Src last = reg(32);
  traced("xor.b32 " + acc + ", " + acc + ", " + last.text + ";", acc, 32, SlotType::b32, {acc_src, last}, false);
  const int acc_slot = m_pool32.back().slot;
  m_pool16.resize(keep16);
  m_pool32.resize(keep32);
  m_pool64.resize(keep64);
  m_poolp.resize(keepp);
  m_pool32.push_back(Reg{acc, acc_slot});
  emit("sub.s32 " + count + ", " + count + ", 1;");
  emit("setp.ge.s32 %pl, " + count + ", 0;");
  emit("@%pl bra " + label + ";");
  m_in_loop = outer_loop;
  m_in_branch = outer_branch;
}

void Builder::shared_exchange()
{
  const int bits = m_rng.chance(1, 2) ? 32 : 64;
  const Src value = reg(bits);
  const uint64_t distance = 1 + m_rng.below(31);
  emit("st.shared.b" + dec(bits) + " [%sa], " + value.text + ";");
  emit("bar.sync 0;");
  emit("add.u32 %ts, %tx, " + dec(static_cast<int64_t>(distance)) + ";");
  emit("and.b32 %ts, %ts, " + dec(m_threads - 1) + ";");
  emit("shl.b32 %ts, %ts, 3;");
  emit("add.u32 %ts, %ts, %sb;");
  const std::string dest = fresh(bits);
  // The source is the value another thread stored: its slot is the same slot of that thread.
  traced("ld.shared.b" + dec(bits) + " " + dest + ", [%ts];", dest, bits, bits_type(bits), {value}, false);
  emit("bar.sync 0;");
}

void Builder::partial_warp_region()
{
  // Only the lanes of a random member mask run warp operations naming that mask; shfl reads a
  // lane inside the mask (idx with a constant lane in it, bfly over a mask closed under the xor),
  // where the result is defined.
  const uint64_t xor_lanes = 1 + m_rng.below(31);
  uint64_t mask = m_rng.next() & 0xffffffff;
  mask |= uint64_t{1} << m_rng.below(32);
  const bool closed = m_rng.chance(1, 2);
  if (closed) {
    uint64_t closure = mask;
    for (uint64_t lane = 0; lane < 32; ++lane) {
      if ((mask >> lane & 1) != 0) {
        closure |= uint64_t{1} << (lane ^ xor_lanes);
      }
    }
    mask = closure;
  }
  uint64_t member = 0;
  do {
    member = m_rng.below(32);
  } while ((mask >> member & 1) == 0);
  const std::string label = "L" + dec(m_labels++) + "_mask";
  emit("shr.b32 %ts, " + hex(mask) + ", %lane;");
  emit("and.b32 %ts, %ts, 1;");
  emit("setp.eq.u32 %pl, %ts, 0;");
  emit("@%pl bra " + label + ";");
  const size_t keep16 = m_pool16.size(), keep32 = m_pool32.size(), keep64 = m_pool64.size(), keepp = m_poolp.size();
  const bool outer = m_in_branch;
  m_in_branch = true;
  const int ops = 1 + static_cast<int>(m_rng.below(3));
  for (int i = 0; i < ops; ++i) {
    const size_t what = m_rng.below(4);
    const std::string d = fresh(what == 3 ? 1 : 32);
    if (what == 0) {
      const Src x = reg(32);
      traced("shfl.sync.idx.b32 " + d + ", " + x.text + ", " + dec(static_cast<int64_t>(member)) + ", 0x1f, " + hex(mask) + ";",
             d, 32, SlotType::b32, {x}, false);
    } else if (what == 1 && closed) {
      const Src x = reg(32);
      traced("shfl.sync.bfly.b32 " + d + ", " + x.text + ", " + dec(static_cast<int64_t>(xor_lanes)) + ", 0x1f, " + hex(mask) +
                 ";",
             d, 32, SlotType::b32, {x}, false);
    } else if (what <= 2) {
      const Src p = pred();
      traced("vote.sync.ballot.b32 " + d + ", " + negated(p) + ", " + hex(mask) + ";", d, 32, SlotType::b32, {p}, false);
    } else {
      static const char* const k_ops[] = {"all", "any", "uni"};
      const Src p = pred();
      traced(std::string("vote.sync.") + k_ops[m_rng.below(3)] + ".pred " + d + ", " + negated(p) + ", " + hex(mask) + ";", d,
             1, SlotType::pred, {p}, false);
    }
  }
  m_in_branch = outer;
  m_pool16.resize(keep16);
  m_pool32.resize(keep32);
  m_pool64.resize(keep64);
  m_poolp.resize(keepp);
  m_body += label + ":\n";
}

void Builder::barrier_reduction()
{
  // bar.red over the block (every thread runs it): popc of a predicate, or and/or of one.
  const Src p = pred();
  if (m_rng.chance(1, 2)) {
    const std::string d = fresh(32);
    traced("bar.red.popc.u32 " + d + ", 0, " + negated(p) + ";", d, 32, SlotType::b32, {p}, false);
    return;
  }
  const std::string d = fresh(1);
  traced(std::string("bar.red.") + (m_rng.chance(1, 2) ? "and" : "or") + ".pred " + d + ", 0, " + negated(p) + ";", d, 1,
         SlotType::pred, {p}, false);
}

void Builder::shared_reduction()
{
  // red.shared into 4 words, each the reduction of 8 threads' values: integer results do not
  // depend on the order the threads arrive in. Every thread reads its own word back (zero past 4).
  static const char* const k_ops[] = {"add.u32", "min.u32", "max.s32", "and.b32", "or.b32", "xor.b32", "add.u64", "max.u64"};
  const char* op = k_ops[m_rng.below(std::size(k_ops))];
  const int bits = std::string(op).ends_with("64") ? 64 : 32;
  const Src value = reg(bits);
  emit("st.shared.b" + dec(bits) + " [%sa], " + std::string(std::string(op).starts_with("min") ? "-1" : "0") + ";");
  emit("bar.sync 0;");
  emit("and.b32 %ts, %tx, 3;");
  emit("shl.b32 %ts, %ts, 3;");
  emit("add.u32 %ts, %ts, %sb;");
  emit(std::string("red.shared.") + op + " [%ts], " + value.text + ";");
  emit("bar.sync 0;");
  const std::string dest = fresh(bits);
  const std::string line = "ld.shared.b" + dec(bits) + " " + dest + ", [%sa];";
  emit(line);
  const int slot = add_slot(line + " (after red.shared." + op + ")", bits_type(bits), {value});
  trace_store(dest, bits, bits_type(bits));
  pool(bits).push_back(Reg{dest, slot});
  emit("bar.sync 0;");
}

void Builder::one_op()
{
  using Family = void (Builder::*)();
  struct Weighted {
    Family family;
    int weight;
    bool whole_warp;
    int since = 1; // the first generator version with this family
  };
  static const Weighted k_families[] = {
      {&Builder::op_int_arith, 6, false},     {&Builder::op_int_mul, 5, false},
      {&Builder::op_int_div, 3, false},       {&Builder::op_int_minmax, 3, false},
      {&Builder::op_int_logic, 4, false},     {&Builder::op_int_shift, 4, false},
      {&Builder::op_int_bitfield, 4, false},  {&Builder::op_int_bitcount, 3, false},
      {&Builder::op_int_perm, 4, false},      {&Builder::op_int_dot, 2, false},
      {&Builder::op_carry_chain, 3, false},   {&Builder::op_float_arith, 10, false},
      {&Builder::op_float_special, 6, false}, {&Builder::op_half_arith, 5, false},
      {&Builder::op_testp, 2, false},         {&Builder::op_setp, 8, false},
      {&Builder::op_set, 2, false},           {&Builder::op_selp, 3, false},
      {&Builder::op_pred_logic, 2, false},    {&Builder::op_cvt_int, 4, false},
      {&Builder::op_cvt_float_int, 5, false}, {&Builder::op_cvt_int_float, 4, false},
      {&Builder::op_cvt_float, 4, false},     {&Builder::op_cvt_half, 4, false},
      {&Builder::op_cvt_fp8, 3, false},       {&Builder::op_mov_pack, 2, false},
      {&Builder::op_special_reg, 1, false},   {&Builder::op_load, 3, false, 2},   {&Builder::op_shfl, 4, true},
      {&Builder::op_vote, 2, true},           {&Builder::op_mma, 4, true, 3},     {&Builder::op_fp8_chain, 2, false, 3},
      {&Builder::op_int_more, 3, false, 3},   {&Builder::op_half_minmax, 2, false, 3},
      {&Builder::op_warp_more, 2, true, 3},   {&Builder::op_video, 4, false, 3}};
  int total = 0;
  auto weight_of = [&](const Weighted& family) {
    return (family.whole_warp && m_in_branch) || family.since > m_version ? 0 : family.weight;
  };
  for (const Weighted& family : k_families) {
    total += weight_of(family);
  }
  int pick = static_cast<int>(m_rng.below(static_cast<size_t>(total)));
  for (const Weighted& family : k_families) {
    const int weight = weight_of(family);
    if (pick < weight) {
      (this->*family.family)();
      return;
    }
    pick -= weight;
  }
}

namespace {

// How version 2 types an input register: by the class of the values loaded into it.
SlotType input_type(ValueClass value_class, int bits)
{
  switch (value_class) {
  case ValueClass::f32:
    return SlotType::f32;
  case ValueClass::f64:
    return SlotType::f64;
  case ValueClass::f16:
    return bits == 16 ? SlotType::f16 : SlotType::f16x2;
  case ValueClass::bf16:
    return bits == 16 ? SlotType::bf16 : SlotType::f16x2;
  case ValueClass::int16:
  case ValueClass::int32:
  case ValueClass::int64:
  case ValueClass::bits:
    return bits_type(bits);
  }
  return bits_type(bits);
}

} // namespace

void Builder::build(const Options& options)
{
  m_version = options.version;
  if (m_version >= 3) {
    m_threads = m_rng.chance(1, 3) ? k_warpgroup_threads : k_threads;
    m_cluster = m_rng.chance(1, 3);
  }
  m_program.threads = m_threads;
  // Inputs: word i is loaded as 16, 32 or 64 bits; its class decides the values each thread gets.
  static const ValueClass k_classes32[] = {ValueClass::int32, ValueClass::f32, ValueClass::f16,
                                           ValueClass::bf16, ValueClass::bits};
  static const ValueClass k_classes64[] = {ValueClass::int64, ValueClass::f64, ValueClass::bits};
  static const ValueClass k_classes16[] = {ValueClass::int16, ValueClass::f16, ValueClass::bf16};
  int widths[k_input_words];
  ValueClass classes[k_input_words];
  for (int i = 0; i < k_input_words; ++i) {
    const int kind = i < 7 ? 32 : i < 12 ? 64 : 16;
    widths[i] = kind;
    classes[i] = kind == 32 ? k_classes32[m_rng.below(std::size(k_classes32))]
                 : kind == 64 ? k_classes64[m_rng.below(std::size(k_classes64))]
                              : k_classes16[m_rng.below(std::size(k_classes16))];
  }
  m_program.inputs.resize(static_cast<size_t>(m_threads) * k_input_words);
  for (int thread = 0; thread < m_threads; ++thread) {
    for (int i = 0; i < k_input_words; ++i) {
      m_program.inputs[static_cast<size_t>(thread) * k_input_words + i] = input_word(m_rng, classes[i]);
    }
  }
  const int ops = options.min_ops + static_cast<int>(m_rng.below(static_cast<size_t>(options.max_ops - options.min_ops + 1)));
  // The output stride must be known before the body: reserve a generous upper bound, then the
  // prologue is patched with the real count (see generate()).
  for (int i = 0; i < k_input_words; ++i) {
    const std::string dest = fresh(widths[i]);
    const std::string line = "ld.global.b" + dec(widths[i]) + " " + dest + ", [%ia+" + dec(i * 8) + "];";
    traced(line, dest, widths[i], m_version >= 2 ? input_type(classes[i], widths[i]) : bits_type(widths[i]), {}, false);
  }
  for (int i = 0; i < 3; ++i) {
    op_setp();
  }
  emit("mov.u32 %lane, %laneid;");
  emit("mov.u32 %sb, smem;");
  emit("shl.b32 %ts, %tx, 3;");
  emit("add.u32 %sa, %sb, %ts;");
  for (int i = 0; i < ops; ++i) {
    const size_t what = m_rng.below(40);
    if (what == 0 && !m_in_branch) {
      branch_region(1 + static_cast<int>(m_rng.below(4)));
    } else if (what == 1 && !m_in_branch) {
      loop_region(1 + static_cast<int>(m_rng.below(3)));
    } else if (what == 2) {
      shared_exchange();
    } else if (what == 3) {
      partial_warp_region();
    } else if (what == 4) {
      barrier_reduction();
    } else if (what == 5 && m_version >= 2) {
      shared_reduction();
    } else if (what >= 6 && what <= 11 && m_version >= 3 && !m_in_branch) {
      if (what == 6) {
        m_threads == k_warpgroup_threads ? wgmma_region() : one_op();
      } else if (what == 7) {
        bulk_load_region();
      } else if (what == 8) {
        bulk_store_region();
      } else if (what == 10) {
        matrix_region();
      } else if (what == 11) {
        cp_async_region();
      } else {
        m_cluster ? async_store_region() : one_op();
      }
    } else {
      one_op();
    }
  }
  // Every warpgroup program has a wgmma, every cluster program an st.async/red.async region.
  if (m_threads == k_warpgroup_threads && m_wgmma_regions == 0) {
    wgmma_region();
  }
  if (m_cluster && m_async_regions == 0) {
    async_store_region();
  }
}

std::string Builder::declarations() const
{
  std::string text;
  text += "  .reg .pred %p<" + dec(std::max(m_countp, 1)) + ">;\n";
  text += "  .reg .b16 %h<" + dec(std::max(m_count16, 1)) + ">;\n";
  text += "  .reg .b32 %r<" + dec(std::max(m_count32, 1)) + ">;\n";
  text += "  .reg .b64 %d<" + dec(std::max(m_count64, 1)) + ">;\n";
  text += "  .reg .pred %pl;\n  .reg .b32 %t, %tx, %ts, %sa, %sb, %lane;\n  .reg .b64 %ia, %oa, %ta;\n";
  text += "  .shared .align 8 .b8 smem[" + dec(m_threads * 8) + "];\n";
  if (m_version >= 3) {
    text += "  .reg .pred %pe, %pw;\n  .reg .b32 %tw, %tv, %tu, %q0, %q1, %q2, %q3;\n  .reg .b64 %ib, %tb, %tc;\n" + m_shared;
  }
  return text;
}

Program generate(uint64_t seed, const Options& options)
{
  Program program;
  program.seed = seed;
  program.name = "r" + dec(static_cast<int64_t>(seed));
  program.version = options.version;
  // The prologue needs the slot count (the output stride): it is written after the body.
  // Mixed first: splitmix64 states of neighbouring seeds would be the same sequence, shifted.
  Rng mixer(seed ^ 0x243f6a8885a308d3ULL);
  Builder builder(mixer.next() ^ (mixer.next() << 1), program);
  builder.build(options);
  const std::string body = builder.m_body;
  builder.m_body.clear();
  builder.prologue(static_cast<int64_t>(program.slots.size()));
  const std::string prologue = builder.m_body;
  program.inputs.insert(program.inputs.end(), builder.m_block.begin(), builder.m_block.end());
  // st.async and red.async need a launch in clusters (of one CTA: the own CTA's shared memory).
  const std::string cluster = builder.m_cluster ? " .reqnctapercluster 1, 1, 1" : "";
  program.entry = ".visible .entry " + program.name + "(\n  .param .u64 p_in,\n  .param .u64 p_out\n)" + cluster + "\n{\n" +
                  builder.declarations() + prologue + body + "  ret;\n}\n";
  return program;
}

std::string module_text(std::span<const Program> programs)
{
  const int version = programs.empty() ? k_generator_version : programs.front().version;
  std::string text = "// Generated by tests/random (d4r ptxgen, version " + dec(version) +
                     "): random traced programs.\n.version 8.5\n.target " +
                     std::string(version >= 3 ? "sm_90a" : "sm_90") + "\n.address_size 64\n\n";
  for (const Program& program : programs) {
    text += program.entry + "\n";
  }
  return text;
}

int64_t output_bytes(const Program& program)
{
  return static_cast<int64_t>(program.threads) * static_cast<int64_t>(program.slots.size()) * 8;
}

const char* to_string(SlotType type)
{
  switch (type) {
  case SlotType::b16:
    return "b16";
  case SlotType::b32:
    return "b32";
  case SlotType::b64:
    return "b64";
  case SlotType::f16:
    return "f16";
  case SlotType::bf16:
    return "bf16";
  case SlotType::f16x2:
    return "f16x2";
  case SlotType::f32:
    return "f32";
  case SlotType::f64:
    return "f64";
  case SlotType::pred:
    return "pred";
  }
  return "?";
}

int slot_bytes(SlotType type)
{
  switch (type) {
  case SlotType::b16:
  case SlotType::f16:
  case SlotType::bf16:
    return 2;
  case SlotType::b32:
  case SlotType::f16x2:
  case SlotType::f32:
  case SlotType::pred:
    return 4;
  case SlotType::b64:
  case SlotType::f64:
    return 8;
  }
  return 8;
}

std::string describe_value(SlotType type, uint64_t bits)
{
  char text[96];
  switch (type) {
  case SlotType::f32: {
    float value = 0;
    const uint32_t word = static_cast<uint32_t>(bits);
    std::memcpy(&value, &word, 4);
    std::snprintf(text, sizeof text, "0x%08x (%.9g)", word, static_cast<double>(value));
    return text;
  }
  case SlotType::f64: {
    double value = 0;
    std::memcpy(&value, &bits, 8);
    std::snprintf(text, sizeof text, "0x%016llx (%.17g)", static_cast<unsigned long long>(bits), value);
    return text;
  }
  case SlotType::pred:
    return bits != 0 ? "1" : "0";
  case SlotType::b16:
  case SlotType::f16:
  case SlotType::bf16:
    std::snprintf(text, sizeof text, "0x%04llx", static_cast<unsigned long long>(bits & 0xffff));
    return text;
  case SlotType::b32:
  case SlotType::f16x2:
    std::snprintf(text, sizeof text, "0x%08llx (%d)", static_cast<unsigned long long>(bits & 0xffffffff),
                  static_cast<int32_t>(static_cast<uint32_t>(bits)));
    return text;
  case SlotType::b64:
    std::snprintf(text, sizeof text, "0x%016llx (%lld)", static_cast<unsigned long long>(bits),
                  static_cast<long long>(bits));
    return text;
  }
  return hex(bits);
}

uint64_t fnv1a64(std::span<const unsigned char> bytes, uint64_t hash)
{
  for (unsigned char byte : bytes) {
    hash = (hash ^ byte) * 0x100000001b3ULL;
  }
  return hash;
}

} // namespace d4r::ptxgen
