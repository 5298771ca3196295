// Issue 11's integer "could: TODO" forms, now lowered: add/min/max on .u16x2/.s16x2 (min/max
// .relu on .s16x2), mad.hi.sat.s32 (lower_arith.cpp, lower_int_pack.cpp), szext
// (lower_int_pack.cpp), fns and lop3 with a predicate output (lower_bits.cpp), and vmad (lower_video.cpp). Each form
// translates for the host, gfx1100 and gfx1201; the forms outside the ISA (or that ptxas rejects)
// are "unsupported"; the executor's results equal a reference written from the ISA pseudo-code
// (fns's loop as the ISA spells it, szext, the packed halves, lop3's p = (d != 0) BoolOp q) on
// edge and random inputs, and vmad equals values an NVIDIA H200 wrote (video_extra.cu). The
// golden cases intm_* (tests/ptx/isa/int_more.cu) compare every form with an H200.

#include "compiler/cpu/executor.hpp"
#include "tests/unit/test_compiler_translate_host_run.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

const char* const k_accepted[] = {
    "  add.u16x2 %r1, %r2, %r3;",
    "  add.s16x2 %r1, %r2, %r3;",
    "  min.u16x2 %r1, %r2, %r3;",
    "  min.s16x2 %r1, %r2, %r3;",
    "  max.u16x2 %r1, %r2, %r3;",
    "  max.s16x2 %r1, %r2, %r3;",
    "  min.relu.s16x2 %r1, %r2, %r3;",
    "  max.s16x2.relu %r1, %r2, %r3;",
    "  mad.hi.sat.s32 %r1, %r2, %r3, %r4;",
    "  fns.b32 %r1, %r2, %r3, %r4;",
    "  fns.b32 %r1, 0xaaaaaaaa, 3, -1;",
    "  szext.clamp.s32 %r1, %r2, %r3;",
    "  szext.wrap.u32 %r1, 0xffffffff, 0;",
    "  lop3.b32 %r1, %r2, %r3, %r4, 0x96;",
    "  lop3.and.b32 %r1|%p1, %r2, %r3, %r4, 0x80, %p2;",
    "  lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x96, !%p2;",
    "  lop3.or.b32 _|%p1, %r2, %r3, %r4, 0x01, %p2;",
    "  vmad.u32.u32.u32 %r1, %r2, %r3, %r4;",
    "  vmad.s32.u32.s32.po.sat.shr7 %r1, %r2.b1, %r3.h1, %r4;",
    "  vmad.s32.s32.s32.sat.shr15 %r1, -%r2.h0, %r3, %r4;",
    "  vmad.s32.s32.s32 %r1, -%r2, -%r3, %r4;",
    "  vmad.u32.u32.u32.sat %r1, %r2, %r3, -%r4;",
    "  vmad.s32.s32.s32 %r1, %r2.h1, -7, 5;",
};

// The first token of each must be the spelling reported as unsupported.
const char* const k_rejected[] = {
    "  sub.u16x2 %r1, %r2, %r3;",        // no packed sub in the ISA (ptxas rejects it)
    "  add.sat.s16x2 %r1, %r2, %r3;",    // .sat is add.s32's alone
    "  max.relu.u16x2 %r1, %r2, %r3;",   // .relu is .s16x2/.s32 only
    "  min.u16x2.s16x2 %r1, %r2, %r3;",  // two types
    "  mul.lo.u16x2 %r1, %r2, %r3;",
    "  mad.lo.sat.s32 %r1, %r2, %r3, %r4;",
    "  mad.hi.sat.u32 %r1, %r2, %r3, %r4;",
    "  mul.hi.sat.s32 %r1, %r2, %r3;",
    "  fns.b64 %r1, %rd3, %r3, %r4;",
    "  szext.s32 %r1, %r2, %r3;",        // the mode is required
    "  szext.clamp.wrap.u32 %r1, %r2, %r3;",
    "  szext.clamp.b32 %r1, %r2, %r3;",
    "  lop3.xor.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2;",
    "  lop3.and.or.b32 %r1|%p1, %r2, %r3, %r4, 0x96, %p2;",
    "  vmad.s32.s32.s32.po %r1, -%r2, %r3, %r4;",     // ptxas: .po with a negation
    "  vmad.s32.s32.s32 %r1, -%r2, %r3, -%r4;",       // ptxas: -c with a negated product
    "  vmad.s32.s32.s32.shr7.shr15 %r1, %r2, %r3, %r4;",
    "  vmad.s32.s32.s32.add %r1, %r2, %r3, %r4;",
    "  vmad.s32.s32 %r1, %r2, %r3, %r4;",
    "  vmad.s32.s32.s32 %r1, %r2.h2, %r3, %r4;",
};

std::string spelling(const std::string& body)
{
  size_t start = body.find_first_not_of(' ');
  size_t end = body.find_first_of(" ;", start);
  return body.substr(start, end - start);
}

TEST(TranslateIntMore, FormsTranslateForEveryTarget)
{
  for (const char* body : k_accepted) {
    for (const TranslateOptions& options :
         {host_options(), amdgpu_options("gfx1100"), amdgpu_options("gfx1201")}) {
      Expected<Translation> translation = translate_text(kernel_text(body), options);
      ASSERT_TRUE(translation.has_value())
          << body << " (" << options.processor << "): " << translation.error().message;
      EXPECT_EQ(verify_text(*translation->module), "") << body;
    }
  }
}

TEST(TranslateIntMore, FormsOutsideTheIsaAreUnsupported)
{
  for (const char* body : k_rejected) {
    Expected<Translation> translation = translate_text(kernel_text(body), host_options());
    ASSERT_FALSE(translation.has_value()) << body;
    EXPECT_EQ(translation.error().message,
              "translate: kernel k: unsupported: " + spelling(body) + " at line 14")
        << body;
  }
}

// lop3 with a predicate output needs d|p; without BoolOp, one destination.
TEST(TranslateIntMore, Lop3DestinationShapeIsChecked)
{
  for (const char* body : {"  lop3.and.b32 %r1, %r2, %r3, %r4, 0x80, %p2;",
                           "  lop3.b32 %r1|%p1, %r2, %r3, %r4, 0x80;"}) {
    Expected<Translation> translation = translate_text(kernel_text(body), host_options());
    ASSERT_FALSE(translation.has_value()) << body;
    EXPECT_NE(translation.error().message.find("lop3"), std::string::npos)
        << translation.error().message;
  }
}

// One thread per input triple (a, b, c) from `in`; each stores the results of `forms` (PTX lines
// over %r1 = a, %r2 = b, %r3 = c, writing %r4; %p1 = (a ^ b ^ c) & 0x100 != 0) as `count` words.
std::vector<uint32_t> run_forms(const std::vector<std::string>& forms,
                                const std::vector<uint32_t>& in)
{
  std::string body = "  mov.u32 %r5, %tid.x;\n"
                     "  mul.wide.u32 %rd3, %r5, 12;\n"
                     "  add.s64 %rd4, %rd2, %rd3;\n"
                     "  ld.global.u32 %r1, [%rd4];\n"
                     "  ld.global.u32 %r2, [%rd4+4];\n"
                     "  ld.global.u32 %r3, [%rd4+8];\n"
                     "  xor.b32 %r6, %r1, %r2;\n"
                     "  xor.b32 %r6, %r6, %r3;\n"
                     "  and.b32 %r6, %r6, 256;\n"
                     "  setp.ne.u32 %p1, %r6, 0;\n"
                     "  mul.wide.u32 %rd5, %r5, " +
                     std::to_string(4 * forms.size()) +
                     ";\n"
                     "  add.s64 %rd6, %rd1, %rd5;\n";
  for (size_t i = 0; i < forms.size(); ++i) {
    body += "  mov.u32 %r4, 0;\n  " + forms[i] + "\n  st.global.u32 [%rd6+" +
            std::to_string(4 * i) + "], %r4;\n";
  }
  const size_t threads = in.size() / 3;
  std::vector<uint32_t> out(threads * forms.size(), 0xdeadbeefU);
  std::unique_ptr<cpu::Executor> executor = host_executor(kernel_text(body));
  if (!executor) {
    return {};
  }
  Expected<cpu::LaunchStats> r = executor->launch(
      "k", cpu::LaunchShape{{1, 1, 1}, {static_cast<uint32_t>(threads), 1, 1}, 0},
      pointer_params(out.data(), in.data()));
  EXPECT_TRUE(r.has_value()) << (r ? "" : r.error().message);
  return out;
}

// Edge words (0, 1, -1, INT_MIN/MAX, 0x8000/0x7fff halves, widths around 32) crossed, with c
// from small offsets and edges, then random triples.
std::vector<uint32_t> triples()
{
  const uint32_t edges[] = {0,           1,           2,           0x7fffU,     0x8000U,
                            0xffffU,     0x10000U,    0x7fffffffU, 0x80000000U, 0xffffffffU,
                            0x80008000U, 0x7fff7fffU, 0x00018000U, 0xaaaaaaaaU, 31,
                            32,          33,          63,          0x12345678U, 0x80007fffU};
  const uint32_t cs[] = {0, 1, 0xffffffffU, 2, 0xfffffffeU, 5, 0xfffffffbU, 31, 32, 33,
                         0xffffffe0U, 0x7fffffffU, 0x80000000U, 0xffff8000U, 0x12345678U};
  std::vector<uint32_t> in;
  size_t k = 0;
  for (uint32_t a : edges) {
    for (uint32_t b : edges) {
      in.insert(in.end(), {a, b, cs[k++ % std::size(cs)]});
    }
  }
  std::mt19937 random(1234);
  for (int i = 0; i < 240; ++i) {
    const uint32_t a = static_cast<uint32_t>(random());
    const uint32_t b = static_cast<uint32_t>(random());
    const uint32_t c = static_cast<uint32_t>(random());
    // Sparse masks for fns every other row, small offsets -40..40 in two rows of three.
    in.insert(in.end(), {i % 2 == 0 ? a : a & 0x90240811U, b, i % 3 == 0 ? c : c % 81 - 40});
  }
  return in;
}

// fns as the ISA's pseudo-code spells it (the loop), base in 0..31; except that an offset of
// INT_MIN gives 0, as on an H200 (golden intm_edges).
uint32_t fns_reference(uint32_t mask, uint32_t base, int32_t offset)
{
  if (offset == INT32_MIN) {
    return 0;
  }
  uint32_t d = 0xffffffffU;
  if (offset == 0) {
    return ((mask >> base) & 1) != 0 ? base : d;
  }
  int64_t pos = base;
  int64_t count = (offset < 0 ? -int64_t{offset} : int64_t{offset}) - 1;
  const int inc = offset > 0 ? 1 : -1;
  while (pos >= 0 && pos < 32) {
    if (((mask >> pos) & 1) != 0) {
      if (count == 0) {
        return static_cast<uint32_t>(pos);
      }
      --count;
    }
    pos += inc;
  }
  return d;
}

uint32_t szext_reference(uint32_t a, uint32_t b, bool clamp, bool is_signed)
{
  uint32_t b1 = b & 0x1f;
  bool too_large = b >= 32 && clamp;
  uint32_t mask = too_large ? 0 : ~0U << b1;
  uint32_t sign_pos = (b1 - 1) & 0x1f;
  bool sign = !(b1 == 0 || too_large || !is_signed) && ((a >> sign_pos) & 1) != 0;
  return (a & ~mask) | (sign ? mask : 0);
}

// d[i] = op(a[i], b[i]) on the two halves, as 16-bit numbers of the type.
template <typename F> uint32_t halves(uint32_t a, uint32_t b, bool is_signed, F op)
{
  uint32_t d = 0;
  for (int i = 0; i < 2; ++i) {
    int32_t x = static_cast<int32_t>((a >> (16 * i)) & 0xffff);
    int32_t y = static_cast<int32_t>((b >> (16 * i)) & 0xffff);
    if (is_signed) {
      x = static_cast<int16_t>(x);
      y = static_cast<int16_t>(y);
    }
    d |= (static_cast<uint32_t>(op(x, y)) & 0xffff) << (16 * i);
  }
  return d;
}

uint32_t lop3_reference(uint32_t a, uint32_t b, uint32_t c, uint32_t lut)
{
  uint32_t d = 0;
  for (int bit = 0; bit < 32; ++bit) {
    uint32_t i = (((a >> bit) & 1) << 2) | (((b >> bit) & 1) << 1) | ((c >> bit) & 1);
    d |= ((lut >> i) & 1) << bit;
  }
  return d;
}

TEST(TranslateIntMore, ExecutorMatchesTheIsaReference)
{
  const std::vector<std::string> forms = {
      "add.u16x2 %r4, %r1, %r2;",
      "add.s16x2 %r4, %r1, %r2;",
      "min.u16x2 %r4, %r1, %r2;",
      "min.s16x2 %r4, %r1, %r2;",
      "max.u16x2 %r4, %r1, %r2;",
      "max.s16x2 %r4, %r1, %r2;",
      "min.relu.s16x2 %r4, %r1, %r2;",
      "max.relu.s16x2 %r4, %r1, %r2;",
      "mad.hi.sat.s32 %r4, %r1, %r2, %r3;",
      "and.b32 %r7, %r2, 31;\n  fns.b32 %r4, %r1, %r7, %r3;",
      "szext.clamp.s32 %r4, %r1, %r2;",
      "szext.wrap.s32 %r4, %r1, %r2;",
      "and.b32 %r7, %r2, 63;\n  szext.clamp.u32 %r4, %r1, %r7;",
      "and.b32 %r7, %r2, 63;\n  szext.wrap.s32 %r4, %r1, %r7;",
      "lop3.and.b32 %r4|%p2, %r1, %r2, %r3, 0x80, %p1;\n  selp.u32 %r4, 1, 0, %p2;",
      "lop3.or.b32 %r4|%p2, %r1, %r2, %r3, 0xfe, !%p1;\n  selp.u32 %r4, 1, 0, %p2;",
      "lop3.and.b32 %r4|%p2, %r1, %r2, %r3, 0xe8, !%p1;",
  };
  const std::vector<uint32_t> in = triples();
  const std::vector<uint32_t> out = run_forms(forms, in);
  ASSERT_EQ(out.size(), in.size() / 3 * forms.size());
  for (size_t t = 0; t < in.size() / 3; ++t) {
    const uint32_t a = in[3 * t];
    const uint32_t b = in[3 * t + 1];
    const uint32_t c = in[3 * t + 2];
    const bool q = ((a ^ b ^ c) & 0x100) != 0;
    const int64_t high = (int64_t{static_cast<int32_t>(a)} * static_cast<int32_t>(b)) >> 32;
    const int64_t mad = std::clamp<int64_t>(high + static_cast<int32_t>(c), INT32_MIN, INT32_MAX);
    auto relu = [](int32_t v) { return std::max(v, 0); };
    const uint32_t want[] = {
        halves(a, b, false, [](int32_t x, int32_t y) { return x + y; }),
        halves(a, b, true, [](int32_t x, int32_t y) { return x + y; }),
        halves(a, b, false, [](int32_t x, int32_t y) { return std::min(x, y); }),
        halves(a, b, true, [](int32_t x, int32_t y) { return std::min(x, y); }),
        halves(a, b, false, [](int32_t x, int32_t y) { return std::max(x, y); }),
        halves(a, b, true, [](int32_t x, int32_t y) { return std::max(x, y); }),
        halves(a, b, true, [&](int32_t x, int32_t y) { return relu(std::min(x, y)); }),
        halves(a, b, true, [&](int32_t x, int32_t y) { return relu(std::max(x, y)); }),
        static_cast<uint32_t>(mad),
        fns_reference(a, b & 31, static_cast<int32_t>(c)),
        szext_reference(a, b, true, true),
        szext_reference(a, b, false, true),
        szext_reference(a, b & 63, true, false),
        szext_reference(a, b & 63, false, true),
        (lop3_reference(a, b, c, 0x80) != 0 && q) ? 1U : 0U,
        (lop3_reference(a, b, c, 0xfe) != 0 || !q) ? 1U : 0U,
        lop3_reference(a, b, c, 0xe8),
    };
    for (size_t f = 0; f < forms.size(); ++f) {
      EXPECT_EQ(out[t * forms.size() + f], want[f])
          << forms[f] << " a=" << std::hex << a << " b=" << b << " c=" << c;
    }
  }
}

// The 14 vmad forms of tests/ptx/isa/video_extra.cu and what an NVIDIA H200 wrote for them on
// nine of its inputs (video_extra_edges rows 43, 96, 107, 130, 200; video_extra_random rows 0,
// 1, 2, 5): the rows where the ISA pseudo-code and the H200 disagree most (lower_vmad).
struct VmadRow {
  uint32_t in[3];
  uint32_t out[14];
};

const VmadRow k_vmad_h200[] = {
    {{0x8000ffffU, 0xffffffffU, 0x00000001U},
     {0x7fff0002U, 0x7fff0002U, 0x7fff0002U, 0x7fff0002U, 0x7fff0002U, 0x7fff0002U, 0x00fffe00U,
      0x0000fffeU, 0x00000000U, 0x000001fcU, 0x7fff0003U, 0x7fff8002U, 0xffffffffU, 0x00000002U}},
    {{0x80ff7f01U, 0x01010101U, 0x80000000U},
     {0x807f8001U, 0x807f8001U, 0x807f8001U, 0x80000000U, 0x80000000U, 0x00000000U, 0xfd00ff00U,
      0xfffd00ffU, 0xffff00ffU, 0xffffffffU, 0x807f8002U, 0x00000000U, 0xffffffffU, 0xff7f7f7fU}},
    {{0x8000ffffU, 0x01010101U, 0x80000000U},
     {0xfffffeffU, 0xfffffeffU, 0xfffffeffU, 0x80000000U, 0x80000000U, 0x00000000U, 0xfffffffdU,
      0x00ffffffU, 0xfffeffffU, 0xffffffffU, 0xffffff00U, 0x00000000U, 0xffffffffU, 0x80000000U}},
    {{0xffffffffU, 0xff00ff00U, 0xffffffffU},
     {0x00ff00ffU, 0x00ff00ffU, 0x00ff00ffU, 0x00ff00ffU, 0x00ff00ffU, 0x00ff00ffU, 0x0001fe01U,
      0x000001feU, 0x00000000U, 0x000001fcU, 0x00ff0100U, 0xfeff0100U, 0x00000000U, 0x00ff00ffU}},
    {{0xff00ff00U, 0x0000001fU, 0xffff8000U},
     {0xe11e6100U, 0xe11e6100U, 0xe11e6100U, 0xe11e6100U, 0xe11e6100U, 0x00000000U, 0xffc23cc2U,
      0xffffc23cU, 0xffffffffU, 0xffffffffU, 0xe11e6101U, 0x00000000U, 0xffffffffU, 0xffff7fe1U}},
    {{0x8166f2c9U, 0xe6648cebU, 0xacc52347U},
     {0x2f8fedcaU, 0x2f8fedcaU, 0x2f8fedcaU, 0x7fffffffU, 0x7fffffffU, 0xffffffffU, 0xbc5f1fdbU,
      0xa3bc5f1fU, 0xffff5c2fU, 0xffffffffU, 0x2f8fedcbU, 0x21395320U, 0xffffffffU, 0x7fffffffU}},
    {{0x76f0e00eU, 0xf5581c48U, 0xdb048a66U},
     {0x12151656U, 0x12151656U, 0x12151656U, 0x80000000U, 0x80000000U, 0x00000000U, 0xa0242a2cU,
      0x2ca0242aU, 0xffffb8b1U, 0xffffffffU, 0x12151657U, 0x4d011ce7U, 0x517ba31eU, 0x7fffffffU}},
    {{0x8f22d358U, 0xe4e59d8bU, 0xa0b6d394U},
     {0x21f48c5cU, 0x21f48c5cU, 0x21f48c5cU, 0x7fffffffU, 0x7fffffffU, 0xffffffffU, 0x2843e918U,
      0xeb2843e9U, 0xffff4ae2U, 0xffffffffU, 0x21f48c5dU, 0x20b124ffU, 0xffffffffU, 0x7fffffffU}},
    {{0xdbf165c6U, 0xe124cb0eU, 0x219381bcU},
     {0xea531490U, 0xea531490U, 0xea531490U, 0x7fffffffU, 0x7fffffffU, 0xffffffffU, 0x0bd4a629U,
      0x2c0bd4a6U, 0x00002a9dU, 0x0043285fU, 0xea531491U, 0xe30140a1U, 0xffffffffU, 0x80000000U}},
};

TEST(TranslateIntMore, VmadMatchesTheH200)
{
  const std::vector<std::string> forms = {
      "vmad.u32.u32.u32 %r4, %r1, %r2, %r3;",
      "vmad.s32.s32.s32 %r4, %r1, %r2, %r3;",
      "vmad.s32.u32.s32 %r4, %r1, %r2, %r3;",
      "vmad.u32.s32.u32.sat %r4, %r1, %r2, %r3;",
      "vmad.s32.s32.s32.sat %r4, %r1, %r2, %r3;",
      "vmad.u32.u32.u32.sat %r4, %r1, %r2, %r3;",
      "vmad.s32.s32.s32.shr7 %r4, %r1, %r2, %r3;",
      "vmad.u32.u32.u32.shr15 %r4, %r1, %r2, %r3;",
      "vmad.s32.s32.s32.sat.shr15 %r4, %r1.h0, %r2.h1, %r3;",
      "vmad.u32.u32.u32.sat.shr7 %r4, %r1.b0, %r2.b3, %r3;",
      "vmad.s32.s32.s32.po %r4, %r1, %r2, %r3;",
      "vmad.u32.u32.u32.po.sat %r4, %r1.h1, %r2.h1, %r3;",
      "vmad.s32.u32.u32.po.sat.shr7 %r4, %r1, %r2.b2, %r3;",
      "vmad.s32.s32.u32.sat %r4, %r1.b1, %r2, %r3;",
  };
  std::vector<uint32_t> in;
  for (const VmadRow& row : k_vmad_h200) {
    in.insert(in.end(), std::begin(row.in), std::end(row.in));
  }
  const std::vector<uint32_t> out = run_forms(forms, in);
  ASSERT_EQ(out.size(), std::size(k_vmad_h200) * forms.size());
  for (size_t t = 0; t < std::size(k_vmad_h200); ++t) {
    for (size_t f = 0; f < forms.size(); ++f) {
      EXPECT_EQ(out[t * forms.size() + f], k_vmad_h200[t].out[f])
          << forms[f] << " row " << t << std::hex << " a=" << in[3 * t];
    }
  }
}

// The golden kernel (tests/ptx/isa/int_more.sm_90.ptx, nvcc's PTX of every form above) links
// into a code object for gfx1100 and gfx1201, and the packed halves are AMDGPU's packed
// instructions, not two scalar operations each.
TEST(TranslateIntMore, GoldenKernelLinksForAmdgpu)
{
  std::ifstream file(std::string(D4R_TEST_SOURCE_DIR) + "/../tests/ptx/isa/int_more.sm_90.ptx");
  std::stringstream text;
  text << file.rdbuf();
  ASSERT_FALSE(text.str().empty());
  for (const char* target : {"gfx1100", "gfx1201"}) {
    const std::string listing = amdgpu_disassembly(text.str(), target);
    EXPECT_GT(occurrences(listing, "v_pk_add_u16"), 0) << target;
    EXPECT_GT(occurrences(listing, "v_pk_max_i16"), 0) << target;
    EXPECT_GT(occurrences(listing, "v_pk_min_u16"), 0) << target;
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
