// compiler/translate/COVERAGE.md is the translator's coverage table of the PTX ISA 8.x forms that
// sm_50..sm_90 modules use (issue 11). This test keeps it true:
//   - its rows parse (seven cells, a status of yes/partial/no, a lower_*.cpp that exists) and the
//     row and golden counts in its summary line are the table's;
//   - every opcode of the ISA list below has a row, every row's opcode is in that list, and a
//     row's status agrees with the lowering table: yes/partial has find_lowering(opcode), a `no`
//     row has none unless its opcode's lowering declines that form (then its probe shows it);
//   - every golden case a row names exists, was recorded on the H200 (an expected output or a
//     .trap), and its PTX file contains the row's opcode as an instruction;
//   - every instruction row has a probe here: one kernel whose body uses that row's form. A
//     yes/partial probe translates for the host, gfx1100 and gfx1201; a `no` probe does not
//     translate for the host. A partial row may add probes of the forms its notes call rejected,
//     and module-level rows have probes where one kernel can show them.
// A new lowering, or a form that starts or stops translating, fails one of these until the table
// says so.

#include "compiler/cpu/expected_output.hpp"
#include "compiler/translate/lowering.hpp"
#include "tests/unit/test_compiler_translate_support.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace d4r::compiler::translate::test {
namespace {

namespace fs = std::filesystem;

const fs::path k_tests = D4R_TEST_SOURCE_DIR;
const fs::path k_root = k_tests.parent_path();
const fs::path k_table = k_root / "compiler" / "translate" / "COVERAGE.md";

struct Row {
  int line = 0;
  std::string section;
  std::string name;
  std::string types;
  std::string modifiers;
  std::string status;
  std::string where;
  std::string golden;
  std::string notes;
};

std::string trim(const std::string& text)
{
  size_t begin = text.find_first_not_of(" \t");
  size_t end = text.find_last_not_of(" \t");
  return begin == std::string::npos ? std::string() : text.substr(begin, end - begin + 1);
}

// The cells of a table line "| a | b \| c |": split at every '|' not escaped by a backslash.
std::vector<std::string> cells(const std::string& line)
{
  std::vector<std::string> out;
  std::string cell;
  for (size_t i = 1; i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cell += '|';
      ++i;
    } else if (line[i] == '|') {
      out.push_back(trim(cell));
      cell.clear();
    } else {
      cell += line[i];
    }
  }
  return out;
}

// The `quoted` spans of a cell, in order.
std::vector<std::string> quoted(const std::string& cell)
{
  std::vector<std::string> out;
  for (size_t at = cell.find('`'); at != std::string::npos; at = cell.find('`', at + 1)) {
    size_t end = cell.find('`', at + 1);
    if (end == std::string::npos) {
      break;
    }
    out.push_back(cell.substr(at + 1, end - at - 1));
    at = end;
  }
  return out;
}

std::vector<Row> read_table()
{
  std::ifstream file(k_table);
  EXPECT_TRUE(file) << k_table;
  std::vector<Row> rows;
  std::string section;
  std::string line;
  for (int number = 1; std::getline(file, line); ++number) {
    if (line.starts_with("## ")) {
      section = line.substr(3);
    }
    if (!line.starts_with("| ")) {
      continue;
    }
    std::vector<std::string> c = cells(line);
    if (c.size() != 7 || c[0] == "instruction" || c[0].starts_with("---")) {
      EXPECT_TRUE(c.size() == 7 || c.empty())
          << "COVERAGE.md:" << number << ": " << c.size() << " cells";
      continue;
    }
    rows.push_back(Row{number, section, c[0], c[1], c[2], c[3], c[4], c[5], c[6]});
  }
  return rows;
}

// An instruction row names its opcodes in backquotes at the start of its first cell; the
// module-level rows (directives, variables, registers, calls) do not.
bool is_instruction_row(const Row& row)
{
  return row.section != "Module-level features" && row.name.starts_with('`');
}

// The opcodes of an instruction row: "`cp.async.bulk`" -> "cp" (the parser's opcode), one per
// quoted span of the name before any parenthesis.
std::vector<std::string> opcodes(const Row& row)
{
  std::vector<std::string> out;
  for (const std::string& spelling : quoted(row.name.substr(0, row.name.find('(')))) {
    out.push_back(spelling.substr(0, spelling.find('.')));
  }
  return out;
}

// Whether a quoted spelling names a form of its opcode ("cp.async.bulk", "bar.warp.sync") rather
// than the opcode alone, or the name carries a qualifier such as "(half)".
bool names_a_form(const Row& row)
{
  if (row.name.find('(') != std::string::npos) {
    return true;
  }
  for (const std::string& spelling : quoted(row.name)) {
    if (spelling.find('.') != std::string::npos) {
      return true;
    }
  }
  return false;
}

// Every opcode of PTX ISA 8.x that an sm_50..sm_90(a) module can use (the parser's opcode: the
// instruction's first dotted word), from the ISA's instruction chapters.
const std::set<std::string> k_isa_opcodes = {
    // integer, extended precision
    "add", "sub", "mul", "mad", "mul24", "mad24", "sad", "div", "rem", "abs", "neg", "min", "max",
    "popc", "clz", "bfind", "fns", "brev", "bfe", "bfi", "szext", "bmsk", "dp4a", "dp2a", "addc",
    "subc", "madc",
    // float, half
    "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2", "tanh", "testp", "copysign",
    // comparison, logic
    "set", "setp", "selp", "slct", "and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr",
    // data movement and conversion
    "mov", "shfl", "prmt", "ld", "ldu", "st", "multimem", "prefetch", "prefetchu", "applypriority",
    "discard", "createpolicy", "isspacep", "cvta", "cvt", "mapa", "getctarank", "cp", "tensormap",
    "ldmatrix", "stmatrix", "movmatrix", "alloca", "stacksave", "stackrestore",
    // texture, surface
    "tex", "tld4", "txq", "istypep", "suld", "sust", "sured", "suq",
    // control flow
    "bra", "brx", "call", "ret", "exit",
    // synchronization and communication
    "bar", "barrier", "membar", "fence", "atom", "red", "vote", "match", "activemask", "redux",
    "elect", "griddepcontrol", "mbarrier",
    // warp-level matrix
    "mma", "wmma", "wgmma",
    // video
    "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset", "vadd2", "vsub2",
    "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4", "vavrg4", "vabsdiff4",
    "vmin4", "vmax4", "vset4",
    // miscellaneous
    "brkpt", "nanosleep", "pmevent", "trap", "setmaxnreg"};

// One probe: a row's name (its first cell, exactly) and a kernel body (kernel_text's registers:
// %p, %rs b16, %r b32, %f f32, %rd b64 with %rd1/%rd2 the out/in addresses, %fd f64) or a whole
// module (text starting with ".version"). `translates`: whether the host translation must succeed.
struct Probe {
  const char* row;
  const char* text;
  bool translates;
};

const std::string k_mma_operands = " {%f1, %f2, %f3, %f4}, {%r1, %r2, %r3, %r4}, {%r5, %r6}, "
                                   "{%f5, %f6, %f7, %f8};";

// isspacep.param in a .func: which kernel's parameter window it sees is unknown.
const char* const k_isspacep_param_in_func = R"(.version 8.0
.target sm_90
.address_size 64
.func (.param .b32 r) f(.param .b64 a)
{
  .reg .pred %p<2>;
  .reg .b32 %r<2>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [a];
  isspacep.param %p1, %rd1;
  selp.u32 %r1, 1, 0, %p1;
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry k(.param .u64 out)
{
  ret;
}
)";

// A module with one .func and a kernel that calls it (call through .param variables).
const char* const k_call_module = R"(.version 8.0
.target sm_86
.address_size 64
.func (.param .b32 r) twice(.param .b32 a)
{
  .reg .b32 %r<3>;
  ld.param.b32 %r1, [a];
  add.s32 %r2, %r1, %r1;
  st.param.b32 [r], %r2;
  ret;
}
.visible .entry k(.param .u64 out)
{
  .reg .b32 %r<3>;
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [out];
  mov.u32 %r1, 7;
  {
    .param .b32 a0;
    st.param.b32 [a0], %r1;
    .param .b32 r0;
    call.uni (r0), twice, (a0);
    ld.param.b32 %r2, [r0];
  }
  st.global.u32 [%rd1], %r2;
  ret;
}
)";

// A kernel calling an undefined .extern function NAME(.param .b64, .param .b64) -> .b32.
std::string extern_call_module(const std::string& name)
{
  return ".version 8.0\n.target sm_86\n.address_size 64\n"
         ".extern .func (.param .b32 r) " +
         name +
         "(.param .b64 a, .param .b64 b);\n"
         ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
         "  ld.param.u64 %rd1, [out];\n  {\n    .param .b64 a0;\n    st.param.b64 [a0], %rd1;\n"
         "    .param .b64 a1;\n    st.param.b64 [a1], %rd1;\n    .param .b32 r0;\n"
         "    call.uni (r0), " +
         name +
         ", (a0, a1);\n    ld.param.b32 %r1, [r0];\n  }\n"
         "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n";
}

const std::vector<Probe>& probes()
{
  static const std::vector<Probe> k_probes = {
      // integer
      {"`add` (integer)", "add.sat.s32 %r1, %r2, %r3;", true},
      {"`add` (integer)", "add.u16x2 %r1, %r2, %r3;", true},
      {"`sub` (integer)", "sub.s16 %rs1, %rs2, %rs3;", true},
      {"`mul` (integer)", "mul.wide.u32 %rd3, %r2, %r3;", true},
      {"`mad` (integer)", "mad.hi.u64 %rd3, %rd4, %rd5, %rd6;", true},
      {"`mad` (integer)", "mad.hi.sat.s32 %r1, %r2, %r3, %r4;", true},
      {"`mul24`", "mul24.hi.s32 %r1, %r2, %r3;", true},
      {"`mad24`", "mad24.hi.sat.s32 %r1, %r2, %r3, %r4;", true},
      {"`sad`", "sad.u16 %rs1, %rs2, %rs3, %rs4;", true},
      {"`div` (integer)", "div.s64 %rd3, %rd4, %rd5;", true},
      {"`rem`", "rem.u16 %rs1, %rs2, %rs3;", true},
      {"`abs` (integer)", "abs.s16 %rs1, %rs2;", true},
      {"`neg` (integer)", "neg.s64 %rd3, %rd4;", true},
      {"`min` (integer)", "min.relu.s32 %r1, %r2, %r3;", true},
      {"`min` (integer)", "min.relu.s16x2 %r1, %r2, %r3;", true},
      {"`max` (integer)", "max.u64 %rd3, %rd4, %rd5;", true},
      {"`popc`", "popc.b64 %r1, %rd3;", true},
      {"`clz`", "clz.b32 %r1, %r2;", true},
      {"`bfind`", "bfind.shiftamt.s64 %r1, %rd3;", true},
      {"`fns`", "fns.b32 %r1, %r2, %r3, %r4;", true},
      {"`brev`", "brev.b64 %rd3, %rd4;", true},
      {"`bfe`", "bfe.s64 %rd3, %rd4, %r1, %r2;", true},
      {"`bfi`", "bfi.b32 %r1, %r2, %r3, %r4, %r5;", true},
      {"`szext`", "szext.clamp.s32 %r1, %r2, %r3;", true},
      {"`bmsk`", "bmsk.clamp.b32 %r1, %r2, %r3;", true},
      {"`dp4a`", "dp4a.s32.u32 %r1, %r2, %r3, %r4;", true},
      {"`dp2a`", "dp2a.hi.u32.s32 %r1, %r2, %r3, %r4;", true},
      // extended precision
      {"`add.cc`", "add.cc.u32 %r1, %r2, %r3;\n  addc.u32 %r4, %r5, %r6;", true},
      {"`addc`", "addc.cc.s64 %rd3, %rd4, %rd5;", true},
      {"`sub.cc`", "sub.cc.s64 %rd3, %rd4, %rd5;", true},
      {"`subc`", "subc.cc.u32 %r1, %r2, %r3;", true},
      {"`mad.cc`", "mad.hi.cc.s32 %r1, %r2, %r3, %r4;", true},
      {"`madc`", "madc.lo.cc.u64 %rd3, %rd4, %rd5, %rd6;", true},
      // float
      {"`add` (float)", "add.rm.ftz.sat.f32 %f1, %f2, %f3;", true},
      {"`sub` (float)", "sub.rp.f64 %fd1, %fd2, %fd3;", true},
      {"`mul` (float)", "mul.rz.f64 %fd1, %fd2, %fd3;", true},
      {"`fma` (float)", "fma.rn.sat.f32 %f1, %f2, %f3, %f4;", true},
      {"`mad` (float)", "mad.rn.f64 %fd1, %fd2, %fd3, %fd4;", true},
      {"`div` (float)", "div.full.ftz.f32 %f1, %f2, %f3;", true},
      {"`abs` (float)", "abs.f64 %fd1, %fd2;", true},
      {"`neg` (float)", "neg.ftz.f32 %f1, %f2;", true},
      {"`min` (float)", "min.NaN.f32 %f1, %f2, %f3;", true},
      {"`min` (float)", "min.xorsign.abs.f32 %f1, %f2, %f3;", true},
      {"`max` (float)", "max.f64 %fd1, %fd2, %fd3;", true},
      {"`max` (float)", "max.ftz.NaN.xorsign.abs.f32 %f1, %f2, %f3;", true},
      {"`rcp`", "rcp.approx.ftz.f64 %fd1, %fd2;", true},
      {"`sqrt`", "sqrt.rp.f64 %fd1, %fd2;", true},
      {"`rsqrt`", "rsqrt.approx.ftz.f32 %f1, %f2;", true},
      {"`sin`", "sin.approx.ftz.f32 %f1, %f2;", true},
      {"`cos`", "cos.approx.f32 %f1, %f2;", true},
      {"`lg2`", "lg2.approx.ftz.f32 %f1, %f2;", true},
      {"`ex2`", "ex2.approx.f32 %f1, %f2;", true},
      {"`tanh`", "tanh.approx.f32 %f1, %f2;", true},
      {"`testp`", "testp.subnormal.f64 %p1, %fd1;", true},
      {"`copysign`", "copysign.f32 %f1, %f2, %f3;", true},
      // half
      {"`add` (half)", "add.rn.sat.f16 %rs1, %rs2, %rs3;", true},
      {"`add` (half)", "add.bf16x2 %r1, %r2, %r3;", true},
      {"`sub` (half)", "sub.ftz.f16x2 %r1, %r2, %r3;", true},
      {"`mul` (half)", "mul.rn.bf16 %rs1, %rs2, %rs3;", true},
      {"`fma` (half)", "fma.rn.relu.bf16x2 %r1, %r2, %r3, %r4;", true},
      {"`fma` (half)", "fma.rn.oob.relu.bf16x2 %r1, %r2, %r3, %r4;", true},
      {"`neg` (half)", "neg.bf16 %rs1, %rs2;", true},
      {"`abs` (half)", "abs.ftz.f16x2 %r1, %r2;", true},
      {"`min` (half)", "min.ftz.NaN.xorsign.abs.f16 %rs1, %rs2, %rs3;", true},
      {"`max` (half)", "max.NaN.bf16x2 %r1, %r2, %r3;", true},
      {"`ex2` (half)", "ex2.approx.ftz.bf16x2 %r1, %r2;", true},
      {"`tanh` (half)", "tanh.approx.bf16 %rs1, %rs2;", true},
      // comparison and selection
      {"`setp`", "setp.gtu.and.ftz.f32 %p1|%p2, %f1, %f2, !%p3;", true},
      {"`setp`", "setp.lt.and.ftz.f16x2 %p1|%p2, %r1, %r2, !%p3;", true},
      {"`set`", "set.lt.or.f32.u32 %f1, %r1, %r2, %p1;", true},
      {"`set`", "set.lt.f16x2.f16x2 %r1, %r2, %r3;", true},
      {"`selp`", "selp.f16x2 %r1, %r2, %r3, %p1;", true},
      {"`slct`", "slct.f32.s32 %f1, %f2, %f3, %r1;", true},
      // logic and shift
      {"`and`", "and.b16 %rs1, %rs2, %rs3;", true},
      {"`or`", "or.pred %p1, %p2, %p3;", true},
      {"`xor`", "xor.b64 %rd3, %rd4, %rd5;", true},
      {"`not`", "not.pred %p1, %p2;", true},
      {"`cnot`", "cnot.b32 %r1, %r2;", true},
      {"`lop3`", "lop3.b32 %r1, %r2, %r3, %r4, 0x96;", true},
      {"`lop3`", "lop3.or.b32 %r1|%p1, %r2, %r3, %r4, 0x96, !%p2;", true},
      {"`shf`", "shf.r.clamp.b32 %r1, %r2, %r3, %r4;", true},
      {"`shl`", "shl.b64 %rd3, %rd4, %r1;", true},
      {"`shr`", "shr.s16 %rs1, %rs2, %r1;", true},
      // data movement and conversion
      {"`mov`", "mov.b64 {%r1, %r2}, %rd3;", true},
      {"`mov`", "mov.u64 %rd3, out;", true},
      {"`shfl` (without .sync)", "shfl.bfly.b32 %r1|%p1, %r2, 1, 31;", true},
      {"`shfl.sync`", "shfl.sync.bfly.b32 %r1|%p1, %r2, 1, 31, 0xffffffff;", true},
      {"`prmt`", "prmt.b32.rc16 %r1, %r2, %r3, %r4;", true},
      {"`ld`", "ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd2];", true},
      {"`ld`", "ld.relaxed.gpu.global.u32 %r1, [%rd2];", true},
      {"`ld`", "ld.shared::cluster.u32 %r1, [%rd2];", true},
      {"`ld`", "ld.mmio.relaxed.sys.global.u32 %r1, [%rd2];", false},
      {"`ld`",
       ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".reqnctapercluster 2, 1, 1\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [out];\n"
       "  ld.shared::cluster.u32 %r1, [%rd1];\n  st.global.u32 [%rd1], %r1;\n  ret;\n}\n",
       false},
      {"`ldu`", "ldu.global.f64 %fd1, [%rd2];", true},
      {"`st`", "st.release.sys.global.u64 [%rd1], %rd3;", true},
      {"`st`", "st.global.L2::cache_hint.u32 [%rd1], %r1, %rd3;", true},
      {"`st.async`",
       "st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [%rd1], %r1, [%rd2];", false},
      {"`st.async`",
       ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".reqnctapercluster 1, 1, 1\n{\n  .reg .b32 %r<3>;\n  .shared .align 8 .b64 bar;\n"
       "  .shared .align 16 .b8 buf[16];\n  mov.u32 %r1, buf;\n  mov.u32 %r2, bar;\n"
       "  st.async.shared::cluster.mbarrier::complete_tx::bytes.v4.b32 [%r1], {%r1, %r1, %r2, "
       "%r2}, [%r2];\n  ret;\n}\n",
       true},
      {"`multimem.ld_reduce`, `multimem.st`, `multimem.red`",
       "multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd2];", false},
      {"`prefetch`", "prefetch.global.L2::evict_last [%rd2];", true},
      {"`prefetchu`", "prefetchu.L1 [%rd2];", true},
      {"`applypriority`", "applypriority.global.L2::evict_normal [%rd2], 128;", true},
      {"`discard`", "discard.global.L2 [%rd2], 128;", true},
      {"`createpolicy`", "createpolicy.fractional.L2::evict_last.b64 %rd3, 1.0;", true},
      {"`isspacep`", "isspacep.shared %p1, %rd2;", true},
      {"`isspacep`", "isspacep.param::entry %p1, %rd2;", true},
      {"`isspacep`", k_isspacep_param_in_func, false},
      {"`cvta`", "cvta.to.shared.u64 %rd3, %rd2;", true},
      {"`cvta`", "cvta.param.u64 %rd3, %rd2;", true},
      {"`cvt` (integer <-> integer)", "cvt.sat.s16.u64 %rs1, %rd3;", true},
      {"`cvt` (float -> integer)", "cvt.rpi.ftz.sat.s64.f32 %rd3, %f1;", true},
      {"`cvt` (integer -> float)", "cvt.rz.f64.u64 %fd1, %rd3;", true},
      {"`cvt` (integer -> float)", "cvt.rn.sat.f16.s32 %rs1, %r1;", true},
      {"`cvt` (float -> float)", "cvt.rn.relu.satfinite.bf16.f32 %rs1, %f1;", true},
      {"`cvt` (float -> float)", "cvt.rn.bf16.f64 %rs1, %fd1;", true},
      {"`cvt` (.tf32)", "cvt.rna.satfinite.tf32.f32 %r1, %f1;", true},
      {"`cvt` (packed f16x2/bf16x2 from two f32)", "cvt.rz.relu.f16x2.f32 %r1, %f1, %f2;", true},
      {"`cvt` (FP8 e4m3x2/e5m2x2)", "cvt.rn.satfinite.e4m3x2.f32 %rs1, %f1, %f2;", true},
      {"`cvt.pack`", "cvt.pack.sat.s8.s32.b32 %r1, %r2, %r3, %r4;", true},
      {"`mapa`", "mapa.u64 %rd3, %rd2, %r1;", true},
      {"`mapa`",
       ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".reqnctapercluster 2, 1, 1\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [out];\n"
       "  mapa.u64 %rd2, %rd1, 1;\n  st.global.u64 [%rd1], %rd2;\n  ret;\n}\n",
       false},
      {"`getctarank`", "getctarank.u64 %r1, %rd2;", true},
      {"`cp.async`", "cp.async.ca.shared.global [%rd1], [%rd2], 16;", true},
      {"`cp.async`", "cp.async.cg.shared.global.L2::128B [%rd1], [%rd2], 16, %r1;", true},
      {"`cp.async.commit_group`, `cp.async.wait_group`, `cp.async.wait_all`",
       "cp.async.commit_group;\n  cp.async.wait_group 0;\n  cp.async.wait_all;", true},
      {"`cp.async.mbarrier.arrive`", "cp.async.mbarrier.arrive.b64 [%rd1];", true},
      {"`cp.async.bulk`",
       "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1], [%rd2], 16, "
       "[%rd3];",
       true},
      {"`cp.async.bulk`",
       "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
       "[%rd1], [%rd2], 16, [%rd3], %rs1;",
       true},
      {"`cp.async.bulk`",
       ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".reqnctapercluster 2, 1, 1\n{\n  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [out];\n"
       "  cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%rd1], [%rd1], 16, "
       "[%rd1];\n  ret;\n}\n",
       false},
      {"`cp.reduce.async.bulk`",
       "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%rd1], [%rd2], 16;", true},
      {"`cp.reduce.async.bulk`",
       "cp.reduce.async.bulk.global.shared::cta.bulk_group.add.f32 [%rd1], [%rd2], 16;", true},
      {"`cp.reduce.async.bulk`",
       "cp.reduce.async.bulk.global.shared::cta.bulk_group.min.f32 [%rd1], [%rd2], 16;", false},
      {"`cp.async.bulk`",
       "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r1], [%r2], 16, "
       "[%r3];",
       false},
      {"`cp.async.bulk.prefetch`", "cp.async.bulk.prefetch.L2.global [%rd2], 16;", true},
      {"`cp.async.bulk.tensor`",
       "cp.async.bulk.tensor.1d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%rd1], "
       "[%rd2, {%r1}], [%rd3];",
       true},
      {"`cp.async.bulk.tensor`",
       "cp.async.bulk.tensor.2d.global.shared::cta.bulk_group.L2::cache_hint [%rd1, {%r1, %r2}], "
       "[%rd2], %rd3;",
       true},
      {"`cp.async.bulk.tensor`",
       "cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%rd1], "
       "[%rd2, {%r1, %r2, %r3}], [%rd3], {%rs1};",
       true},
      {"`cp.async.bulk.tensor`",
       "cp.async.bulk.tensor.4d.global.shared::cta.im2col_no_offs.bulk_group [%rd1, {%r1, %r2, %r3, %r4}], "
       "[%rd2];",
       true},
      {"`cp.reduce.async.bulk.tensor`",
       "cp.reduce.async.bulk.tensor.1d.global.shared::cta.add.tile.bulk_group [%rd1, {%r1}], "
       "[%rd2];",
       true},
      {"`cp.reduce.async.bulk.tensor`",
       "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col.bulk_group "
       "[%rd1, {%r1, %r2, %r3}], [%rd2];",
       false}, // not a PTX form: reductions take .im2col_no_offs
      {"`cp.reduce.async.bulk.tensor`",
       "cp.reduce.async.bulk.tensor.3d.global.shared::cta.add.im2col_no_offs.bulk_group "
       "[%rd1, {%r1, %r2, %r3}], [%rd2];",
       true},
      {"`cp.async.bulk.prefetch.tensor`",
       "cp.async.bulk.prefetch.tensor.1d.L2.global.tile [%rd2, {%r1}];", true},
      {"`cp.async.bulk.commit_group`, `cp.async.bulk.wait_group`", "cp.async.bulk.wait_group 0;",
       true},
      {"`tensormap.replace`",
       "tensormap.replace.tile.global_address.global.b1024.b64 [%rd1], %rd2;", true},
      {"`tensormap.replace`",
       "tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%rd1], 1, %r2;", true},
      {"`ldmatrix`", "ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%r1, %r2, %r3, %r4}, [%rd2];",
       true},
      {"`stmatrix`", "stmatrix.sync.aligned.m8n8.x1.shared.b16 [%rd1], {%r1};", true},
      {"`movmatrix`", "movmatrix.sync.aligned.m8n8.trans.b16 %r1, %r2;", true},
      {"`alloca`", "alloca.u64 %rd3, %rd4;\n  alloca.u64 %rd5, 16, 64;", true},
      {"`stacksave`, `stackrestore`", "stacksave.u64 %rd3;\n  stackrestore.u64 %rd3;", true},
      // texture and surface
      {"`tex`", "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd3, {%f5, %f6}];", true},
      {"`tex`", "tex.1d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd3, {%f5}];", true},
      {"`tex`", "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd3, {%f5, %f6}], %f7;", true},
      {"`tex`", "tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}|%p1, [%rd3, {%f5, %f6}];", true},
      {"`tex`", "tex.grad.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd3, {%f5, %f6, %f7, %f8}], "
                "{%f5, %f6, %f7, %f8}, {%f5, %f6, %f7, %f8};", true},
      {"`tex`", "tex.2dms.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd3, {%r1, %r2, %r3, %r4}];", false},
      {"`tld4`", "tld4.r.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd3, {%f5, %f6}];", true},
      {"`tld4`", "tld4.r.cube.v4.f32.f32 {%f1, %f2, %f3, %f4}, [%rd3, {%f5, %f6, %f7, %f8}];", true},
      {"`txq`", "txq.width.b32 %r1, [%rd3];", true},
      {"`txq`", "txq.channel_order.b32 %r1, [%rd3];", false},
      {"`istypep`", "istypep.texref %p1, %rd3;", true},
      {"`suld`", "suld.b.2d.v2.b32.trap {%r1, %r2}, [%rd3, {%r3, %r4}];", true},
      {"`suld`", "suld.b.1d.b32.trap {%r1}, [%rd3, {%r3}];", true},
      {"`sust`", "sust.p.2d.v4.b32.zero [%rd3, {%r1, %r2}], {%r3, %r4, %r5, %r6};", true},
      {"`sust`", "sust.b.3d.b32.trap [%rd3, {%r1, %r2, %r3, %r4}], {%r5};", true},
      {"`sust`", "sust.p.2d.b32.zero [%rd3, {%r1, %r2}], {%r3};", true},
      {"`sured`", "sured.b.add.2d.u32.trap [%rd3, {%r1, %r2}], %r3;", true},
      {"`sured`", "sured.p.min.2d.b32.zero [%rd3, {%r1, %r2}], %r3;", true},
      {"`suq`", "suq.width.b32 %r1, [%rd3];", true},
      {"`suq`", "suq.channel_order.b32 %r1, [%rd3];", false},
      // control flow
      {"`bra`", "bra.uni $L1;\n$L1:", true},
      {"`brx.idx`", "ts: .branchtargets $L1, $L2;\n  brx.idx %r1, ts;\n$L1:\n$L2:", true},
      {"`call`", k_call_module, true},
      {"`ret`", "setp.eq.u32 %p1, %r1, 0;\n  @%p1 ret;", true},
      {"`exit`", "setp.eq.u32 %p1, %r1, 0;\n  @%p1 exit;", true},
      // synchronization and communication
      {"`bar`, `barrier`",
       "bar.sync 0;\n  barrier.sync.aligned 2;\n  bar.red.popc.u32 %r1, 1, %p1;", true},
      {"`bar.warp.sync`", "bar.warp.sync 0xffffffff;", true},
      {"`barrier.cluster`", "barrier.cluster.arrive;\n  barrier.cluster.wait;", true},
      {"`barrier.cluster`",
       ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".reqnctapercluster 2, 1, 1\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [out];\n"
       "  barrier.cluster.arrive;\n  barrier.cluster.wait;\n  ret;\n}\n",
       false},
      {"`membar`, `fence`", "membar.gl;\n  fence.acq_rel.cluster;", true},
      {"`membar`, `fence`", "fence.proxy.alias;\n  membar.proxy.alias;", true},
      {"`membar`, `fence`",
       "fence.acquire.sync_restrict::shared::cluster.cluster;\n  "
       "fence.proxy.async::generic.release.sync_restrict::shared::cta.cluster;",
       true},
      {"`atom`", "atom.global.cas.b64 %rd3, [%rd1], %rd4, %rd5;", true},
      {"`atom`", "atom.relaxed.sys.global.add.f64 %fd1, [%rd1], %fd2;", true},
      {"`atom`", "atom.global.cas.b16 %rs1, [%rd1], %rs2, %rs3;", true},
      {"`atom`", "atom.shared::cluster.add.u32 %r1, [%rd1], %r2;", true},
      {"`atom`",
       ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".reqnctapercluster 2, 1, 1\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<3>;\n"
       "  ld.param.u64 %rd1, [out];\n  atom.shared::cluster.add.u32 %r1, [%rd1], 1;\n"
       "  st.global.u32 [%rd1], %r1;\n  ret;\n}\n",
       false},
      {"`red`", "red.global.add.noftz.bf16x2 [%rd1], %r1;", true},
      {"`red.async`",
       "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32 [%rd1], "
       "%r1, [%rd2];",
       false},
      {"`red.async`",
       ".version 8.1\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".reqnctapercluster 1, 1, 1\n{\n  .reg .b32 %r<3>;\n  .shared .align 8 .b64 bar;\n"
       "  .shared .align 4 .b32 word;\n  mov.u32 %r1, word;\n  mov.u32 %r2, bar;\n"
       "  red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.inc.u32 [%r1], "
       "%r2, [%r2];\n  ret;\n}\n",
       true},
      {"`vote`", "vote.sync.uni.pred %p1, !%p2, 0xffffffff;\n  vote.ballot.b32 %r1, %p1;", true},
      {"`match`", "match.all.sync.b64 %r1|%p1, %rd3, 0xffffffff;", true},
      {"`activemask`", "activemask.b32 %r1;", true},
      {"`redux`", "redux.sync.xor.b32 %r1, %r2, 0xffffffff;", true},
      {"`elect`", "elect.sync %r1|%p1, 0xffffffff;", true},
      {"`griddepcontrol`", "griddepcontrol.wait;", true},
      {"`mbarrier`", "mbarrier.init.shared.b64 [%rd1], 32;", true},
      {"`mbarrier`",
       ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".reqnctapercluster 2, 1, 1\n{\n  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [out];\n"
       "  mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%rd1];\n  ret;\n}\n",
       false},
      {"`tensormap.cp_fenceproxy`",
       "tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu.sync.aligned "
       "[%rd1], [%rd2], 128;",
       true},
      // warp-level matrix
      {"`mma`", nullptr, true}, // k_mma_operands, below
      {"`mma.sp`",
       "mma.sp::ordered_metadata.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%f1, %f2, %f3, "
       "%f4}, {%r1, %r2}, {%r3, %r4}, {%f5, %f6, %f7, %f8}, %r5, 0;",
       true},
      {"`mma.sp`",
       "mma.sp.sync.aligned.m16n8k64.row.col.satfinite.s32.s8.u8.s32 {%r1, %r2, %r3, %r4}, {%r5, "
       "%r6, %r7, %r8}, {%r9, %r10, %r11, %r12}, {%r1, %r2, %r3, %r4}, %r13, 0;",
       true},
      {"`wmma.load`",
       "wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {%r1, %r2, %r3, %r4, "
       "%r5, %r6, %r7, %r8}, [%rd2];",
       true},
      {"`wmma.store`",
       "wmma.store.d.sync.aligned.row.m16n16k16.global.f32 [%rd1], {%f1, %f2, "
       "%f3, %f4, %f5, %f6, %f7, %f8};",
       true},
      {"`wmma.mma`",
       "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32 {%f8, %f9, %f10, %f11, %f12, %f13, %f14, "
       "%f15}, {%r0, %r1, %r2, %r3, %r4, %r5, %r6, %r7}, {%r8, %r9, %r10, %r11, %r12, %r13, %r14, "
       "%r15}, {%f0, %f1, %f2, %f3, %f4, %f5, %f6, %f7};",
       true},
      {"`mma`", "mma.sync.aligned.m8n8k4.row.col.f32.f16.f16.f16 {%f1, %f2, %f3, %f4, %f5, %f6, "
       "%f7, %f8}, {%r1, %r2}, {%r3, %r4}, {%r5, %r6, %r7, %r8};",
       true},
      {"`wgmma.fence`, `wgmma.commit_group`, `wgmma.wait_group`",
       "wgmma.fence.sync.aligned;\n  wgmma.commit_group.sync.aligned;\n  "
       "wgmma.wait_group.sync.aligned 0;",
       true},
      {"`wgmma.mma_async`",
       "wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%f1, %f2, %f3, "
       "%f4}, %rd3, %rd4, 1, 1, 1, 0, 0;",
       true},
      {"`wgmma.mma_async`",
       "wgmma.mma_async.sync.aligned.m64n8k32.s32.u8.s8 {%r1, %r2, %r3, %r4}, {%r5, %r6, %r7, "
       "%r8}, %rd4, %p1;",
       true},
      {"`wgmma.mma_async`",
       "wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.e4m3 {%f1, %f2, %f3, "
       "%f4}, %rd3, %rd4, 1, 1, 1;",
       true},
      {"`wgmma.mma_async`",
       "wgmma.mma_async.sync.aligned.m64n8k256.s32.b1.b1.and.popc {%r1, %r2, %r3, %r4}, %rd3, "
       "%rd4, %p1;",
       true},
      {"`wgmma.mma_async.sp`",
       "wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%f1, %f2, "
       "%f3, %f4}, %rd3, %rd4, %r1, 0, 1, 1, 1, 0, 0;",
       true},
      {"`wgmma.mma_async.sp`",
       "wgmma.mma_async.sp.sync.aligned.m64n8k16.f32.tf32.tf32 {%f1, %f2, "
       "%f3, %f4}, %rd3, %rd4, %r1, 0, 1, 1, 1;",
       true},
      {"`wgmma.mma_async.sp`",
       "wgmma.mma_async.sp.sync.aligned.m64n8k64.f32.e4m3.e4m3 {%f1, %f2, "
       "%f3, %f4}, %rd3, %rd4, %r1, 0, 1, 1, 1;",
       true},
      // video
      {"`vadd`", "vadd.s32.u32.s32.sat %r1, %r2.b0, %r3.h0;", true},
      {"`vsub`", "vsub.u32.u32.u32 %r1, %r2, %r3;", true},
      {"`vabsdiff`", "vabsdiff.u32.s32.s32 %r1, %r2, %r3;", true},
      {"`vmin`", "vmin.s32.s32.s32.sat.add %r1, %r2.b3, %r3.b1, %r4;", true},
      {"`vmax`", "vmax.u32.u32.u32.min %r1, %r2, %r3, %r4;", true},
      {"`vshl`", "vshl.u32.u32.u32.clamp %r1, %r2, %r3;", true},
      {"`vshr`", "vshr.u32.u32.u32.wrap %r1, %r2, %r3;", true},
      {"`vmad`", "vmad.s32.u32.s32.sat.shr7 %r1, -%r2.b1, %r3.h0, %r4;", true},
      {"`vset`", "vset.s32.u32.lt %r1, %r2, %r3;", true},
      {"`vadd2`", "vadd2.u32.u32.u32 %r1, %r2, %r3, %r4;", true},
      {"`vsub2`", "vsub2.s32.s32.s32.sat %r1, %r2, %r3, %r4;", true},
      {"`vavrg2`", "vavrg2.u32.u32.s32.add %r1, %r2, %r3, %r4;", true},
      {"`vabsdiff2`", "vabsdiff2.s32.s32.s32 %r1, %r2, %r3, %r4;", true},
      {"`vmin2`", "vmin2.u32.s32.u32.sat %r1, %r2, %r3, %r4;", true},
      {"`vmax2`", "vmax2.s32.u32.u32 %r1, %r2, %r3, %r4;", true},
      {"`vset2`", "vset2.s32.u32.le %r1, %r2, %r3, %r4;", true},
      {"`vadd4`", "vadd4.u32.u32.u32.sat %r1, %r2, %r3, %r4;", true},
      {"`vsub4`", "vsub4.s32.s32.s32 %r1, %r2, %r3, %r4;", true},
      {"`vavrg4`", "vavrg4.s32.s32.s32 %r1, %r2, %r3, %r4;", true},
      {"`vabsdiff4`", "vabsdiff4.u32.u32.u32.add %r1, %r2, %r3, %r4;", true},
      {"`vmin4`", "vmin4.s32.s32.s32 %r1, %r2, %r3, %r4;", true},
      {"`vmax4`", "vmax4.u32.u32.u32 %r1, %r2, %r3, %r4;", true},
      {"`vset4`", "vset4.u32.u32.ne %r1, %r2, %r3, %r4;", true},
      // miscellaneous
      {"`brkpt`", "brkpt;", true},
      {"`nanosleep`", "nanosleep.u32 100;", true},
      {"`pmevent`", "pmevent 1;", true},
      {"`trap`", "setp.eq.u32 %p1, %r1, 0;\n  @%p1 trap;", true},
      {"`setmaxnreg`", "setmaxnreg.inc.sync.aligned.u32 64;", true},
  };
  return k_probes;
}

// More forms of the yes/partial rows (each row's types and modifiers columns), and the
// module-level rows that can be shown with one kernel.
const std::vector<Probe>& more_probes()
{
  static const std::vector<Probe> k_more = {
      {"`mul` (integer)", "mul.lo.s16 %rs1, %rs2, %rs3;", true},
      {"`mul` (integer)", "mul.hi.s64 %rd3, %rd4, %rd5;", true},
      {"`mul` (integer)", "mul.wide.s16 %r1, %rs1, %rs2;", true},
      {"`mad` (integer)", "mad.wide.s32 %rd3, %r1, %r2, %rd4;", true},
      {"`mad` (integer)", "mad.lo.u16 %rs1, %rs2, %rs3, %rs4;", true},
      {"`mul24`", "mul24.lo.u32 %r1, %r2, %r3;", true},
      {"`sad`", "sad.s64 %rd3, %rd4, %rd5, %rd6;", true},
      {"`div` (integer)", "div.u16 %rs1, %rs2, %rs3;", true},
      {"`popc`", "popc.b32 %r1, %r2;", true},
      {"`clz`", "clz.b64 %r1, %rd3;", true},
      {"`bfind`", "bfind.u32 %r1, %r2;", true},
      {"`bfe`", "bfe.u32 %r1, %r2, %r3, %r4;", true},
      {"`bfi`", "bfi.b64 %rd3, %rd4, %rd5, %r1, %r2;", true},
      {"`bmsk`", "bmsk.wrap.b32 %r1, %r2, %r3;", true},
      {"`dp4a`", "dp4a.u32.u32 %r1, %r2, %r3, %r4;", true},
      {"`dp2a`", "dp2a.lo.s32.s32 %r1, %r2, %r3, %r4;", true},
      {"`add` (float)", "add.f64 %fd1, %fd2, %fd3;", true},
      {"`add` (float)", "add.rz.ftz.f32 %f1, %f2, %f3;", true},
      {"`sub` (float)", "sub.ftz.sat.f32 %f1, %f2, %f3;", true},
      {"`mul` (float)", "mul.rm.ftz.f32 %f1, %f2, %f3;", true},
      {"`fma` (float)", "fma.rp.f64 %fd1, %fd2, %fd3, %fd4;", true},
      {"`mad` (float)", "mad.rz.ftz.sat.f32 %f1, %f2, %f3, %f4;", true},
      {"`div` (float)", "div.approx.ftz.f32 %f1, %f2, %f3;", true},
      {"`div` (float)", "div.rz.f64 %fd1, %fd2, %fd3;", true},
      {"`div` (float)", "div.rn.ftz.f32 %f1, %f2, %f3;", true},
      {"`abs` (float)", "abs.ftz.f32 %f1, %f2;", true},
      {"`neg` (float)", "neg.f64 %fd1, %fd2;", true},
      {"`min` (float)", "min.ftz.NaN.f32 %f1, %f2, %f3;", true},
      {"`min` (float)", "min.f64 %fd1, %fd2, %fd3;", true},
      {"`max` (float)", "max.ftz.f32 %f1, %f2, %f3;", true},
      {"`rcp`", "rcp.rn.f64 %fd1, %fd2;", true},
      {"`rcp`", "rcp.approx.ftz.f32 %f1, %f2;", true},
      {"`rcp`", "rcp.rm.ftz.f32 %f1, %f2;", true},
      {"`sqrt`", "sqrt.approx.ftz.f32 %f1, %f2;", true},
      {"`sqrt`", "sqrt.rn.f32 %f1, %f2;", true},
      {"`rsqrt`", "rsqrt.approx.f64 %fd1, %fd2;", true},
      {"`rsqrt`", "rsqrt.approx.ftz.f64 %fd1, %fd2;", true},
      {"`ex2`", "ex2.approx.ftz.f32 %f1, %f2;", true},
      {"`testp`", "testp.notanumber.f32 %p1, %f1;", true},
      {"`testp`", "testp.finite.f64 %p1, %fd1;", true},
      {"`copysign`", "copysign.f64 %fd1, %fd2, %fd3;", true},
      {"`add` (half)", "add.rn.bf16 %rs1, %rs2, %rs3;", true},
      {"`add` (half)", "add.ftz.sat.f16x2 %r1, %r2, %r3;", true},
      {"`sub` (half)", "sub.bf16x2 %r1, %r2, %r3;", true},
      {"`sub` (half)", "sub.rn.ftz.f16 %rs1, %rs2, %rs3;", true},
      {"`mul` (half)", "mul.f16x2 %r1, %r2, %r3;", true},
      {"`mul` (half)", "mul.ftz.sat.f16 %rs1, %rs2, %rs3;", true},
      {"`fma` (half)", "fma.rn.ftz.sat.f16 %rs1, %rs2, %rs3, %rs4;", true},
      {"`fma` (half)", "fma.rn.relu.f16x2 %r1, %r2, %r3, %r4;", true},
      {"`fma` (half)", "fma.rn.bf16 %rs1, %rs2, %rs3, %rs4;", true},
      {"`neg` (half)", "neg.ftz.f16 %rs1, %rs2;", true},
      {"`neg` (half)", "neg.bf16x2 %r1, %r2;", true},
      {"`abs` (half)", "abs.f16 %rs1, %rs2;", true},
      {"`abs` (half)", "abs.bf16x2 %r1, %r2;", true},
      {"`setp`", "setp.num.f64 %p1, %fd1, %fd2;", true},
      {"`setp`", "setp.lo.u16 %p1, %rs1, %rs2;", true},
      {"`setp`", "setp.ge.bf16 %p1, %rs1, %rs2;", true},
      {"`setp`", "setp.ne.f16 %p1, %rs1, %rs2;", true},
      {"`setp`", "setp.eq.xor.s64 %p1, %rd3, %rd4, %p2;", true},
      {"`set`", "set.gt.u32.f64 %r1, %fd1, %fd2;", true},
      {"`set`", "set.eq.s32.s16 %r1, %rs1, %rs2;", true},
      {"`selp`", "selp.b16 %rs1, %rs2, %rs3, %p1;", true},
      {"`selp`", "selp.f64 %fd1, %fd2, %fd3, %p1;", true},
      {"`slct`", "slct.ftz.u64.f32 %rd3, %rd4, %rd5, %f1;", true},
      {"`and`", "and.b64 %rd3, %rd4, %rd5;", true},
      {"`or`", "or.b32 %r1, %r2, %r3;", true},
      {"`not`", "not.b16 %rs1, %rs2;", true},
      {"`cnot`", "cnot.b16 %rs1, %rs2;", true},
      {"`shf`", "shf.l.wrap.b32 %r1, %r2, %r3, %r4;", true},
      {"`shl`", "shl.b16 %rs1, %rs2, %r1;", true},
      {"`shr`", "shr.u64 %rd3, %rd4, %r1;", true},
      {"`mov`", "mov.u32 %r1, %tid.x;", true},
      {"`mov`", "mov.f32 %f1, 0f3f800000;", true},
      {"`mov`", "mov.b32 %r1, {%rs1, %rs2};", true},
      {"`shfl.sync`", "shfl.sync.idx.b32 %r1, %r2, %r3, 0x1f, %r4;", true},
      {"`shfl.sync`", "shfl.sync.up.b32 %r1, %r2, 1, 0, 0xffffffff;", true},
      {"`shfl.sync`", "shfl.sync.down.b32 %r1|%p1, %r2, 2, 0x1f, 0xffffffff;", true},
      {"`prmt`", "prmt.b32 %r1, %r2, %r3, 0x3210;", true},
      {"`prmt`", "prmt.b32.f4e %r1, %r2, %r3, %r4;", true},
      {"`prmt`", "prmt.b32.b4e %r1, %r2, %r3, %r4;", true},
      {"`prmt`", "prmt.b32.rc8 %r1, %r2, %r3, %r4;", true},
      {"`prmt`", "prmt.b32.ecl %r1, %r2, %r3, %r4;", true},
      {"`prmt`", "prmt.b32.ecr %r1, %r2, %r3, %r4;", true},
      {"`ld`", "ld.param::entry.u64 %rd3, [in];", true},
      {"`ld`", "ld.const.f32 %f1, [%rd2];", true},
      {"`ld`", "ld.acquire.sys.u64 %rd3, [%rd2];", true},
      {"`ld`", "ld.global.L1::evict_last.L2::256B.b32 %r1, [%rd2];", true},
      {"`ld`", "ld.volatile.global.v2.f64 {%fd1, %fd2}, [%rd2];", true},
      {"`ld`", "ld.global.L2::cache_hint.u32 %r1, [%rd2], %rd3;", true},
      {"`ldu`", "ldu.global.v2.u32 {%r1, %r2}, [%rd2];", true},
      {"`st`", "st.volatile.global.f32 [%rd1], %f1;", true},
      {"`st`", "st.relaxed.cta.u32 [%rd1], %r1;", true},
      {"`st`", "st.global.wb.v4.b32 [%rd1], {%r1, %r2, %r3, %r4};", true},
      {"`st`", "st.shared::cluster.u32 [%rd1], %r1;", true},
      {"`prefetch`", "prefetch.L1 [%rd2];", true},
      {"`prefetch`", "prefetch.local.L2 [%rd2];", true},
      {"`prefetch`", "prefetch.global.L2::evict_normal [%rd2];", true},
      {"`cvta`", "cvta.global.u64 %rd3, %rd2;", true},
      {"`cvta`", "cvta.to.local.u64 %rd3, %rd2;", true},
      {"`cvta`", "cvta.const.u64 %rd3, %rd2;", true},
      {"`cvta`", "cvta.shared::cluster.u64 %rd3, %rd2;", true},
      {"`cvt` (integer <-> integer)", "cvt.u64.s32 %rd3, %r1;", true},
      {"`cvt` (integer <-> integer)", "cvt.s32.s8 %r1, %rs1;", true},
      {"`cvt` (float -> integer)", "cvt.rzi.s32.f64 %r1, %fd1;", true},
      {"`cvt` (float -> integer)", "cvt.rni.u16.f16 %rs1, %rs2;", true},
      {"`cvt` (float -> integer)", "cvt.rmi.s32.bf16 %r1, %rs1;", true},
      {"`cvt` (integer -> float)", "cvt.rn.f32.s32 %f1, %r1;", true},
      {"`cvt` (integer -> float)", "cvt.rm.f16.u16 %rs1, %rs2;", true},
      {"`cvt` (integer -> float)", "cvt.rn.bf16.s32 %rs1, %r1;", true},
      {"`cvt` (integer -> float)", "cvt.rn.sat.f32.u64 %f1, %rd3;", true},
      {"`cvt` (float -> float)", "cvt.f64.f32 %fd1, %f1;", true},
      {"`cvt` (float -> float)", "cvt.rn.ftz.sat.f32.f64 %f1, %fd1;", true},
      {"`cvt` (float -> float)", "cvt.rzi.ftz.f32.f32 %f1, %f2;", true},
      {"`cvt` (float -> float)", "cvt.f32.bf16 %f1, %rs1;", true},
      {"`cvt` (float -> float)", "cvt.rn.f16.f64 %rs1, %fd1;", true},
      {"`cvt` (float -> float)", "cvt.f64.f16 %fd1, %rs1;", true},
      {"`cvt` (float -> float)", "cvt.rpi.f16.f16 %rs1, %rs2;", true},
      {"`cvt` (float -> float)", "cvt.rni.sat.f64.f64 %fd1, %fd2;", true},
      {"`cvt` (float -> float)", "cvt.rn.f16.bf16 %rs1, %rs2;", true},
      {"`cvt` (packed f16x2/bf16x2 from two f32)", "cvt.rn.satfinite.bf16x2.f32 %r1, %f1, %f2;",
       true},
      {"`cvt` (FP8 e4m3x2/e5m2x2)", "cvt.rn.relu.f16x2.e5m2x2 %r1, %rs1;", true},
      {"`cvt` (FP8 e4m3x2/e5m2x2)", "cvt.rn.satfinite.relu.e5m2x2.f16x2 %rs1, %r1;", true},
      {"`cvt.pack`", "cvt.pack.sat.u16.s32 %r1, %r2, %r3;", true},
      {"`cp.async`", "cp.async.cg.shared::cta.global.L2::cache_hint [%rd1], [%rd2], 16, %rd3;",
       true},
      {"`cp.async`", "cp.async.ca.shared.global [%rd1], [%rd2], 4, %p1;", true},
      {"`ldmatrix`", "ldmatrix.sync.aligned.m8n8.x1.b16 {%r1}, [%rd2];", true},
      {"`ldmatrix`", "ldmatrix.sync.aligned.m8n8.x2.shared::cta.b16 {%r1, %r2}, [%rd2];", true},
      {"`tex`", "tex.a2d.v4.s32.f32 {%r1, %r2, %r3, %r4}, [%rd3, {%r5, %f1, %f2, %f3}];", true},
      {"`tex`", "tex.2d.v4.u32.f32 {%r1, %r2, %r3, %r4}, [%rd3, {%f5, %f6}];", true},
      {"`tex`", "tex.2d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [%rd3, {%r1, %r2}];", true},
      {"`suld`", "suld.b.2d.v4.b16.zero {%rs1, %rs2, %rs3, %rs4}, [%rd3, {%r1, %r2}];", true},
      {"`sust`", "sust.b.2d.v2.b64.clamp [%rd3, {%r1, %r2}], {%rd4, %rd5};", true},
      {"`sust`", "sust.b.2d.b32.zero [%rd3, {%r1, %r2}], %r3;", true},
      {"`bar`, `barrier`", "bar.red.and.pred %p1, 0, !%p2;\n  bar.cta.sync 1;", true},
      {"`bar`, `barrier`", "barrier.red.or.pred %p1, 3, %p2;", true},
      {"`membar`, `fence`", "membar.cta;\n  membar.sys;\n  fence.sc.gpu;\n  fence.acq_rel.sys;",
       true},
      {"`membar`, `fence`", "fence.mbarrier_init.release.cluster;", true},
      {"`atom`", "atom.shared.inc.u32 %r1, [%rd1], %r2;", true},
      {"`atom`", "atom.exch.b64 %rd3, [%rd1], %rd4;", true},
      {"`atom`", "atom.global.add.f32 %f1, [%rd1], %f2;", true},
      {"`atom`", "atom.acquire.cta.global.or.b32 %r1, [%rd1], %r2;", true},
      {"`atom`", "atom.add.noftz.f16 %rs1, [%rd1], %rs2;", true},
      {"`atom`", "atom.global.min.s64 %rd3, [%rd1], %rd4;", true},
      {"`atom`", "atom.global.dec.u32 %r1, [%rd1], %r2;", true},
      {"`atom`", "atom.global.add.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4};", true},
      {"`atom`", "atom.global.max.noftz.v2.f16 {%rs1, %rs2}, [%rd1], {%rs3, %rs4};", true},
      {"`atom`", "atom.global.add.L2::cache_hint.u32 %r1, [%rd1], %r2, %rd3;", true},
      {"`red`", "red.shared.add.u64 [%rd1], %rd3;", true},
      {"`red`", "red.release.gpu.global.max.s32 [%rd1], %r1;", true},
      {"`red`", "red.global.add.f32 [%rd1], %f1;", true},
      {"`vote`", "vote.sync.all.pred %p1, %p2, 0xffffffff;\n  vote.any.pred %p3, %p2;", true},
      {"`match`", "match.any.sync.b32 %r1, %r2, 0xffffffff;", true},
      {"`redux`", "redux.sync.min.s32 %r1, %r2, 0xffffffff;\n  redux.sync.add.u32 %r3, %r2, %r4;",
       true},
      {"`vadd`", "vadd.u32.u32.u32.sat.add %r1, %r2, %r3, %r4;", true},
      {"`vsub`", "vsub.s32.s32.s32.min %r1, %r2.h1, %r3, %r4;", true},
      {"`vset`", "vset.u32.u32.ne.add %r1, %r2.b1, %r3.b2, %r4;", true},
      {"`bra`", "setp.eq.u32 %p1, %r1, 0;\n  @!%p1 bra $L1;\n  mov.u32 %r2, 1;\n$L1:", true},
      // module-level rows
      {"`.file`, `.loc`, `.section` (debug information)",
       ".version 8.0\n.target sm_86\n.address_size 64\n.file 1 \"k.cu\"\n"
       ".visible .entry k(.param .u64 out)\n{\n  .reg .b64 %rd<2>;\n  .loc 1 3 0\n"
       "  ld.param.u64 %rd1, [out];\n  st.global.u32 [%rd1], 1;\n  ret;\n}\n"
       ".section .debug_str\n{\n  .b8 107, 0\n}\n",
       true},
      {"`.alias`",
       ".version 8.0\n.target sm_86\n.address_size 64\n.func f()\n{\n  ret;\n}\n"
       ".func g();\n.alias g, f;\n.visible .entry k()\n{\n  call.uni g, ();\n  ret;\n}\n",
       true},
      {"`.attribute(.managed)` variables",
       ".version 8.0\n.target sm_86\n.address_size 64\n.global .attribute(.managed) .u32 m;\n"
       ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<2>;\n  .reg .b64 %rd<2>;\n"
       "  ld.param.u64 %rd1, [out];\n  ld.global.u32 %r1, [m];\n  st.global.u32 [%rd1], %r1;\n"
       "  ret;\n}\n",
       true},
      {"`.reg .b128`, `mov.b128`",
       "  .reg .b128 %q;\n  mov.b128 %q, {%rd3, %rd4};\n  mov.b128 {%rd5, %rd6}, %q;", true},
      {"`.entry`, `.func`",
       ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".maxntid 128, 1, 1\n.minnctapersm 2\n.maxnreg 64\n{\n  .reg .b64 %rd<2>;\n"
       "  .pragma \"nounroll\";\n  ld.param.u64 %rd1, [out];\n  st.global.u32 [%rd1], 1;\n"
       "  ret;\n}\n",
       true},
      {"`.entry`, `.func`",
       ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".reqnctapercluster 2, 1, 1\n{\n  .reg .b64 %rd<2>;\n"
       "  ld.param.u64 %rd1, [out];\n  st.global.u32 [%rd1], 1;\n  ret;\n}\n",
       true},
      {"`.entry`, `.func`",
       ".version 8.0\n.target sm_90\n.address_size 64\n.visible .entry k(.param .u64 out)\n"
       ".explicitcluster\n.maxclusterrank 1\n{\n  .reg .b64 %rd<2>;\n"
       "  ld.param.u64 %rd1, [out];\n  st.global.u32 [%rd1], 1;\n  ret;\n}\n",
       true},
      {"`exit`",
       ".version 8.0\n.target sm_86\n.address_size 64\n.func f()\n{\n  exit;\n}\n"
       ".visible .entry k()\n{\n  call.uni f, ();\n  ret;\n}\n",
       true},
      {"`.shared` variables",
       ".version 8.0\n.target sm_86\n.address_size 64\n.extern .shared .align 16 .b8 dyn[];\n"
       ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<3>;\n  .reg .b64 %rd<2>;\n"
       "  .shared .align 4 .b32 s[32];\n  ld.param.u64 %rd1, [out];\n  st.shared.u32 [s+4], 7;\n"
       "  st.shared.u32 [dyn], 8;\n  bar.sync 0;\n  ld.shared.u32 %r1, [s+4];\n"
       "  ld.shared.u32 %r2, [dyn];\n  add.s32 %r1, %r1, %r2;\n  st.global.u32 [%rd1], %r1;\n"
       "  ret;\n}\n",
       true},
      {"`.local` variables",
       "  .local .align 8 .b64 l[4];\n  st.local.u64 [l+8], %rd2;\n  ld.local.u64 %rd3, [l+8];\n"
       "  st.global.u64 [%rd1], %rd3;",
       true},
      {"`.reg .v2/.v4` vectors",
       "  .reg .v2 .f32 %vf;\n  ld.global.v2.f32 %vf, [%rd2];\n  st.global.v2.f32 [%rd1], %vf;",
       true},
      {"special registers",
       "mov.u32 %r1, %lanemask_lt;\n  mov.u64 %rd3, %globaltimer;\n  mov.u32 %r2, %nwarpid;", true},
      {"special registers", "mov.u32 %r1, %dynamic_smem_size;", true},
      {"special registers", "mov.u32 %r1, %cluster_ctarank;\n  mov.u32 %r2, %nclusterid.y;", true},
      {"special registers", "mov.u32 %r1, %aggr_smem_size;", false},
      {"`.global`, `.const` module variables",
       ".version 8.0\n.target sm_86\n.address_size 64\n.global .u32 a[2] = {1, 2};\n"
       ".const .f32 c = 0f3f800000;\n.visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<3>;\n"
       "  .reg .b64 %rd<2>;\n  ld.param.u64 %rd1, [out];\n  ld.global.u32 %r1, [a+4];\n"
       "  ld.const.u32 %r2, [c];\n  st.global.u32 [%rd1], %r1;\n  st.global.u32 [%rd1+4], %r2;\n"
       "  ret;\n}\n",
       true},
      {"`.global`, `.const` module variables",
       ".version 8.0\n.target sm_86\n.address_size 64\n.global .u32 a[2] = {1, 2};\n"
       ".global .u64 p = generic(a);\n.visible .entry k(.param .u64 out)\n{\n  .reg .b64 %rd<3>;\n"
       "  ld.param.u64 %rd1, [out];\n  ld.global.u64 %rd2, [p];\n  st.global.u64 [%rd1], %rd2;\n"
       "  ret;\n}\n",
       true},
      {"`.global`, `.const` module variables",
       ".version 8.0\n.target sm_86\n.address_size 64\n.global .u32 a[2] = {1, 2};\n"
       ".global .b8 p[9] = {7, 0xFF(generic(a)+4), 0xFF00(generic(a)+4), 0xFF0000(generic(a)+4),"
       " 0xFF000000(generic(a)+4), 0xFF00000000(generic(a)+4), 0xFF0000000000(generic(a)+4),"
       " 0xFF000000000000(generic(a)+4), 0xFF00000000000000(generic(a)+4)};\n"
       ".visible .entry k(.param .u64 out)\n{\n  .reg .b64 %rd<3>;\n"
       "  ld.param.u64 %rd1, [out];\n  ld.global.u64 %rd2, [p+1];\n  st.global.u64 [%rd1], %rd2;\n"
       "  ret;\n}\n",
       true},
      {"`.texref`, `.samplerref`, `.surfref`",
       ".version 8.0\n.target sm_86\n.address_size 64\n.global .texref t;\n"
       ".visible .entry k(.param .u64 out)\n{\n  .reg .f32 %f<6>;\n  .reg .b64 %rd<2>;\n"
       "  ld.param.u64 %rd1, [out];\n  mov.f32 %f5, 0f00000000;\n"
       "  tex.2d.v4.f32.f32 {%f1, %f2, %f3, %f4}, [t, {%f5, %f5}];\n"
       "  st.global.f32 [%rd1], %f1;\n  ret;\n}\n",
       true},
      {"`.callprototype`",
       ".version 8.0\n.target sm_86\n.address_size 64\n.func (.param .b32 r) f(.param .b32 a)\n"
       "{\n  .reg .b32 %r<2>;\n  ld.param.b32 %r1, [a];\n  st.param.b32 [r], %r1;\n  ret;\n}\n"
       ".visible .entry k(.param .u64 out)\n{\n  .reg .b32 %r<3>;\n  .reg .b64 %rd<3>;\n"
       "  ld.param.u64 %rd1, [out];\n  mov.u64 %rd2, f;\n  mov.u32 %r1, 1;\n  {\n"
       "    .param .b32 a0;\n    st.param.b32 [a0], %r1;\n    .param .b32 r0;\n"
       "    proto: .callprototype (.param .b32 _) _ (.param .b32 _);\n"
       "    call (r0), %rd2, (a0), proto;\n    ld.param.b32 %r2, [r0];\n  }\n"
       "  st.global.u32 [%rd1], %r2;\n  ret;\n}\n",
       true},
  };
  return k_more;
}

// The PTX a probe translates: bodies go into kernel_text(); the mma rows get their operands.
std::string probe_module(const Probe& probe)
{
  std::string row = probe.row;
  if (probe.text == nullptr) {
    std::string op = row == "`mma`"      ? "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
                     : row == "`mma.sp`" ? "mma.sp.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
                                         : "wmma.mma.sync.aligned.row.col.m16n16k16.f32.f32";
    return kernel_text("  " + op + k_mma_operands);
  }
  std::string text = probe.text;
  return text.starts_with(".version") ? text : kernel_text("  " + text);
}

std::string read_file(const fs::path& path)
{
  std::ifstream file(path, std::ios::binary);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// The value of `key = value` in a case file.
std::string case_value(const std::string& text, const std::string& key)
{
  std::regex pattern("(^|\\n)\\s*" + key + "\\s*=\\s*([^#\\n]*)");
  std::smatch match;
  return std::regex_search(text, match, pattern) ? trim(match[2].str()) : std::string();
}

bool recorded(const std::string& name)
{
  const fs::path expected = k_tests / "golden" / "expected";
  return d4r::compiler::cpu::has_expected_output(expected, name, 0) || fs::exists(expected / (name + ".trap"));
}

// Whether `ptx` has `opcode` as an instruction word: after a line start, blank, ';', '{' or '}'
// (a guard "@%p " included), followed by '.', a blank or ';'.
bool uses_opcode(const std::string& ptx, const std::string& opcode)
{
  std::regex pattern("(^|[\\s;{}])" + opcode + "[.\\s;]");
  return std::regex_search(ptx, pattern);
}

TEST(TranslateCoverage, RowsParseAndTheSummaryCountsThem)
{
  std::vector<Row> rows = read_table();
  ASSERT_GE(rows.size(), 150U) << "COVERAGE.md lists the whole ISA";
  std::map<std::string, int> counts;
  std::map<std::string, int> with_golden;
  for (const Row& row : rows) {
    with_golden[row.status] += row.golden == "none" ? 0 : 1;
    EXPECT_TRUE(row.status == "yes" || row.status == "partial" || row.status == "no")
        << "COVERAGE.md:" << row.line << ": status " << row.status;
    ++counts[row.status];
    if (!row.where.empty()) {
      EXPECT_TRUE(fs::exists(k_root / "compiler" / "translate" / row.where))
          << "COVERAGE.md:" << row.line << ": " << row.where;
    }
    if (row.status == "no" || row.status == "partial") {
      EXPECT_FALSE(row.notes.empty()) << "COVERAGE.md:" << row.line << ": a reason is missing";
    }
  }
  std::string text = read_file(k_table);
  std::string summary =
      "Rows: " + std::to_string(rows.size()) + " (" + std::to_string(counts["yes"]) + " yes, " +
      std::to_string(counts["partial"]) + " partial, " + std::to_string(counts["no"]) +
      " no); with an H200 golden: " + std::to_string(with_golden["yes"]) + " yes, " +
      std::to_string(with_golden["partial"]) + " partial.**";
  EXPECT_NE(text.find(summary), std::string::npos) << "the summary should say: " << summary;
}

TEST(TranslateCoverage, EveryIsaOpcodeHasARowAndTheLoweringTableAgrees)
{
  std::vector<Row> rows = read_table();
  std::set<std::string> listed;
  std::set<std::string> supported;
  for (const Row& row : rows) {
    if (!is_instruction_row(row)) {
      continue;
    }
    for (const std::string& opcode : opcodes(row)) {
      EXPECT_TRUE(k_isa_opcodes.contains(opcode))
          << "COVERAGE.md:" << row.line << ": " << opcode << " is not a PTX ISA 8.x opcode";
      listed.insert(opcode);
      bool lowered = find_lowering(opcode) != nullptr;
      if (row.status != "no") {
        supported.insert(opcode);
        EXPECT_TRUE(lowered) << "COVERAGE.md:" << row.line << ": " << opcode << " is " << row.status
                             << " but has no lowering";
      } else if (lowered) {
        EXPECT_TRUE(names_a_form(row))
            << "COVERAGE.md:" << row.line << ": " << opcode
            << " has a lowering: the row should be partial, or name the form it rejects";
      }
    }
  }
  for (const std::string& opcode : k_isa_opcodes) {
    EXPECT_TRUE(listed.contains(opcode)) << opcode << " has no row in COVERAGE.md";
    if (find_lowering(opcode) != nullptr) {
      EXPECT_TRUE(supported.contains(opcode))
          << opcode << " has a lowering but no yes/partial row in COVERAGE.md";
    }
  }
}

TEST(TranslateCoverage, NamedGoldenCasesExistWereRecordedAndUseTheInstruction)
{
  int named = 0;
  for (const Row& row : read_table()) {
    std::vector<std::string> names = quoted(row.golden);
    EXPECT_TRUE(!names.empty() || row.golden == "none")
        << "COVERAGE.md:" << row.line << ": golden is \"" << row.golden << "\"";
    EXPECT_TRUE(row.status != "no" || names.empty())
        << "COVERAGE.md:" << row.line << ": a `no` row names goldens";
    for (const std::string& name : names) {
      ++named;
      const fs::path file = k_tests / "golden" / "cases" / (name + ".case");
      ASSERT_TRUE(fs::exists(file)) << "COVERAGE.md:" << row.line << ": no case " << name;
      EXPECT_TRUE(recorded(name)) << "COVERAGE.md:" << row.line << ": " << name
                                  << " has no H200 recording in tests/golden/expected";
      const fs::path ptx = k_root / case_value(read_file(file), "ptx");
      ASSERT_TRUE(fs::is_regular_file(ptx)) << name << ": " << ptx;
      if (!is_instruction_row(row)) {
        continue;
      }
      std::string text = read_file(ptx);
      bool used = false;
      for (const std::string& opcode : opcodes(row)) {
        used = used || uses_opcode(text, opcode);
      }
      EXPECT_TRUE(used) << "COVERAGE.md:" << row.line << ": " << name << " (" << ptx.filename()
                        << ") does not use " << row.name;
    }
  }
  EXPECT_GT(named, 100);
}

TEST(TranslateCoverage, EveryInstructionRowHasAProbeThatTranslatesAsItsStatusSays)
{
  std::vector<Row> rows = read_table();
  std::map<std::string, const Row*> by_name;
  for (const Row& row : rows) {
    EXPECT_TRUE(by_name.emplace(row.name, &row).second)
        << "COVERAGE.md:" << row.line << ": two rows named " << row.name;
  }
  std::vector<Probe> all = probes();
  all.insert(all.end(), more_probes().begin(), more_probes().end());
  std::set<std::string> probed;
  for (const Probe& probe : all) {
    auto found = by_name.find(probe.row);
    ASSERT_NE(found, by_name.end()) << "a probe names no row: " << probe.row;
    const Row& row = *found->second;
    Expected<Translation> translation = translate_text(probe_module(probe), host_options(false));
    if (probe.translates) {
      EXPECT_NE(row.status, "no") << "COVERAGE.md:" << row.line << ": a `no` row translates";
      EXPECT_TRUE(translation.has_value())
          << "COVERAGE.md:" << row.line << ": " << row.name << " is " << row.status
          << " but its probe does not translate: " << translation.error().message;
      if (translation) {
        EXPECT_EQ(verify_text(*translation->module), "") << row.name;
      }
      for (const char* target : {"gfx1100", "gfx1201"}) {
        Expected<Translation> amdgpu = translate_text(probe_module(probe), amdgpu_options(target));
        EXPECT_TRUE(amdgpu.has_value())
            << "COVERAGE.md:" << row.line << ": " << row.name << " does not translate for "
            << target << ": " << amdgpu.error().message;
      }
      probed.insert(row.name);
    } else {
      EXPECT_NE(row.status, "yes")
          << "COVERAGE.md:" << row.line << ": a rejected form in a `yes` row";
      EXPECT_FALSE(translation.has_value())
          << "COVERAGE.md:" << row.line << ": " << row.name << " (" << row.status
          << "): a form the table calls rejected translates: " << probe.text;
      if (row.status == "no") {
        probed.insert(row.name);
      }
    }
  }
  for (const Row& row : rows) {
    if (is_instruction_row(row)) {
      EXPECT_TRUE(probed.contains(row.name))
          << "COVERAGE.md:" << row.line << ": " << row.name << " (" << row.status
          << ") needs a probe in this test";
    }
  }
}

// The register kernel_text() declares for a value of PTX type `type` (8-bit integers live in
// 16-bit registers).
std::string register_for(const std::string& type)
{
  if (type == "f32") {
    return "%f1";
  }
  if (type == "f64") {
    return "%fd1";
  }
  if (type.ends_with("64")) {
    return "%rd3";
  }
  if (type.ends_with("32")) {
    return "%r1";
  }
  return "%rs1";
}

// The cvt rows' claims for every pair of scalar types and every rounding mode the ISA gives the
// pair (integer <-> integer with or without .sat, float -> integer .rXi, integer -> float and
// narrowing float -> float .rX, .rXi within one format, .ftz with an f32 operand) translate
// (bf16 <-> f64 and f16 <-> bf16 included: sm_90, without .ftz).
TEST(TranslateCoverage, CvtTranslatesEveryPairOfScalarTypesTheTableClaims)
{
  const std::vector<std::string> types = {"u8",  "u16", "u32", "u64",  "s8",  "s16",
                                          "s32", "s64", "f16", "bf16", "f32", "f64"};
  auto is_float = [](const std::string& type) { return type.starts_with('f') || type == "bf16"; };
  auto bits = [](const std::string& type) {
    return type == "f16" || type == "bf16" ? 16 : std::stoi(type.substr(1));
  };
  for (const std::string& to : types) {
    for (const std::string& from : types) {
      std::vector<std::string> modes = {"", ".sat"}; // integer <-> integer
      if (is_float(to) && is_float(from)) {
        modes = to == from              ? std::vector<std::string>{".rni", ".rzi", ".rmi", ".rpi"}
                : bits(to) < bits(from) ? std::vector<std::string>{".rn", ".rz", ".rm", ".rp"}
                                        : std::vector<std::string>{""};
      } else if (is_float(from)) {
        modes = {".rni", ".rzi", ".rmi", ".rpi"};
      } else if (is_float(to)) {
        modes = {".rn", ".rz", ".rm", ".rp"};
      }
      if (from == "f32" || (to == "f32" && is_float(from))) {
        for (size_t i = 0, n = modes.size(); i < n; ++i) {
          modes.push_back(modes[i] + ".ftz");
        }
      }
      if ((to == "bf16" && from == "f16") || (to == "f16" && from == "bf16")) {
        modes = {"", ".rn", ".rz", ".rm", ".rp"}; // neither holds the other
      }
      for (const std::string& mode : modes) {
        std::string body = "  cvt" + mode + "." + to + "." + from + " " + register_for(to) + ", " +
                           register_for(from) + ";";
        Expected<Translation> translation = translate_text(kernel_text(body), host_options(false));
        EXPECT_TRUE(translation.has_value())
            << body << ": "
            << (translation ? std::string("translates") : translation.error().message);
      }
    }
  }
}

// The setp row: every compare operator of the ISA on every scalar type it allows translates.
TEST(TranslateCoverage, SetpTranslatesEveryCompareOperatorOnEveryScalarType)
{
  const std::vector<std::string> float_ops = {"eq",  "ne",  "lt",  "le",  "gt",  "ge",  "equ",
                                              "neu", "ltu", "leu", "gtu", "geu", "num", "nan"};
  const std::vector<std::string> unsigned_ops = {"eq", "ne", "lt", "le", "gt",
                                                 "ge", "lo", "ls", "hi", "hs"};
  const std::vector<std::string> signed_ops = {"eq", "ne", "lt", "le", "gt", "ge"};
  std::vector<std::pair<std::string, const std::vector<std::string>*>> types = {
      {"f16", &float_ops}, {"bf16", &float_ops}, {"f32", &float_ops}, {"f64", &float_ops}};
  for (const char* bits : {"16", "32", "64"}) {
    types.emplace_back(std::string("u") + bits, &unsigned_ops);
    types.emplace_back(std::string("s") + bits, &signed_ops);
    types.emplace_back(std::string("b") + bits, &signed_ops); // .b: eq and ne in the ISA
  }
  for (const auto& [type, ops] : types) {
    for (const std::string& op : *ops) {
      if (type.starts_with('b') && type != "bf16" && op != "eq" && op != "ne") {
        continue;
      }
      std::string value = register_for(type);
      std::string body = "  setp." + op + "." + type + " %p1|%p2, " + value + ", " + value + ";";
      Expected<Translation> translation = translate_text(kernel_text(body), host_options(false));
      EXPECT_TRUE(translation.has_value()) << body << ": " << translation.error().message;
    }
  }
}

// The atom and red rows: every operation on every type the ISA gives it, in .global, .shared
// and generic addresses, translates; the rejected forms the rows name do not.
TEST(TranslateCoverage, AtomAndRedTranslateTheOperationsAndTypesTheTableClaims)
{
  const std::vector<std::pair<std::string, std::vector<std::string>>> forms = {
      {"add", {"u32", "s32", "u64", "f32", "f64"}},
      {"inc", {"u32"}},
      {"dec", {"u32"}},
      {"min", {"u32", "s32", "u64", "s64"}},
      {"max", {"u32", "s32", "u64", "s64"}},
      {"and", {"b32", "b64"}},
      {"or", {"b32", "b64"}},
      {"xor", {"b32", "b64"}},
      {"exch", {"b32", "b64"}},
      {"cas", {"b32", "b64"}},
      {"add.noftz", {"f16", "bf16", "f16x2", "bf16x2"}}};
  for (const char* space : {".global", ".shared", ""}) {
    for (const auto& [op, op_types] : forms) {
      for (const std::string& type : op_types) {
        std::string value = type.ends_with("x2") ? "%r2" : register_for(type);
        std::string more = op == "cas" ? ", " + value : "";
        std::string atom = "  atom" + std::string(space) + "." + op + "." + type + " " + value +
                           ", [%rd1], " + value + more + ";";
        Expected<Translation> translation = translate_text(kernel_text(atom), host_options(false));
        EXPECT_TRUE(translation.has_value()) << atom << ": " << translation.error().message;
        if (op == "cas" || op == "exch") {
          continue;
        }
        std::string red =
            "  red" + std::string(space) + "." + op + "." + type + " [%rd1], " + value + ";";
        translation = translate_text(kernel_text(red), host_options(false));
        EXPECT_TRUE(translation.has_value()) << red << ": " << translation.error().message;
      }
    }
  }
  // The sm_70/sm_90 forms: cas.b16, the hint, vector adds and half min/max (.global only).
  for (const char* accepted : {"  atom.global.cas.b16 %rs1, [%rd1], %rs2, %rs3;",
                               "  atom.shared.cas.b16 %rs1, [%rd1], %rs2, %rs3;",
                               "  atom.global.L2::cache_hint.add.u32 %r1, [%rd1], %r2, %rd3;",
                               "  red.global.add.L2::cache_hint.u64 [%rd1], %rd3, %rd4;",
                               "  red.global.v2.f16x2.add.noftz [%rd1], {%r1, %r2};",
                               "  atom.global.add.v4.f32 {%f1, %f2, %f3, %f4}, [%rd1], "
                               "{%f1, %f2, %f3, %f4};",
                               "  atom.global.min.noftz.v8.bf16 {%rs1, %rs2, %rs3, %rs4, %rs5, "
                               "%rs6, %rs7, %rs1}, [%rd1], {%rs1, %rs2, %rs3, %rs4, %rs5, %rs6, "
                               "%rs7, %rs1};",
                               "  red.global.max.noftz.v4.f16x2 [%rd1], {%r1, %r2, %r3, %r4};",
                               "  atom.shared::cluster.add.u32 %r1, [%rd1], %r2;"}) {
    Expected<Translation> translation = translate_text(kernel_text(accepted), host_options(false));
    EXPECT_TRUE(translation.has_value()) << accepted << ": " << translation.error().message;
  }
  for (const char* rejected : {"  atom.global.exch.b128 %rd3, [%rd1], %rd4;",
                               "  atom.shared::cluster.exch.b16 %rs1, [%rd1], %rs2;",
                               "  atom.shared.add.v2.f32 {%f1, %f2}, [%rd1], {%f3, %f4};",
                               "  atom.global.cas.v2.b32 {%r1, %r2}, [%rd1], {%r1, %r2}, "
                               "{%r3, %r4};",
                               "  atom.global.min.noftz.f16 %rs1, [%rd1], %rs2;",
                               "  atom.global.exch.b16 %rs1, [%rd1], %rs2;"}) {
    EXPECT_FALSE(translate_text(kernel_text(rejected), host_options(false)).has_value())
        << rejected;
  }
}

// The float rows: add/sub/mul/fma/mad with every rounding mode, .ftz and .sat on f32, every
// rounding mode on f64; the half rows: add/sub/mul/fma on the four half types with .rn, .ftz and
// .sat where the ISA has them.
TEST(TranslateCoverage, FloatAndHalfArithmeticTranslateEveryModifierCombinationClaimed)
{
  auto accepted = [](const std::string& body) {
    Expected<Translation> translation = translate_text(kernel_text(body), host_options(false));
    EXPECT_TRUE(translation.has_value()) << body << ": " << translation.error().message;
  };
  for (const char* op : {"add", "sub", "mul", "fma", "mad"}) {
    bool three = std::string(op) == "fma" || std::string(op) == "mad";
    for (const char* mode : {"", ".rn", ".rz", ".rm", ".rp"}) {
      if (three && std::string(mode).empty()) {
        continue; // fma and mad.f32/f64 need a rounding mode (sm_20+)
      }
      for (const char* ftz : {"", ".ftz"}) {
        for (const char* sat : {"", ".sat"}) {
          accepted("  " + std::string(op) + mode + ftz + sat + ".f32 %f1, %f2, %f3" +
                   (three ? ", %f4;" : ";"));
        }
      }
      accepted("  " + std::string(op) + mode + ".f64 %fd1, %fd2, %fd3" + (three ? ", %fd4;" : ";"));
    }
    if (std::string(op) == "mad") {
      continue;
    }
    for (const char* type : {"f16", "f16x2", "bf16", "bf16x2"}) {
      bool packed = std::string(type).ends_with("x2");
      bool bf16 = std::string(type).starts_with("bf");
      std::string d = packed ? "%r1" : "%rs1";
      std::string a = packed ? "%r2" : "%rs2";
      for (const char* mode : {"", ".rn"}) {
        if (three && std::string(mode).empty()) {
          continue;
        }
        for (const char* extra : {"", ".ftz", ".sat", ".ftz.sat"}) {
          if (bf16 && std::string(extra) != "") {
            continue; // no .ftz or .sat on bf16
          }
          accepted("  " + std::string(op) + mode + extra + "." + type + " " + d + ", " + a + ", " +
                   a + (three ? ", " + a + ";" : ";"));
        }
      }
    }
  }
}

// The ld and st rows: every state space, scalar type and vector width (.v4 on 8- to 32-bit
// types) translates.
TEST(TranslateCoverage, LoadsAndStoresTranslateEverySpaceTypeAndWidth)
{
  const std::vector<std::string> types = {"b8", "b16", "b32", "b64", "u8",  "u16",  "u32", "u64",
                                          "s8", "s16", "s32", "s64", "f16", "bf16", "f32", "f64"};
  for (const char* space : {".global", ".shared", ".local", ".const", ""}) {
    for (const std::string& type : types) {
      for (int width : {1, 2, 4}) {
        if (width == 4 && type.ends_with("64")) {
          continue;
        }
        std::string value = register_for(type);
        std::string values = value;
        if (width > 1) {
          values = "{" + value;
          for (int i = 1; i < width; ++i) {
            values += ", " + value;
          }
          values += "}";
        }
        std::string vector = width == 1 ? "" : ".v" + std::to_string(width);
        std::string ld =
            "  ld" + std::string(space) + vector + "." + type + " " + values + ", [%rd2];";
        Expected<Translation> load = translate_text(kernel_text(ld), host_options(false));
        EXPECT_TRUE(load.has_value()) << ld << ": " << load.error().message;
        if (std::string(space) == ".const") {
          continue;
        }
        std::string st =
            "  st" + std::string(space) + vector + "." + type + " [%rd1], " + values + ";";
        Expected<Translation> store = translate_text(kernel_text(st), host_options(false));
        EXPECT_TRUE(store.has_value()) << st << ": " << store.error().message;
      }
    }
  }
}

// The AMDGPU-only rejections the table names (hooks_amdgpu.cpp): a barrier for part of a block.
// The `bar` row: on AMDGPU a thread count counts in the barrier's LDS word (hooks_amdgpu.cpp),
// zeroed at the kernel's entry, never an s_barrier of the whole workgroup.
TEST(TranslateCoverage, AmdgpuCountsBarrierThreadsInLdsAsTheTableSays)
{
  const std::string text = kernel_text("  bar.sync 1, 64;\n  bar.arrive 2, 64;");
  EXPECT_TRUE(translate_text(text, host_options(false)).has_value());
  for (const char* target : {"gfx1100", "gfx1201"}) {
    Expected<Translation> amdgpu = translate_text(text, amdgpu_options(target));
    ASSERT_TRUE(amdgpu.has_value()) << target << ": " << amdgpu.error().message;
    const std::string ir = ir_text(*amdgpu->module);
    EXPECT_NE(ir.find("@d4r.named_barriers = internal addrspace(3) global [16 x i64]"),
              std::string::npos)
        << ir;
    EXPECT_GE(occurrences(ir, "atomicrmw add ptr addrspace(3)"), 3) << ir;
    EXPECT_EQ(occurrences(ir, "@llvm.amdgcn.s.barrier()"), 2) << ir; // the entry's (+ declaration)
  }
}

// Calls of undefined .extern functions (vprintf, malloc, __assertfail, anything else): the
// table's `no` rows. What the translation does with them today.
TEST(TranslateCoverage, ExternCallsAreRejected)
{
  for (const char* name : {"vprintf", "malloc", "__assertfail", "optixGetLaunchIndex"}) {
    Expected<Translation> host = translate_text(extern_call_module(name), host_options(false));
    EXPECT_FALSE(host.has_value()) << name << " translates for the host";
    Expected<Translation> amdgpu =
        translate_text(extern_call_module(name), amdgpu_options("gfx1100"));
    EXPECT_FALSE(amdgpu.has_value()) << name << " translates for gfx1100";
  }
}

} // namespace
} // namespace d4r::compiler::translate::test
