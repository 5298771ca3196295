#pragma once
// Shared by the tests of compiler/passes/: corpus loading, instruction lists of a module (in
// order, through nested scopes) and the checks every rewrite must pass (print -> parse, one
// declaration per helper).

#include "compiler/ptx/ast.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/ptx/printer.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

namespace d4r::test {

namespace ptx = d4r::compiler::ptx;

inline ptx::Module load_corpus_module(const std::string& file)
{
  std::ifstream in(std::filesystem::path(D4R_TEST_SOURCE_DIR) / "ptx" / file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  EXPECT_FALSE(text.str().empty()) << file;
  d4r::Expected<ptx::Module> module = ptx::parse_module(text.str());
  EXPECT_TRUE(module.has_value()) << file << ": " << (module ? "" : module.error().message);
  return module ? *module : ptx::Module{};
}

inline ptx::Module parse_text(const std::string& text)
{
  d4r::Expected<ptx::Module> module = ptx::parse_module(text);
  EXPECT_TRUE(module.has_value()) << (module ? "" : module.error().message);
  return module ? *module : ptx::Module{};
}

// Runs of spaces, tabs and newlines become one space: layout-free text to compare against.
inline std::string collapse_spaces(const std::string& text)
{
  std::string out;
  for (char c : text) {
    bool space = c == ' ' || c == '\t' || c == '\n';
    if (!space) {
      out += c;
    } else if (!out.empty() && out.back() != ' ') {
      out += ' ';
    }
  }
  return out;
}

// An instruction as one line without its layout tab and final ';' ("add.s32 %r1, %r2, 1").
inline std::string instruction_line(const ptx::Instruction& instruction)
{
  std::string line = collapse_spaces(ptx::print_instruction(instruction));
  if (!line.empty() && line.back() == ';') {
    line.pop_back();
  }
  return line;
}

using BlockFilter = std::function<bool(const ptx::Block&)>;

// Every instruction and label of a body in order, printed; blocks the filter accepts are left out.
inline void flatten(const ptx::Block& block, const BlockFilter& skip, std::vector<std::string>& out)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      if (!skip(*inner)) {
        flatten(*inner, skip, out);
      }
    } else if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      out.push_back(instruction_line(*instruction));
    } else if (const auto* label = std::get_if<ptx::Label>(&statement.value)) {
      out.push_back(label->name + ":");
    }
  }
}

inline std::vector<std::string> flatten_module(const ptx::Module& module, const BlockFilter& skip)
{
  std::vector<std::string> out;
  for (const ptx::Item& item : module.items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function != nullptr && function->body) {
      out.push_back("function " + function->name);
      flatten(*function->body, skip, out);
    }
  }
  return out;
}

inline void visit_instructions(const ptx::Block& block,
                               const std::function<void(const ptx::Instruction&)>& visit)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      visit_instructions(*inner, visit);
    } else if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      visit(*instruction);
    }
  }
}

inline int64_t count_instructions(const ptx::Module& module,
                                  const std::function<bool(const ptx::Instruction&)>& match)
{
  int64_t count = 0;
  for (const ptx::Item& item : module.items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function != nullptr && function->body) {
      visit_instructions(*function->body, [&](const ptx::Instruction& instruction) {
        count += match(instruction) ? 1 : 0;
      });
    }
  }
  return count;
}

// "call [(ret),] callee, (args)": the callee is the first symbol operand.
inline std::string callee_of(const ptx::Instruction& instruction)
{
  if (instruction.opcode != "call") {
    return {};
  }
  for (const ptx::Operand& operand : instruction.operands) {
    if (operand.kind == ptx::OperandKind::symbol) {
      return operand.text;
    }
  }
  return {};
}

inline int64_t count_calls(const ptx::Module& module, const std::string& callee)
{
  return count_instructions(module, [&](const ptx::Instruction& instruction) {
    return callee_of(instruction) == callee;
  });
}

// How many items declare or define name, and whether the first of them precedes every body.
struct DeclarationFacts {
  int64_t count = 0;
  bool before_bodies = false;
  bool is_extern_declaration = false;
};

inline DeclarationFacts declaration_facts(const ptx::Module& module, const std::string& name)
{
  DeclarationFacts facts;
  bool seen_body = false;
  for (const ptx::Item& item : module.items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function == nullptr) {
      continue;
    }
    if (function->name == name) {
      if (facts.count == 0) {
        facts.before_bodies = !seen_body;
        facts.is_extern_declaration = function->linkage == ".extern" && !function->body;
      }
      ++facts.count;
    }
    seen_body = seen_body || function->body.has_value();
  }
  return facts;
}

inline void expect_reparses(const ptx::Module& module)
{
  std::string printed = ptx::print_module(module);
  d4r::Expected<ptx::Module> again = ptx::parse_module(printed);
  ASSERT_TRUE(again.has_value()) << again.error().message << "\n" << printed;
  EXPECT_TRUE(*again == module) << "print -> parse changed the rewritten tree";
}

} // namespace d4r::test
