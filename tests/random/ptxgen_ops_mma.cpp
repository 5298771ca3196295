// Version 3's warp-level matrix multiply: mma.sync of every type family the translator lowers
// (f16/bf16/tf32/FP8/f64 floats, s8/u8/s4/u4 integers with .satfinite, .b1 with .and/.xor.popc),
// its fragments taken from the register pools, so their values are what other forms produced.
// Each D register is a traced slot that reads other lanes' fragments (Slot::cross).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#warp-level-matrix-instructions-mma

#include "tests/random/ptxgen_builder.hpp"

namespace d4r::ptxgen {

namespace {

struct MmaForm {
  const char* shape;
  const char* types; // .dtype.atype.btype.ctype; "A"/"B" are replaced by an FP8 or int type
  int a, b, c;       // registers per thread (c also d)
  char kind;         // 'f' floats, 'i' integers, 'd' f64 (64-bit registers)
  const char* suffix = "";
};

constexpr MmaForm k_forms[] = {
    {"m16n8k16", ".f32.f16.f16.f32", 4, 2, 4, 'f'},  {"m16n8k16", ".f16.f16.f16.f16", 4, 2, 2, 'f'},
    {"m16n8k16", ".f32.bf16.bf16.f32", 4, 2, 4, 'f'}, {"m16n8k8", ".f32.f16.f16.f32", 2, 1, 4, 'f'},
    {"m16n8k8", ".f32.bf16.bf16.f32", 2, 1, 4, 'f'},  {"m16n8k8", ".f32.tf32.tf32.f32", 4, 2, 4, 'f'},
    {"m16n8k4", ".f32.tf32.tf32.f32", 2, 1, 4, 'f'},  {"m16n8k32", ".f32.A.B.f32", 4, 2, 4, 'f'},
    {"m8n8k4", ".f64.f64.f64.f64", 1, 1, 2, 'd'},     {"m16n8k32", ".s32.A.B.s32", 4, 2, 4, 'i'},
    {"m16n8k16", ".s32.A.B.s32", 2, 1, 4, 'i'},       {"m8n8k16", ".s32.A.B.s32", 1, 1, 2, 'i'},
    {"m16n8k64", ".s32.A4.B4.s32", 4, 2, 4, 'i'},     {"m16n8k32", ".s32.A4.B4.s32", 2, 1, 4, 'i'},
    {"m8n8k32", ".s32.A4.B4.s32", 1, 1, 2, 'i'},      {"m16n8k256", ".s32.b1.b1.s32", 4, 2, 4, 'i', "popc"},
    {"m16n8k128", ".s32.b1.b1.s32", 2, 1, 4, 'i', "popc"}, {"m8n8k128", ".s32.b1.b1.s32", 1, 1, 2, 'i', "popc"},
};

std::string list_of(const std::vector<Src>& regs)
{
  std::string text = "{";
  for (size_t i = 0; i < regs.size(); ++i) {
    text += (i == 0 ? "" : ", ") + regs[i].text;
  }
  return text + "}";
}

} // namespace

std::vector<Src> Builder::fragment(int count, char kind)
{
  std::vector<Src> regs;
  for (int i = 0; i < count; ++i) {
    regs.push_back(reg(kind == 'd' ? 64 : 32, kind == 'd' ? 'f' : kind));
  }
  return regs;
}

void Builder::op_mma()
{
  const MmaForm& form = k_forms[m_rng.below(std::size(k_forms))];
  std::string types = form.types;
  auto pick = [&](const char* marker, const char* const* choices) {
    const size_t at = types.find(marker);
    if (at != std::string::npos) {
      types.replace(at, std::string(marker).size(), choices[m_rng.below(2)]);
    }
  };
  static const char* const k_fp8[] = {"e4m3", "e5m2"};
  static const char* const k_int8[] = {"s8", "u8"};
  static const char* const k_int4[] = {"s4", "u4"};
  if (form.kind == 'f') {
    pick("A", k_fp8);
    pick("B", k_fp8);
  } else {
    pick("A4", k_int4);
    pick("B4", k_int4);
    pick("A", k_int8);
    pick("B", k_int8);
  }
  std::string mods = ".row.col";
  if (form.kind == 'i' && form.suffix[0] == 0 && m_rng.chance(1, 2)) {
    mods += ".satfinite";
  }
  std::string line = std::string("mma.sync.aligned.") + form.shape + mods + types;
  if (form.suffix[0] != 0) {
    line += m_rng.chance(1, 2) ? ".and.popc" : ".xor.popc";
  }
  const char operand_kind = form.kind == 'd' ? 'd' : form.kind;
  const std::vector<Src> a = fragment(form.a, operand_kind), b = fragment(form.b, operand_kind);
  // C of f16 D is f16x2, of f32 D floats, of s32 D integers.
  const std::vector<Src> c = fragment(form.c, operand_kind);
  const int bits = form.kind == 'd' ? 64 : 32;
  const SlotType type = form.kind == 'd'                   ? SlotType::f64
                        : form.kind == 'i'                 ? SlotType::b32
                        : types.starts_with(".f16") ? SlotType::f16x2
                                                           : SlotType::f32;
  std::vector<Src> d;
  for (int i = 0; i < form.c; ++i) {
    d.push_back(Src{fresh(bits), -1});
  }
  line += " " + list_of(d) + ", " + list_of(a) + ", " + list_of(b) + ", " + list_of(c) + ";";
  emit(line);
  std::vector<Src> sources = a;
  sources.insert(sources.end(), b.begin(), b.end());
  sources.insert(sources.end(), c.begin(), c.end());
  for (size_t i = 0; i < d.size(); ++i) {
    traced_cross(line + " (d" + dec(static_cast<int64_t>(i)) + ")", d[i].text, bits, type, sources);
  }
}

} // namespace d4r::ptxgen
