// Float operation families: f32/f64 arithmetic in every IEEE rounding mode with .ftz/.sat,
// min/max (.NaN), abs/neg/copysign, the correctly rounded div/sqrt/rcp, testp, and f16/bf16
// (scalar and x2) arithmetic. The .approx forms (and div.full) are left out: their results are
// the hardware's approximation, which the executor is not specified to reproduce bit for bit.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions

#include "tests/random/ptxgen_builder.hpp"

namespace d4r::ptxgen {

namespace {

const char* rounding(Rng& rng)
{
  static const char* const k_modes[] = {".rn", ".rz", ".rm", ".rp"};
  return k_modes[rng.below(4)];
}

} // namespace

void Builder::op_float_arith()
{
  const bool f64 = m_rng.chance(1, 3);
  const int bits = f64 ? 64 : 32;
  const std::string type = f64 ? ".f64" : ".f32";
  const SlotType slot_type = f64 ? SlotType::f64 : SlotType::f32;
  auto src = [&] { return f64 ? f64_src() : f32_src(); };
  std::string mods = rounding(m_rng);
  if (!f64 && m_rng.chance(1, 3)) {
    mods += ".ftz";
  }
  if (!f64 && m_rng.chance(1, 5)) {
    mods += ".sat";
  }
  const size_t op = m_rng.below(5);
  const Src x = reg(bits, 'f'), y = src();
  const std::string d = fresh(bits);
  if (op >= 3) {
    const Src z = src();
    const char* name = op == 3 || f64 ? "fma" : "mad";
    traced(std::string(name) + mods + type + " " + d + ", " + x.text + ", " + y.text + ", " + z.text + ";", d, bits,
           slot_type, {x, y, z});
    return;
  }
  static const char* const k_ops[] = {"add", "sub", "mul"};
  traced(std::string(k_ops[op]) + mods + type + " " + d + ", " + x.text + ", " + y.text + ";", d, bits, slot_type, {x, y});
}

void Builder::op_float_special()
{
  const bool f64 = m_rng.chance(1, 3);
  const int bits = f64 ? 64 : 32;
  const std::string type = f64 ? ".f64" : ".f32";
  const SlotType slot_type = f64 ? SlotType::f64 : SlotType::f32;
  const std::string ftz = !f64 && m_rng.chance(1, 3) ? ".ftz" : "";
  const Src x = reg(bits, 'f');
  const std::string d = fresh(bits);
  switch (m_rng.below(6)) {
  case 0: { // div, correctly rounded
    const Src y = f64 ? f64_src() : f32_src();
    traced(std::string("div") + rounding(m_rng) + ftz + type + " " + d + ", " + x.text + ", " + y.text + ";", d, bits,
           slot_type, {x, y});
    return;
  }
  case 1:
    traced(std::string(m_rng.chance(1, 2) ? "sqrt" : "rcp") + rounding(m_rng) + ftz + type + " " + d + ", " + x.text + ";",
           d, bits, slot_type, {x});
    return;
  case 2:
  case 3: {
    const std::string nan = !f64 && m_rng.chance(1, 3) ? ".NaN" : "";
    const Src y = f64 ? f64_src() : f32_src();
    traced(std::string(m_rng.chance(1, 2) ? "min" : "max") + ftz + nan + type + " " + d + ", " + x.text + ", " + y.text +
               ";",
           d, bits, slot_type, {x, y});
    return;
  }
  case 4:
    traced(std::string(m_rng.chance(1, 2) ? "abs" : "neg") + ftz + type + " " + d + ", " + x.text + ";", d, bits, slot_type,
           {x});
    return;
  default: {
    const Src y = reg(bits, 'f');
    traced("copysign" + type + " " + d + ", " + x.text + ", " + y.text + ";", d, bits, slot_type, {x, y});
    return;
  }
  }
}

void Builder::op_half_arith()
{
  // f16 and bf16, scalar (16-bit registers) and x2 (32-bit registers). Only round-to-nearest
  // exists for them; bf16 has no .ftz/.sat; fma may add .relu (not with .sat).
  const bool bf16 = m_rng.chance(1, 3);
  const bool x2 = m_rng.chance(1, 2);
  const int bits = x2 ? 32 : 16;
  const std::string type = std::string(bf16 ? ".bf16" : ".f16") + (x2 ? "x2" : "");
  const SlotType slot_type = x2 ? SlotType::f16x2 : bf16 ? SlotType::bf16 : SlotType::f16;
  const Src x = reg(bits, 'f'), y = reg(bits, 'f');
  const std::string d = fresh(bits);
  const size_t op = m_rng.below(5);
  std::string mods = ".rn";
  if (!bf16 && m_rng.chance(1, 3)) {
    mods += ".ftz";
  }
  const bool sat = !bf16 && m_rng.chance(1, 4);
  if (op >= 3) {
    const Src z = reg(bits, 'f');
    if (sat) {
      mods += ".sat";
    } else if (m_rng.chance(1, 4)) {
      mods += ".relu";
    }
    traced("fma" + mods + type + " " + d + ", " + x.text + ", " + y.text + ", " + z.text + ";", d, bits, slot_type, {x, y, z});
    return;
  }
  if (sat) {
    mods += ".sat";
  }
  static const char* const k_ops[] = {"add", "sub", "mul"};
  traced(std::string(k_ops[op]) + mods + type + " " + d + ", " + x.text + ", " + y.text + ";", d, bits, slot_type, {x, y});
}

void Builder::op_testp()
{
  static const char* const k_tests[] = {"finite", "infinite", "number", "notanumber", "normal", "subnormal"};
  const bool f64 = m_rng.chance(1, 3);
  const Src x = reg(f64 ? 64 : 32, 'f');
  const std::string d = fresh(1);
  // Not guarded: the H200 ignores the guard of a testp (tests/random/README.md, "H200 deviations").
  traced(std::string("testp.") + k_tests[m_rng.below(std::size(k_tests))] + (f64 ? ".f64 " : ".f32 ") + d + ", " + x.text +
             ";",
         d, 1, SlotType::pred, {x}, m_version < 2);
}

} // namespace d4r::ptxgen
