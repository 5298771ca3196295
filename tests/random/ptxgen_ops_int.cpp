// Integer operation families: every width and signedness the translator accepts
// (tests/unit/test_compiler_translate_forms.cpp), immediates included.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#integer-arithmetic-instructions

#include "tests/random/ptxgen_builder.hpp"

namespace d4r::ptxgen {

namespace {

struct IntType {
  const char* name;
  int bits;
  bool is_signed;
};

constexpr IntType k_int_types[] = {{"u16", 16, false}, {"s16", 16, true}, {"u32", 32, false},
                                   {"s32", 32, true},  {"u64", 64, false}, {"s64", 64, true}};

const IntType& pick_int(Rng& rng)
{
  return k_int_types[rng.below(std::size(k_int_types))];
}

const IntType& pick_int(Rng& rng, int bits)
{
  const size_t base = bits == 16 ? 0 : bits == 32 ? 2 : 4;
  return k_int_types[base + rng.below(2)];
}

std::string b(int bits)
{
  return "b" + dec(bits);
}

} // namespace

void Builder::op_int_arith()
{
  const IntType& type = pick_int(m_rng);
  if (m_rng.chance(1, 6)) { // sad: c + |a - b|
    const Src x = reg(type.bits, 'i'), y = int_src(type.bits), z = int_src(type.bits);
    const std::string d = fresh(type.bits);
    traced("sad." + std::string(type.name) + " " + d + ", " + x.text + ", " + y.text + ", " + z.text + ";", d, type.bits,
           bits_type(type.bits), {x, y, z});
    return;
  }
  const char* op = m_rng.chance(1, 2) ? "add" : "sub";
  const bool sat = type.bits == 32 && type.is_signed && m_rng.chance(1, 3);
  const Src x = int_src(type.bits), y = reg(type.bits, 'i');
  const std::string d = fresh(type.bits);
  const bool swap = m_rng.chance(1, 2);
  const Src& first = swap ? y : x;
  const Src& second = swap ? x : y;
  traced(std::string(op) + (sat ? ".sat" : "") + "." + type.name + " " + d + ", " + first.text + ", " + second.text + ";",
         d, type.bits, bits_type(type.bits), {first, second});
}

void Builder::op_int_mul()
{
  const size_t form = m_rng.below(6);
  if (form == 5) { // mul24 / mad24
    const IntType& type = pick_int(m_rng, 32);
    const char* half = m_rng.chance(1, 2) ? "lo" : "hi";
    const Src x = reg(32, 'i'), y = int_src(32);
    const std::string d = fresh(32);
    if (m_rng.chance(1, 2)) {
      traced(std::string("mul24.") + half + "." + type.name + " " + d + ", " + x.text + ", " + y.text + ";", d, 32,
             SlotType::b32, {x, y});
    } else {
      const Src z = int_src(32);
      traced(std::string("mad24.") + half + "." + type.name + " " + d + ", " + x.text + ", " + y.text + ", " + z.text + ";",
             d, 32, SlotType::b32, {x, y, z});
    }
    return;
  }
  const bool mad = m_rng.chance(1, 2);
  const bool wide = form == 4;
  const IntType& type = wide ? pick_int(m_rng, m_rng.chance(1, 2) ? 16 : 32) : pick_int(m_rng);
  const char* half = wide ? "wide" : m_rng.chance(1, 2) ? "lo" : "hi";
  const int dbits = wide ? type.bits * 2 : type.bits;
  const Src x = reg(type.bits, 'i'), y = int_src(type.bits);
  const std::string d = fresh(dbits);
  std::string line = std::string(mad ? "mad." : "mul.") + half + "." + type.name + " " + d + ", " + x.text + ", " + y.text;
  std::vector<Src> sources{x, y};
  if (mad) {
    const Src z = int_src(dbits);
    line += ", " + z.text;
    sources.push_back(z);
  }
  traced(line + ";", d, dbits, bits_type(dbits), sources);
}

void Builder::op_int_div()
{
  // The divisor is made safe by traced instructions: 0 (and -1 for signed types, which would
  // divide INT_MIN by -1) becomes 7.
  const IntType& type = pick_int(m_rng);
  const Src x = int_src(type.bits), y = reg(type.bits, 'i');
  const std::string zero = fresh(1);
  traced("setp.eq." + b(type.bits) + " " + zero + ", " + y.text + ", 0;", zero, 1, SlotType::pred, {y}, false);
  Src bad = pool(1).back().name == zero ? Src{zero, pool(1).back().slot} : Src{};
  if (type.is_signed) {
    const std::string minus = fresh(1);
    traced("setp.eq.or." + b(type.bits) + " " + minus + ", " + y.text + ", -1, " + zero + ";", minus, 1, SlotType::pred,
           {y, bad}, false);
    bad = Src{minus, pool(1).back().slot};
  }
  const std::string divisor = fresh(type.bits);
  traced("selp." + b(type.bits) + " " + divisor + ", 7, " + y.text + ", " + bad.text + ";", divisor, type.bits,
         bits_type(type.bits), {y, bad}, false);
  const Src safe{divisor, pool(type.bits).back().slot};
  const std::string d = fresh(type.bits);
  const char* op = m_rng.chance(1, 2) ? "div" : "rem";
  traced(std::string(op) + "." + type.name + " " + d + ", " + x.text + ", " + safe.text + ";", d, type.bits,
         bits_type(type.bits), {x, safe});
}

void Builder::op_int_minmax()
{
  const size_t form = m_rng.below(5);
  if (form == 4) { // abs / neg
    const IntType& type = k_int_types[1 + 2 * m_rng.below(3)];
    const Src x = reg(type.bits, 'i');
    const std::string d = fresh(type.bits);
    traced(std::string(m_rng.chance(1, 2) ? "abs." : "neg.") + type.name + " " + d + ", " + x.text + ";", d, type.bits,
           bits_type(type.bits), {x});
    return;
  }
  const IntType& type = pick_int(m_rng);
  const bool relu = type.bits == 32 && type.is_signed && m_rng.chance(1, 3);
  const Src x = reg(type.bits, 'i'), y = int_src(type.bits);
  const std::string d = fresh(type.bits);
  traced(std::string(m_rng.chance(1, 2) ? "min" : "max") + (relu ? ".relu." : ".") + type.name + " " + d + ", " + x.text +
             ", " + y.text + ";",
         d, type.bits, bits_type(type.bits), {x, y});
}

void Builder::op_int_logic()
{
  const int bits = 16 << m_rng.below(3);
  const size_t op = m_rng.below(5);
  const Src x = reg(bits, 'i');
  const std::string d = fresh(bits);
  if (op >= 3) {
    traced(std::string(op == 3 ? "not." : "cnot.") + b(bits) + " " + d + ", " + x.text + ";", d, bits, bits_type(bits), {x});
    return;
  }
  static const char* const k_ops[] = {"and", "or", "xor"};
  const Src y = int_src(bits);
  traced(std::string(k_ops[op]) + "." + b(bits) + " " + d + ", " + x.text + ", " + y.text + ";", d, bits, bits_type(bits),
         {x, y});
}

void Builder::op_int_shift()
{
  const int bits = 16 << m_rng.below(3);
  const size_t op = m_rng.below(4);
  static const char* const k_kinds[] = {"b", "u", "s"};
  const std::string type = op == 0 ? "shl." + b(bits) : std::string("shr.") + k_kinds[op - 1] + dec(bits);
  const Src x = reg(bits, 'i'), amount = small_src(bits + 8);
  const std::string d = fresh(bits);
  traced(type + " " + d + ", " + x.text + ", " + amount.text + ";", d, bits, bits_type(bits), {x, amount});
}

void Builder::op_int_bitfield()
{
  const int bits = m_rng.chance(1, 2) ? 32 : 64;
  const Src pos = small_src(bits + 4), len = small_src(bits + 4);
  const std::string d = fresh(bits);
  if (m_rng.chance(1, 2)) {
    const char* kind = m_rng.chance(1, 2) ? "u" : "s";
    const Src x = reg(bits, 'i');
    traced("bfe." + std::string(kind) + dec(bits) + " " + d + ", " + x.text + ", " + pos.text + ", " + len.text + ";", d,
           bits, bits_type(bits), {x, pos, len});
    return;
  }
  const Src f = int_src(bits), x = reg(bits, 'i');
  traced("bfi." + b(bits) + " " + d + ", " + f.text + ", " + x.text + ", " + pos.text + ", " + len.text + ";", d, bits,
         bits_type(bits), {f, x, pos, len});
}

void Builder::op_int_bitcount()
{
  const int bits = m_rng.chance(1, 2) ? 32 : 64;
  const Src x = reg(bits, 'i');
  const size_t op = m_rng.below(4);
  if (op == 0) {
    const std::string d = fresh(bits);
    traced("brev." + b(bits) + " " + d + ", " + x.text + ";", d, bits, bits_type(bits), {x});
    return;
  }
  const std::string d = fresh(32);
  if (op == 3) {
    const char* kind = m_rng.chance(1, 2) ? "u" : "s";
    const char* shiftamt = m_rng.chance(1, 2) ? ".shiftamt" : "";
    traced(std::string("bfind") + shiftamt + "." + kind + dec(bits) + " " + d + ", " + x.text + ";", d, 32, SlotType::b32,
           {x});
    return;
  }
  traced(std::string(op == 1 ? "popc." : "clz.") + b(bits) + " " + d + ", " + x.text + ";", d, 32, SlotType::b32, {x});
}

void Builder::op_int_perm()
{
  const size_t op = m_rng.below(3);
  const Src x = reg(32, 'i'), y = int_src(32);
  const std::string d = fresh(32);
  if (op == 0) {
    static const char* const k_modes[] = {"", "", ".f4e", ".b4e", ".rc8", ".ecl", ".ecr", ".rc16"};
    const Src selector = int_src(32);
    traced(std::string("prmt.b32") + k_modes[m_rng.below(std::size(k_modes))] + " " + d + ", " + x.text + ", " + y.text +
               ", " + selector.text + ";",
           d, 32, SlotType::b32, {x, y, selector});
  } else if (op == 1) {
    const Src z = int_src(32);
    traced("lop3.b32 " + d + ", " + x.text + ", " + y.text + ", " + z.text + ", " + hex(m_rng.below(256)) + ";", d, 32,
           SlotType::b32, {x, y, z});
  } else {
    const Src amount = small_src(40);
    traced(std::string("shf.") + (m_rng.chance(1, 2) ? "l" : "r") + (m_rng.chance(1, 2) ? ".wrap" : ".clamp") + ".b32 " + d +
               ", " + x.text + ", " + y.text + ", " + amount.text + ";",
           d, 32, SlotType::b32, {x, y, amount});
  }
}

void Builder::op_int_dot()
{
  const char* a = m_rng.chance(1, 2) ? "u32" : "s32";
  const char* bt = m_rng.chance(1, 2) ? "u32" : "s32";
  const Src x = reg(32, 'i'), y = reg(32, 'i'), z = int_src(32);
  const std::string d = fresh(32);
  if (m_rng.chance(1, 2)) {
    traced(std::string("dp4a.") + a + "." + bt + " " + d + ", " + x.text + ", " + y.text + ", " + z.text + ";", d, 32,
           SlotType::b32, {x, y, z});
  } else {
    traced(std::string("dp2a.") + (m_rng.chance(1, 2) ? "lo." : "hi.") + a + "." + bt + " " + d + ", " + x.text + ", " +
               y.text + ", " + z.text + ";",
           d, 32, SlotType::b32, {x, y, z});
  }
}

void Builder::op_carry_chain()
{
  // A chain of one kind (add, sub or mad: mixing carry and borrow is left alone) and one width;
  // the signedness varies per instruction. Nothing between them writes the carry flag.
  const int bits = m_rng.chance(1, 2) ? 32 : 64;
  const size_t kind = m_rng.below(3);
  const int length = 1 + static_cast<int>(m_rng.below(3));
  for (int i = 0; i <= length; ++i) {
    const char* type = m_rng.chance(1, 2) ? (bits == 32 ? "u32" : "u64") : (bits == 32 ? "s32" : "s64");
    const bool first = i == 0, last = i == length;
    std::string op;
    if (kind == 0) {
      op = first ? "add.cc" : last ? "addc" : "addc.cc";
    } else if (kind == 1) {
      op = first ? "sub.cc" : last ? "subc" : "subc.cc";
    } else {
      const char* half = m_rng.chance(1, 2) ? "lo" : "hi";
      op = std::string(first ? "mad." : "madc.") + half + (first || !last ? ".cc" : "");
    }
    if (last && m_rng.chance(1, 3) && kind != 2) {
      op += ".cc"; // a chain may end in a carry-out nobody reads
    }
    const Src x = reg(bits, 'i'), y = int_src(bits);
    const std::string d = fresh(bits);
    std::string line = op + "." + type + " " + d + ", " + x.text + ", " + y.text;
    std::vector<Src> sources{x, y};
    if (kind == 2) {
      const Src z = int_src(bits);
      line += ", " + z.text;
      sources.push_back(z);
    }
    if (!first) { // the carry flag is not traced: its maker stands for it
      m_control.push_back(pool(bits).back().slot);
    }
    traced(line + ";", d, bits, bits_type(bits), sources, false);
    if (!first) {
      m_control.pop_back();
    }
  }
}

} // namespace d4r::ptxgen
