// compiler/ptx/{lexer,parser,printer}: every PTX file in tests/ptx/ (globbed when the test runs)
// survives parse -> print -> parse with an equal tree and the entries util/ptx_identity finds;
// malformed inputs fail with the right line and column; each construct of the module grammar lands
// in the right fields; a generated 5 MB module parses and prints.

#include "compiler/ptx/parser.hpp"

#include "compiler/ptx/lexer.hpp"
#include "compiler/ptx/printer.hpp"
#include "util/ptx_identity.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using namespace d4r::compiler::ptx;

std::string read_text(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Module parse_ok(const std::string& text)
{
  d4r::Expected<Module> module = parse_module(text);
  EXPECT_TRUE(module.has_value()) << (module ? "" : module.error().message);
  return module ? *module : Module{};
}

// parse -> print -> parse: the trees must be equal, and printing again must be a fixed point.
void expect_round_trip(const std::string& text, const std::string& what)
{
  d4r::Expected<Module> first = parse_module(text);
  ASSERT_TRUE(first.has_value()) << what << ": " << first.error().message;
  std::string printed = print_module(*first);
  d4r::Expected<Module> second = parse_module(printed);
  ASSERT_TRUE(second.has_value()) << what << " (printed): " << second.error().message;
  EXPECT_TRUE(*first == *second) << what << ": trees differ after a round trip";
  EXPECT_EQ(print_module(*second), printed) << what;
}

std::vector<const Instruction*> instructions_of(const std::vector<Statement>& statements)
{
  std::vector<const Instruction*> out;
  for (const Statement& statement : statements) {
    if (const auto* instruction = std::get_if<Instruction>(&statement.value)) {
      out.push_back(instruction);
    } else if (const auto* block = std::get_if<Block>(&statement.value)) {
      std::vector<const Instruction*> nested = instructions_of(block->statements);
      out.insert(out.end(), nested.begin(), nested.end());
    }
  }
  return out;
}

std::vector<const Function*> functions_of(const Module& module)
{
  std::vector<const Function*> out;
  for (const Item& item : module.items) {
    if (const auto* function = std::get_if<Function>(&item.value)) {
      out.push_back(function);
    }
  }
  return out;
}

Instruction parse_instruction(const std::string& text)
{
  d4r::Expected<std::vector<Statement>> statements = parse_statements(text);
  EXPECT_TRUE(statements.has_value()) << (statements ? "" : statements.error().message);
  if (!statements || statements->size() != 1 ||
      !std::holds_alternative<Instruction>(statements->front().value)) {
    ADD_FAILURE() << "not one instruction: " << text;
    return {};
  }
  return std::get<Instruction>(statements->front().value);
}

// A module of about `bytes` bytes in nvcc's layout, with a bit of every construct.
std::string generated_module(size_t bytes)
{
  std::string text = ".version 8.0\n.target sm_89\n.address_size 64\n\n"
                     ".global .align 4 .b32 table[4] = {1, 2, 3, 4};\n";
  for (int function = 0; text.size() < bytes; ++function) {
    std::string name = "k" + std::to_string(function);
    text += ".visible .entry " + name + "(\n\t.param .u64 " + name + "_p0,\n\t.param .u32 " +
            name + "_p1\n)\n.maxntid 256, 1, 1\n{\n\t.reg .pred \t%p<4>;\n\t.reg .b32 \t%r<64>;\n"
            "\t.reg .f32 \t%f<64>;\n\t.reg .b64 \t%rd<16>;\n\t.shared .align 16 .b8 tile[1024];\n\n"
            "\tld.param.u64 \t%rd1, [" + name + "_p0];\n";
    for (int i = 0; i < 40; ++i) {
      std::string n = std::to_string(i % 60 + 1);
      text += "\t.loc 1 " + std::to_string(i + 10) + " 3\n"
              "\tmad.lo.s32 \t%r" + n + ", %r2, %r3, %r4;\n"
              "\tsetp.ge.s32 \t%p1, %r" + n + ", 17;\n"
              "\t@!%p1 bra \t$L__BB" + std::to_string(function) + "_" + std::to_string(i) + ";\n"
              "\tfma.rn.f32 \t%f" + n + ", %f1, 0f3F800000, %f2;\n"
              "\tld.global.nc.v4.f32 \t{%f1, %f2, %f3, %f4}, [%rd1+16];\n"
              "\tsust.b.2d.v4.b16.zero \t[%rd2, {%r1, %r2}], {%rs1, %rs2, %rs3, %rs4};\n"
              "$L__BB" + std::to_string(function) + "_" + std::to_string(i) + ":\n"
              "\tst.shared.f32 \t[tile+-4], %f" + n + "; // spill\n";
    }
    text += "\tret;\n}\n";
  }
  return text;
}

std::vector<fs::path> corpus_files()
{
  std::vector<fs::path> files;
  for (const fs::directory_entry& entry : fs::directory_iterator(fs::path(D4R_TEST_SOURCE_DIR) / "ptx")) {
    if (entry.is_regular_file() && entry.path().extension() == ".ptx") {
      files.push_back(entry.path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(PtxParser, CorpusRoundTripsWithTheSameEntriesAndInstructions)
{
  std::vector<fs::path> files = corpus_files();
  ASSERT_GE(files.size(), 2u) << "tests/ptx holds at least sr_module.ptx and rr_module.ptx";
  for (const fs::path& file : files) {
    SCOPED_TRACE(file.string());
    std::string text = read_text(file);
    expect_round_trip(text, file.filename().string());
    Module module = parse_ok(text);
    std::vector<std::string> entries;
    int64_t instructions = 0;
    for (const Function* function : functions_of(module)) {
      if (function->is_entry) {
        entries.push_back(function->name);
      }
      if (function->body) {
        instructions += static_cast<int64_t>(instructions_of(function->body->statements).size());
      }
    }
    EXPECT_EQ(entries, d4r::scan_entry_names(text));
    EXPECT_GT(instructions, 0);
    Module printed = parse_ok(print_module(module));
    EXPECT_EQ(functions_of(printed).size(), functions_of(module).size());
  }
}

TEST(PtxParser, SourceInstructionsPrintBackAsWritten)
{
  // nvcc writes "opcode \toperands;": the printer's own layout, so every source instruction line
  // must occur in the printed text.
  std::string text = read_text(fs::path(D4R_TEST_SOURCE_DIR) / "ptx" / "sr_module.ptx");
  std::string printed = print_module(parse_ok(text));
  std::istringstream lines(text);
  int64_t checked = 0;
  for (std::string line; std::getline(lines, line);) {
    size_t first = line.find_first_not_of('\t');
    if (first == std::string::npos || line.back() != ';' || line[first] == '.' || line[first] == '/') {
      continue;
    }
    std::string body = line.substr(first);
    Instruction instruction = parse_instruction(body);
    EXPECT_NE(printed.find(print_instruction(instruction)), std::string::npos) << body;
    ++checked;
  }
  EXPECT_GT(checked, 50);
}

TEST(PtxParser, ModuleDirectivesAndVariables)
{
  Module module = parse_ok(R"(// header
.version 9.0
.target sm_89, debug
.address_size 64
.file 1 "/src/a.cu", 1700000000, 42
.pragma "nounroll";
.extern .shared .align 16 .b8 dyn[];
.global .align 4 .b32 table[2][3] = {{1, 2, 3}, {4, 5, 0x10}};
.const .f32 one = 0f3F800000;
.visible .global .attribute(.managed) .u64 ptr = generic(table)+4;
.global .texref tex0;
.global .b32 a = 1, b;
)");
  ASSERT_EQ(module.items.size(), 13u);
  EXPECT_EQ(std::get<Comment>(module.items[0].value).text, "// header");
  const auto& version = std::get<Directive>(module.items[1].value);
  EXPECT_EQ(version.name, ".version");
  EXPECT_EQ(version.args, std::vector<std::string>{"9.0"});
  EXPECT_EQ(std::get<Directive>(module.items[2].value).args,
            (std::vector<std::string>{"sm_89", ",", "debug"}));
  EXPECT_EQ(std::get<Directive>(module.items[4].value).args,
            (std::vector<std::string>{"1", "\"/src/a.cu\"", ",", "1700000000", ",", "42"}));
  const auto& pragma = std::get<Directive>(module.items[5].value);
  EXPECT_EQ(pragma.end, DirectiveEnd::semicolon);
  EXPECT_EQ(pragma.args, std::vector<std::string>{"\"nounroll\""});
  const auto& dyn = std::get<Variable>(module.items[6].value);
  EXPECT_EQ(dyn.linkage, ".extern");
  EXPECT_EQ(dyn.space, ".shared");
  EXPECT_EQ(dyn.align, 16);
  EXPECT_EQ(dyn.type, ".b8");
  EXPECT_EQ(dyn.dims, std::vector<int64_t>{-1});
  const auto& table = std::get<Variable>(module.items[7].value);
  EXPECT_EQ(table.dims, (std::vector<int64_t>{2, 3}));
  ASSERT_TRUE(table.init.has_value());
  ASSERT_EQ(table.init->elements.size(), 2u);
  EXPECT_EQ(table.init->elements[1].elements[2].scalar, "0x10");
  EXPECT_EQ(std::get<Variable>(module.items[8].value).init->scalar, "0f3F800000");
  const auto& managed = std::get<Variable>(module.items[9].value);
  EXPECT_EQ(managed.attributes, std::vector<std::string>{".attribute(.managed)"});
  EXPECT_EQ(managed.init->scalar, "generic ( table ) + 4");
  EXPECT_EQ(std::get<Variable>(module.items[10].value).type, ".texref");
  EXPECT_EQ(std::get<Variable>(module.items[11].value).name, "a");
  EXPECT_EQ(std::get<Variable>(module.items[12].value).name, "b");
  EXPECT_FALSE(std::get<Variable>(module.items[12].value).init.has_value());
  expect_round_trip(print_module(module), "module directives");
}

TEST(PtxParser, FunctionsWithParamsReturnsAndPerformanceDirectives)
{
  Module module = parse_ok(R"(
.extern .func (.param .b32 ret0) vprintf(.param .b64 fmt, .param .b64 args);
.weak .func helper() .noreturn { ret; }
.visible .entry k(.param .u64 .ptr .global .align 16 p, .param .align 8 .b8 s[24], .param .u32 n)
.maxntid 256, 1, 1
.minnctapersm 2
{
  ret;
}
)");
  std::vector<const Function*> functions = functions_of(module);
  ASSERT_EQ(functions.size(), 3u);
  EXPECT_EQ(functions[0]->linkage, ".extern");
  EXPECT_FALSE(functions[0]->is_entry);
  EXPECT_FALSE(functions[0]->body.has_value());
  ASSERT_EQ(functions[0]->returns.size(), 1u);
  EXPECT_EQ(functions[0]->returns[0].name, "ret0");
  EXPECT_EQ(functions[0]->params.size(), 2u);
  EXPECT_EQ(functions[1]->performance.at(0).name, ".noreturn");
  const Function& entry = *functions[2];
  EXPECT_TRUE(entry.is_entry);
  EXPECT_EQ(entry.name, "k");
  ASSERT_EQ(entry.params.size(), 3u);
  EXPECT_EQ(entry.params[0].pointer, (std::vector<std::string>{".ptr", ".global", ".align", "16"}));
  EXPECT_EQ(entry.params[0].align, 0);
  EXPECT_EQ(entry.params[1].align, 8);
  EXPECT_EQ(entry.params[1].dims, std::vector<int64_t>{24});
  ASSERT_EQ(entry.performance.size(), 2u);
  EXPECT_EQ(entry.performance[0].args, (std::vector<std::string>{"256", ",", "1", ",", "1"}));
  EXPECT_EQ(entry.performance[1].name, ".minnctapersm");
  expect_round_trip(print_module(module), "functions");
}

// PTX 2.x modules (CUDA 3 and 4) end function declarations at the next item, without ';'.
TEST(PtxParser, DeclarationsWithoutSemicolonEndAtTheNextItem)
{
  Module module = parse_ok(R"(
.version 2.3
.target sm_20
.extern .func (.param .b32 ret0) vprintf (.param .b64 fmt, .param .b64 args)
.func helper (.param .u32 x) .noreturn
.global .u32 counter;
.visible .entry k()
{
  ret;
}
.extern .func last ()
)");
  std::vector<const Function*> functions = functions_of(module);
  ASSERT_EQ(functions.size(), 4u);
  EXPECT_EQ(functions[0]->name, "vprintf");
  EXPECT_FALSE(functions[0]->body.has_value());
  EXPECT_EQ(functions[0]->params.size(), 2u);
  EXPECT_EQ(functions[1]->name, "helper");
  EXPECT_FALSE(functions[1]->body.has_value());
  ASSERT_EQ(functions[1]->performance.size(), 1u);
  EXPECT_EQ(functions[1]->performance[0].name, ".noreturn");
  EXPECT_TRUE(functions[2]->body.has_value());
  EXPECT_EQ(functions[3]->name, "last");
  EXPECT_FALSE(functions[3]->body.has_value());
  bool has_counter = std::ranges::any_of(module.items, [](const Item& item) {
    const auto* variable = std::get_if<Variable>(&item.value);
    return variable != nullptr && variable->name == "counter";
  });
  EXPECT_TRUE(has_counter) << "the declaration after helper is a variable, not a directive of it";
  expect_round_trip(print_module(module), "declarations without ';'");
  // Anything else after a header is still an error.
  d4r::Expected<Module> bad = parse_module(".func f() mov.u32 %r1, 1;\n");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("expected '{' or ';' after function 'f'"), std::string::npos)
      << bad.error().message;
}

TEST(PtxParser, BodyDeclarationsLabelsScopesAndDirectives)
{
  d4r::Expected<std::vector<Statement>> body = parse_statements(R"(
  .reg .pred %p<3>;
  .reg .b32 %r<42>, %tmp;
  .local .align 8 .b8 depot[32];
  .shared .v4 .f32 vec4;
  .loc 1 25 3
  .pragma "nounroll";
$L__BB0_1:
  {
    .reg .b32 inner;
    /* scoped */
    mov.u32 inner, 1;
  }
ts: .branchtargets $L__BB0_1, $L__BB0_1;
)");
  ASSERT_TRUE(body.has_value()) << body.error().message;
  ASSERT_EQ(body->size(), 11u);
  const auto& preds = std::get<Variable>((*body)[0].value);
  EXPECT_EQ(preds.space, ".reg");
  EXPECT_EQ(preds.type, ".pred");
  EXPECT_EQ(preds.name, "%p");
  EXPECT_EQ(preds.range, 3);
  EXPECT_EQ(std::get<Variable>((*body)[1].value).range, 42);
  EXPECT_EQ(std::get<Variable>((*body)[2].value).range, -1);
  EXPECT_EQ(std::get<Variable>((*body)[2].value).name, "%tmp");
  EXPECT_EQ(std::get<Variable>((*body)[3].value).space, ".local");
  EXPECT_EQ(std::get<Variable>((*body)[4].value).vector, ".v4");
  const auto& loc = std::get<Directive>((*body)[5].value);
  EXPECT_EQ(loc.args, (std::vector<std::string>{"1", "25", "3"}));
  EXPECT_EQ(loc.end, DirectiveEnd::line);
  EXPECT_EQ(std::get<Directive>((*body)[6].value).name, ".pragma");
  EXPECT_EQ(std::get<Label>((*body)[7].value).name, "$L__BB0_1");
  const auto& scope = std::get<Block>((*body)[8].value);
  ASSERT_EQ(scope.statements.size(), 3u);
  EXPECT_EQ(std::get<Comment>(scope.statements[1].value).text, "/* scoped */");
  EXPECT_EQ(std::get<Label>((*body)[9].value).name, "ts");
  EXPECT_EQ(std::get<Directive>((*body)[10].value).name, ".branchtargets");

  std::string printed;
  print_statements(*body, 1, printed);
  d4r::Expected<std::vector<Statement>> again = parse_statements(printed);
  ASSERT_TRUE(again.has_value()) << again.error().message << "\n" << printed;
  EXPECT_TRUE(*again == *body) << printed;
}

TEST(PtxParser, InstructionsGuardsModifiersAndOperands)
{
  Instruction add = parse_instruction("@!%p1 add.rz.ftz.f32 %f4, %f1, 0f3F000000;");
  ASSERT_TRUE(add.guard.has_value());
  EXPECT_EQ(add.guard->predicate, "%p1");
  EXPECT_TRUE(add.guard->negated);
  EXPECT_EQ(add.opcode, "add");
  EXPECT_EQ(add.modifiers, (std::vector<std::string>{"rz", "ftz", "f32"}));
  ASSERT_EQ(add.operands.size(), 3u);
  EXPECT_EQ(add.operands[0].kind, OperandKind::reg);
  EXPECT_EQ(add.operands[2].kind, OperandKind::floating);
  EXPECT_EQ(add.operands[2].text, "0f3F000000");

  Instruction sust = parse_instruction("sust.b.2d.v4.b16.zero [surf, {%r1, %r2}], {%rs1, _, %rs3, %rs4};");
  EXPECT_EQ(sust.modifiers, (std::vector<std::string>{"b", "2d", "v4", "b16", "zero"}));
  ASSERT_EQ(sust.operands.size(), 2u);
  EXPECT_EQ(sust.operands[0].kind, OperandKind::address);
  ASSERT_EQ(sust.operands[0].elements.size(), 2u);
  EXPECT_EQ(sust.operands[0].elements[0].kind, OperandKind::symbol);
  EXPECT_EQ(sust.operands[0].elements[1].kind, OperandKind::vector);
  EXPECT_EQ(sust.operands[1].elements[1].kind, OperandKind::sink);

  Instruction ld = parse_instruction("ld.global.L1::evict_last.v2.u32 {%r1, %r2}, [%rd1+-8];");
  EXPECT_EQ(ld.modifiers[1], "L1::evict_last");
  EXPECT_EQ(ld.operands[1].elements.at(0).text, "%rd1");
  EXPECT_EQ(ld.operands[1].elements.at(0).offset, "-8");
  EXPECT_EQ(parse_instruction("ld.u32 %r1, [%rd1-8];").operands[1].elements.at(0).offset, "-8");
  EXPECT_EQ(parse_instruction("ld.u32 %r1, [sym+16];").operands[1].elements.at(0).offset, "16");

  Instruction setp = parse_instruction("setp.lt.and.s32 %p1|%p2, %r1, -5, !%p3;");
  EXPECT_EQ(setp.operands[0].kind, OperandKind::pair);
  EXPECT_EQ(setp.operands[0].elements.at(1).text, "%p2");
  EXPECT_EQ(setp.operands[2].kind, OperandKind::integer);
  EXPECT_EQ(setp.operands[2].text, "-5");
  EXPECT_TRUE(setp.operands[3].negated);

  Instruction call = parse_instruction("call.uni (retval0), vprintf, (param0, param1);");
  EXPECT_EQ(call.operands[0].kind, OperandKind::list);
  EXPECT_EQ(call.operands[1].kind, OperandKind::symbol);
  EXPECT_EQ(call.operands[2].elements.size(), 2u);
  EXPECT_TRUE(parse_instruction("ret;").operands.empty());
  EXPECT_EQ(parse_instruction("mov.u32 %r1, %tid.x;").operands[1].text, "%tid.x");
  EXPECT_EQ(parse_instruction("mov.f64 %fd1, 0d3FF0000000000000;").operands[1].kind,
            OperandKind::floating);
  EXPECT_EQ(parse_instruction("mov.f32 %f1, 1.5e-3;").operands[1].kind, OperandKind::floating);
  EXPECT_EQ(parse_instruction("and.b32 %r1, %r2, 0xFF;").operands[2].kind, OperandKind::integer);

  // An opcode no pass knows is just text: it parses and prints back.
  Instruction unknown = parse_instruction("frobnicate.sync.x9 {%r1, %r2}, [%rd1], 0f00000000;");
  EXPECT_EQ(print_instruction(unknown), "frobnicate.sync.x9 \t{%r1, %r2}, [%rd1], 0f00000000;");
  EXPECT_EQ(print_instruction(add), "@!%p1 add.rz.ftz.f32 \t%f4, %f1, 0f3F000000;");
  EXPECT_EQ(print_instruction(ld), "ld.global.L1::evict_last.v2.u32 \t{%r1, %r2}, [%rd1+-8];");
}

struct BadInput {
  const char* text;
  const char* position;
  const char* message;
};

TEST(PtxParser, ErrorsNameLineAndColumn)
{
  const BadInput cases[] = {
      {".version 9.0\n.entry k()\n{\n\tadd.s32 %r1, %r2\n}\n", "ptx:5:1:",
       "expected ';' after instruction 'add.s32'"},
      {".version 9.0\n.entry k()\n{\n\tret;\n", "ptx:5:1:", "expected '}' to close the block opened at 3:1"},
      {".entry k()\n{\n  mov.u32 %r1, #;\n}\n", "ptx:3:16:", "unexpected character '#'"},
      {".entry k()\n{\n  .reg .b32 %r<x>;\n}\n", "ptx:3:16:", "expected a register count"},
      {"  add.s32 %r1, %r2, 1;\n", "ptx:1:3:", "expected a directive"},
      {".global .b32 x[3] = {1, 2\n", "ptx:2:1:", "after an initialiser"},
      {".entry k(.param .u32 a .param .u32 b)\n{\n}\n", "ptx:1:24:", "expected ',' between parameters"},
      {".entry k()\n{\n  ld.u32 %r1, [%rd1+];\n}\n", "ptx:3:21:", "expected an offset"},
      {".func f() \"x\"\n", "ptx:1:11:", "expected '{' or ';' after function 'f'"},
      {".const .b32 c = \"open\n", "ptx:1:17:", "unterminated string"},
      {"/* never closed\n.version 9.0\n", "ptx:1:1:", "unterminated block comment"},
      {".entry k()\n{\n  @!;\n}\n", "ptx:3:5:", "expected a predicate after '@'"},
      {".global x;\n", "ptx:1:9:", "expected a type in the declaration"},
      // Found by fuzz_ptx_parser: two types would print in another order on every round trip.
      {".entry k(.param .u16.u64 a)\n{\n}\n", "ptx:1:", "a declaration has one type"},
      // Found by fuzz_ptx_parser: a variable qualified by .entry printed as a function's start.
      {".visible .entry.align 4 .f64 s = 1;\n", "ptx:1:", "'.entry' cannot qualify a declaration"},
      // Found by fuzz_ptx_parser: ".attribute" joined to the next word printed apart from it.
      {".entry k(.param .attribute.u32 a)\n{\n}\n", "ptx:1:", "expected '(' after '.attribute'"},
      {".entry k(.param .u64 .ptr .attribute.u32 a)\n{\n}\n", "ptx:1:", "expected '(' after '.attribute'"},
  };
  for (const BadInput& bad : cases) {
    SCOPED_TRACE(bad.text);
    d4r::Expected<Module> module = parse_module(bad.text);
    ASSERT_FALSE(module.has_value());
    EXPECT_EQ(module.error().code, d4r::ErrorCode::invalid_argument);
    EXPECT_EQ(module.error().message.rfind(bad.position, 0), 0u) << module.error().message;
    EXPECT_NE(module.error().message.find(bad.message), std::string::npos) << module.error().message;
  }
}

// Found by fuzz_ptx_parser: an unknown qualifier before the type used to become the type, and the
// real type an attribute, so print and parse swapped them on every round.
TEST(PtxParser, OnlyAKnownTypeWordIsTheType)
{
  d4r::Expected<Module> module =
      parse_module(".version 8.0\n.extern .func helper(.iaram .b64 b);\n");
  ASSERT_TRUE(module) << module.error().message;
  std::string printed = print_module(*module);
  d4r::Expected<Module> again = parse_module(printed);
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ(print_module(*again), printed);
  EXPECT_TRUE(*again == *module);
}

TEST(PtxParser, CommentsAreKeptWhereStatementsStart)
{
  Module module = parse_ok(".version 9.0 // trailing\n.entry k()\n{\n\tret; // done\n\t/* end */\n}\n");
  ASSERT_EQ(module.items.size(), 3u);
  EXPECT_EQ(std::get<Comment>(module.items[1].value).text, "// trailing");
  const Block& body = *std::get<Function>(module.items[2].value).body;
  ASSERT_EQ(body.statements.size(), 3u);
  EXPECT_EQ(std::get<Comment>(body.statements[1].value).text, "// done");
  EXPECT_EQ(std::get<Comment>(body.statements[2].value).text, "/* end */");
  expect_round_trip(print_module(module), "comments");
}

TEST(PtxParser, EditedTreesPrintTheEdit)
{
  Module module = parse_ok(".version 9.0\n.target sm_89\n.address_size 64\n.entry k()\n{\n"
                           "\tadd.rz.f32 %f1, %f2, %f3;\n\tret;\n}\n");
  Function& function = std::get<Function>(module.items[3].value);
  Instruction& add = std::get<Instruction>(function.body->statements[0].value);
  add.modifiers = {"rn", "f32"};
  d4r::Expected<std::vector<Statement>> extra = parse_statements("cvt.rzi.f32.f32 %f4, %f1;");
  ASSERT_TRUE(extra.has_value());
  function.body->statements.insert(function.body->statements.begin() + 1, extra->front());
  std::string printed = print_module(module);
  EXPECT_NE(printed.find("add.rn.f32 \t%f1, %f2, %f3;\n\tcvt.rzi.f32.f32 \t%f4, %f1;\n\tret;"),
            std::string::npos)
      << printed;
  EXPECT_TRUE(parse_ok(printed) == module);
}

// The input decides how deep blocks, initialiser lists and operand lists nest, and everything that
// walks the tree recurses: 200 000 levels (which overflowed the stack) are an error at level 257,
// while 256 levels parse, print and parse back.
TEST(PtxParser, NestingIsBoundedWithAnError)
{
  auto nested = [](int64_t depth, std::string_view open, std::string_view close,
                   std::string_view prefix, std::string_view inner, std::string_view suffix) {
    std::string text(prefix);
    for (int64_t i = 0; i < depth; ++i) {
      text += open;
    }
    text += inner;
    for (int64_t i = 0; i < depth; ++i) {
      text += close;
    }
    return text + std::string(suffix);
  };
  struct Deep {
    std::string_view open, close, prefix, inner, suffix;
  };
  const Deep forms[] = {
      {"{\n", "}\n", ".entry k()\n", "ret;\n", ""},                  // scopes in a body
      {"{", "}", ".global .b32 x[1] = ", "1", ";\n"},                   // initialiser lists
      {"[", "]", ".entry k()\n{\nld.u32 %r1, ", "%rd1", ";\n}\n"},   // operand lists
  };
  for (const Deep& form : forms) {
    SCOPED_TRACE(form.prefix);
    d4r::Expected<Module> deep =
        parse_module(nested(200000, form.open, form.close, form.prefix, form.inner, form.suffix));
    ASSERT_FALSE(deep.has_value());
    EXPECT_EQ(deep.error().code, d4r::ErrorCode::invalid_argument);
    EXPECT_NE(deep.error().message.find("nesting deeper than 256 levels"), std::string::npos)
        << deep.error().message;
  }
  // 255 scopes inside the body's own block: 256 levels, the most that parses.
  std::string deepest = nested(255, "{\n", "}\n", ".entry k()\n{\n", "ret;\n", "}\n");
  d4r::Expected<Module> module = parse_module(deepest);
  ASSERT_TRUE(module.has_value()) << module.error().message;
  d4r::Expected<Module> again = parse_module(print_module(*module));
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_TRUE(*again == *module);
  d4r::Expected<Module> one_more =
      parse_module(nested(256, "{\n", "}\n", ".entry k()\n{\n", "ret;\n", "}\n"));
  EXPECT_FALSE(one_more.has_value());
  // A predicate pair is p|q: a chain of '|' is an error, not a recursion as deep as the chain.
  std::string chain = ".entry k()\n{\nsetp.eq.u32 %p1";
  for (int i = 0; i < 200000; ++i) {
    chain += "|%p1";
  }
  d4r::Expected<Module> chained = parse_module(chain + ", %r1, %r2;\n}\n");
  ASSERT_FALSE(chained.has_value());
  EXPECT_NE(chained.error().message.find("a predicate pair holds two predicates"),
            std::string::npos)
      << chained.error().message;
}

// vmad negates its sources with '-' (vmad.s32.s32.s32 d, -a, b, -c): such a module parses and
// prints back, so that one kernel using vmad does not make every kernel of its module unreadable.
TEST(PtxParser, MinusOnARegisterOperand)
{
  Module module = parse_ok(".entry k()\n{\n  vmad.s32.s32.s32 %r1, -%r2, %r3, -%r4;\n}\n");
  std::vector<const Function*> functions = functions_of(module);
  ASSERT_EQ(functions.size(), 1u);
  std::vector<const Instruction*> instructions = instructions_of(functions[0]->body->statements);
  ASSERT_EQ(instructions.size(), 1u);
  const std::vector<Operand>& operands = instructions[0]->operands;
  ASSERT_EQ(operands.size(), 4u);
  EXPECT_FALSE(operands[0].minus);
  EXPECT_TRUE(operands[1].minus);
  EXPECT_EQ(operands[1].text, "%r2");
  EXPECT_FALSE(operands[2].minus);
  EXPECT_TRUE(operands[3].minus);
  std::string printed = print_module(module);
  EXPECT_NE(printed.find("-%r2, %r3, -%r4"), std::string::npos) << printed;
  expect_round_trip(printed, "minus operands");
  d4r::Expected<Module> bad = parse_module(".entry k()\n{\n  add.s32 %r1, -, %r2;\n}\n");
  ASSERT_FALSE(bad.has_value());
  EXPECT_NE(bad.error().message.find("expected a number or a register after '-'"),
            std::string::npos)
      << bad.error().message;
}

TEST(PtxParser, GeneratedFiveMegabyteModule)
{
  std::string text = generated_module(5u << 20);
  using Clock = std::chrono::steady_clock;
  Clock::time_point start = Clock::now();
  d4r::Expected<Module> module = parse_module(text);
  Clock::time_point parsed = Clock::now();
  ASSERT_TRUE(module.has_value()) << module.error().message;
  std::string printed = print_module(*module);
  Clock::time_point done = Clock::now();
  std::printf("generated module: %.1f MB, parse %.1f ms, print %.1f ms\n",
              static_cast<double>(text.size()) / 1e6,
              std::chrono::duration<double, std::milli>(parsed - start).count(),
              std::chrono::duration<double, std::milli>(done - parsed).count());
  std::vector<const Function*> functions = functions_of(*module);
  ASSERT_FALSE(functions.empty());
  EXPECT_EQ(instructions_of(functions.back()->body->statements).size(), 1u + 40u * 7u + 1u);
  d4r::Expected<Module> again = parse_module(printed);
  ASSERT_TRUE(again.has_value()) << again.error().message;
  EXPECT_TRUE(*again == *module);
}

} // namespace
