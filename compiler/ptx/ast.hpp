#pragma once
// The PTX module as passes see it: plain structs with public fields, built by parser.hpp and
// printed by printer.hpp. A module is a list of top-level items; a function body is a block, a
// list of statements. Instructions are an open set: the opcode and its dot-separated modifiers are
// strings in source order ("add.rz.ftz.f32" is opcode "add", modifiers {"rz", "ftz", "f32"}), so
// an instruction no pass knows still parses and prints. Immediates keep their exact spelling
// (0f3F800000 stays 0f3F800000).
//
// Equality (operator==) compares trees, not layout: source positions never take part, so
// parse(print(parse(x))) == parse(x) holds for any x the parser accepts.

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace d4r::compiler::ptx {

// Where an item starts in the source (1-based; 0 for items built by passes). Always compares
// equal: positions describe the text, not the program.
struct SourcePos {
  int32_t line = 0;
  int32_t column = 0;
  bool operator==(const SourcePos&) const { return true; }
};

// "// text" or "/* text */", exactly as written (delimiters included).
struct Comment {
  std::string text;
  bool operator==(const Comment&) const = default;
};

// How a directive's arguments end: at the end of its line (.version, .target, .address_size,
// .file, .loc, and the performance directives of a function), at ';' (.pragma, .alias,
// .branchtargets, .callprototype, ...), or at the brace closing its block (.section).
enum class DirectiveEnd { line, semicolon, block };

// A directive kept as written: name with its dot (".target") and argument tokens in order,
// commas and braces included ({"sm_86", ",", "debug"}); strings keep their quotes.
struct Directive {
  std::string name;
  std::vector<std::string> args;
  DirectiveEnd end = DirectiveEnd::line;
  SourcePos pos;
  bool operator==(const Directive&) const = default;
};

// "= 1", "= {1, 2}", "= {{1, 2}, {3, 4}}", "= generic(sym)+4": a scalar is its tokens joined by
// single spaces; a list holds nested initialisers.
struct Initializer {
  bool is_list = false;
  std::string scalar;
  std::vector<Initializer> elements;
  bool operator==(const Initializer&) const = default;
};

// One declared name, at top level (.global/.const/.shared...), in a body (.reg/.local/.shared/
// .param) or as a function parameter. "a, b" declarations are split into one Variable per name.
// Printed as: linkage space attributes .align vector type pointer name<range>[dims] = init.
struct Variable {
  std::string linkage;                 // "", ".visible", ".extern", ".weak", ".common"
  std::string space;                   // ".reg", ".global", ".shared", ".param", ...
  std::vector<std::string> attributes; // ".attribute(.managed)" and unknown qualifiers, in order
  int64_t align = 0;                   // 0: no .align
  std::string vector;                  // "", ".v2", ".v4", ".v8"
  std::string type;                    // ".b32", ".pred", ".texref", ...
  std::vector<std::string> pointer;    // parameter pointer tail: {".ptr", ".global", ".align", "16"}
  std::string name;
  int64_t range = -1;                  // %r<42>: 42; -1 when the name is not a range
  std::vector<int64_t> dims;           // array dimensions; -1 for an unsized "[]"
  std::optional<Initializer> init;
  SourcePos pos;
  bool operator==(const Variable&) const = default;
};

enum class OperandKind {
  reg,       // %r1, %tid.x, %rd4 (may carry an offset inside an address)
  symbol,    // a variable, label, parameter or function name
  integer,   // 42, -1, 0x1F, 7U
  floating,  // 0f3F800000, 0d3FF0000000000000, 1.5
  address,   // [base+offset] or [tex, {x, y}]: elements in order
  vector,    // {a, b, c, d}
  list,      // (a, b): call arguments and return values
  pair,      // %p|%q: setp's two destinations; {d..}|%p: tex/tld4's and its residency predicate
  sink,      // _
};

struct Operand {
  OperandKind kind = OperandKind::reg;
  std::string text;              // register or symbol name, or the immediate as spelled
  std::string offset;            // "4" or "-4" after a name ("[%rd1+4]"); empty: none
  bool negated = false;          // !%p
  bool minus = false;            // -%r1: a negated source register (vmad's: lower_video.cpp)
  std::vector<Operand> elements; // address, vector, list, pair
  bool operator==(const Operand&) const = default;
};

struct Guard {
  std::string predicate; // "%p1"
  bool negated = false;  // @!%p1
  bool operator==(const Guard&) const = default;
};

struct Instruction {
  std::optional<Guard> guard;
  std::string opcode;
  std::vector<std::string> modifiers; // without their dots
  std::vector<Operand> operands;
  SourcePos pos;
  bool operator==(const Instruction&) const = default;
};

struct Label {
  std::string name;
  SourcePos pos;
  bool operator==(const Label&) const = default;
};

struct Statement;

// A function body or an inline "{ }" scope.
struct Block {
  std::vector<Statement> statements;
  SourcePos pos;
  bool operator==(const Block& other) const;
};

struct Statement {
  std::variant<Instruction, Label, Variable, Directive, Comment, Block> value;
  bool operator==(const Statement&) const = default;
};

inline bool Block::operator==(const Block& other) const
{
  return statements == other.statements;
}

struct Function {
  std::string linkage; // "", ".visible", ".extern", ".weak"
  bool is_entry = false;
  std::vector<Variable> returns; // .func only
  std::string name;
  std::vector<Variable> params;
  std::vector<Directive> performance; // .maxntid, .reqntid, .minnctapersm, .noreturn, ...
  std::optional<Block> body;          // none: a declaration ending in ';'
  SourcePos pos;
  bool operator==(const Function&) const = default;
};

struct Item {
  std::variant<Directive, Variable, Function, Comment> value;
  bool operator==(const Item&) const = default;
};

struct Module {
  std::vector<Item> items;
  bool operator==(const Module&) const = default;
};

} // namespace d4r::compiler::ptx
