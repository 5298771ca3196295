#include "compiler/passes/roundf_idiom.hpp"

// nvcc compiles roundf(x) (round half away from zero) under -ftz=true to
//
//     mov.f32         %c, 0f3F000000;         // 0.5, often hoisted and shared
//     copysign.f32    %s, %x, %c;             // s = 0.5 with the sign of x
//     add.rz.ftz.f32  %d, %x, %s;             // d = x + s rounded toward zero
//     cvt.rzi.f32.f32 %r, %d;                 // r = trunc(d)
//
// The .rz on the add is essential: with round-to-nearest, x = 0.49999997 (0.5 - 2^-25) gives
// x + 0.5 = 1 - 2^-25, which rounds to 1.0 and then truncates to 1 instead of 0. AMDGPU code
// generated from LLVM IR cannot use a per-instruction rounding mode without strict-FP mode, so this
// pass replaces the pair by a sequence in which every operation is exact:
//
//     cvt.rzi[.ftz].f32.f32  %t, %x;          // t = trunc(x)
//     sub[.ftz].f32          %u, %x, %t;      // u = x - t, the signed fraction
//     abs[.ftz].f32          %a, %u;
//     setp.ge[.ftz].f32      %p, %a, 0.5;
//     add[.ftz].f32          %w, %s, %s;      // w = +-1 with the sign of x
//     add[.ftz].f32          %w, %t, %w;
//     selp.f32               %r, %w, %t, %p;  // r = p ? t + (s + s) : t
//
// Why it is exact (no operation rounds, so the rounding mode does not matter and no double
// rounding can happen):
// - trunc is exact by definition.
// - x - t: for |x| < 1, t = +-0 and u = x. For 1 <= |x| < 2^23, x and t are both multiples of
//   ulp(x) <= 1 and |u| < 1, so u is a multiple of ulp(x) below 2^23 ulps: representable. For
//   |x| >= 2^23 every float is an integer and u = 0.
// - s + s doubles +-0.5: exactly +-1 (the pass checks that s is copysign(x, 0.5), see below).
// - t + (s + s) is only selected when |u| >= 0.5, so x is not an integer, |x| < 2^23 and
//   |t| <= 2^23 - 1; t and s + s have the sign of x, so the sum is |t| + 1 <= 2^23: exact.
// The original computes the same value: for 0 <= x < 2^23, x + 0.5 lies in [floor(x + 0.5),
// floor(x + 0.5) + 1) and that floor is an integer below 2^24, hence representable, so rounding
// toward zero cannot cross it and trunc(rz(x + 0.5)) = floor(x + 0.5); for x >= 2^23, x + 0.5
// rounds toward zero to x. Negative x is the mirror image. Signed zeros agree (trunc keeps the
// sign, and the original's d has the sign of x), a subnormal x gives +-0 in both (flushed by the
// .ftz add, truncated by cvt.rzi here), infinities give themselves (inf - inf is NaN, the compare
// is false, r = t) and NaN stays NaN. tests/unit/test_compiler_pass_roundf.cpp checks this bit
// for bit on the host.
//
// Because the argument needs s = +-0.5, the pass proves it: s must have exactly one writer in the
// function, `copysign.f32 s, x, c`, with c the immediate 0.5 or a register that every writer sets
// to 0f3F000000. The result d must be read by the cvt.rzi only. Each idiom uses four new f32
// registers %rq and one predicate %pq, declared as %rq<4n+1> and %pq<n+1> before the function's
// first .reg, as make_ptx.py does (d4r-contract.md section 4).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#floating-point-instructions-add
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-cvt

#include "compiler/ptx/parser.hpp"
#include "compiler/ptx/printer.hpp"

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace d4r::compiler::passes {

namespace {

constexpr std::string_view k_half = "0f3F000000";
constexpr std::string_view k_temp_f32 = "%rq";
constexpr std::string_view k_temp_pred = "%pq";

struct Context {
  const ptx::Block& original; // the body before rewriting, for def/use queries
  std::string_view kernel;
  int64_t count = 0;
  bool strict = true; // an add.rz that is not a proven idiom fails the pass; else it stays
};

[[nodiscard]] bool is_reg(const ptx::Operand& operand)
{
  return operand.kind == ptx::OperandKind::reg && operand.offset.empty() && !operand.negated;
}

[[nodiscard]] bool is_add_rz(const ptx::Instruction& instruction)
{
  if (instruction.opcode != "add") {
    return false;
  }
  for (const std::string& modifier : instruction.modifiers) {
    if (modifier == "rz") {
      return true;
    }
  }
  return false;
}

[[nodiscard]] bool has_ftz(const ptx::Instruction& instruction)
{
  return instruction.modifiers.size() == 3 && instruction.modifiers[1] == "ftz";
}

[[nodiscard]] bool is_f32_add_rz(const ptx::Instruction& instruction)
{
  using Mods = std::vector<std::string>;
  const bool shape = instruction.modifiers == Mods{"rz", "f32"}
                     || instruction.modifiers == Mods{"rz", "ftz", "f32"};
  return shape && instruction.operands.size() == 3 && is_reg(instruction.operands[0])
         && is_reg(instruction.operands[1]) && is_reg(instruction.operands[2]);
}

[[nodiscard]] bool is_trunc_of(const ptx::Instruction& instruction, const std::string& reg)
{
  using Mods = std::vector<std::string>;
  const bool shape = instruction.opcode == "cvt"
                     && (instruction.modifiers == Mods{"rzi", "f32", "f32"}
                         || instruction.modifiers == Mods{"rzi", "ftz", "f32", "f32"});
  return shape && instruction.operands.size() == 2 && is_reg(instruction.operands[0])
         && is_reg(instruction.operands[1]) && instruction.operands[1].text == reg;
}

void count_in_operand(const ptx::Operand& operand, std::string_view reg, int64_t& count)
{
  if ((operand.kind == ptx::OperandKind::reg || operand.kind == ptx::OperandKind::symbol)
      && operand.text == reg) {
    ++count;
  }
  for (const ptx::Operand& element : operand.elements) {
    count_in_operand(element, reg, count);
  }
}

// Every mention of reg in instructions (operands and guards), nested scopes included.
[[nodiscard]] int64_t count_mentions(const ptx::Block& block, std::string_view reg)
{
  int64_t count = 0;
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* nested = std::get_if<ptx::Block>(&statement.value)) {
      count += count_mentions(*nested, reg);
      continue;
    }
    const auto* instruction = std::get_if<ptx::Instruction>(&statement.value);
    if (instruction == nullptr) {
      continue;
    }
    if (instruction->guard && instruction->guard->predicate == reg) {
      ++count;
    }
    for (const ptx::Operand& operand : instruction->operands) {
      count_in_operand(operand, reg, count);
    }
  }
  return count;
}

// Instructions whose first operand (the destination) is reg.
void collect_writers(const ptx::Block& block, std::string_view reg,
                     std::vector<const ptx::Instruction*>& writers)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* nested = std::get_if<ptx::Block>(&statement.value)) {
      collect_writers(*nested, reg, writers);
      continue;
    }
    const auto* instruction = std::get_if<ptx::Instruction>(&statement.value);
    if (instruction != nullptr && !instruction->operands.empty()
        && is_reg(instruction->operands[0]) && instruction->operands[0].text == reg) {
      writers.push_back(instruction);
    }
  }
}

[[nodiscard]] bool is_half(const ptx::Operand& operand, const ptx::Block& body)
{
  if (operand.kind == ptx::OperandKind::floating) {
    return operand.text == k_half;
  }
  if (!is_reg(operand)) {
    return false;
  }
  std::vector<const ptx::Instruction*> writers;
  collect_writers(body, operand.text, writers);
  for (const ptx::Instruction* writer : writers) {
    const bool mov = writer->opcode == "mov" && writer->modifiers.size() == 1
                     && (writer->modifiers[0] == "f32" || writer->modifiers[0] == "b32");
    if (!mov || writer->guard || writer->operands.size() != 2
        || writer->operands[1].kind != ptx::OperandKind::floating
        || writer->operands[1].text != k_half) {
      return false;
    }
  }
  return !writers.empty();
}

// True when s has one writer, copysign.f32 s, x, 0.5.
[[nodiscard]] bool is_signed_half_of(const std::string& s, const std::string& x,
                                     const ptx::Block& body)
{
  std::vector<const ptx::Instruction*> writers;
  collect_writers(body, s, writers);
  if (writers.size() != 1) {
    return false;
  }
  const ptx::Instruction& writer = *writers[0];
  return writer.opcode == "copysign" && writer.modifiers == std::vector<std::string>{"f32"}
         && !writer.guard && writer.operands.size() == 3 && is_reg(writer.operands[1])
         && writer.operands[1].text == x && is_half(writer.operands[2], body);
}

[[nodiscard]] std::string where(const Context& context, const ptx::Instruction& instruction)
{
  return "roundf: " + std::string(context.kernel) + ":" + std::to_string(instruction.pos.line)
         + ": '" + ptx::print_instruction(instruction) + "'";
}

// The index of the cvt.rzi that completes the add.rz at index add: the next instruction, with
// comments and directives (.loc) in between skipped.
[[nodiscard]] Expected<size_t> find_truncation(const std::vector<ptx::Statement>& statements,
                                               size_t add, const Context& context)
{
  const auto& instruction = std::get<ptx::Instruction>(statements[add].value);
  if (!is_f32_add_rz(instruction)) {
    return make_error(ErrorCode::rejected,
                      where(context, instruction)
                          + ": only add.rz[.ftz].f32 on registers is rewritten");
  }
  size_t next = add + 1;
  while (next < statements.size()
         && (std::holds_alternative<ptx::Comment>(statements[next].value)
             || std::holds_alternative<ptx::Directive>(statements[next].value))) {
    ++next;
  }
  const ptx::Instruction* cvt =
      next < statements.size() ? std::get_if<ptx::Instruction>(&statements[next].value) : nullptr;
  if (cvt == nullptr || !is_trunc_of(*cvt, instruction.operands[0].text)
      || cvt->guard != instruction.guard) {
    return make_error(ErrorCode::rejected,
                      where(context, instruction)
                          + ": lone add.rz (not followed by cvt.rzi.f32.f32 of its result)");
  }
  return next;
}

// The x and s operands of the add, proven to be copysign(x, 0.5) for s (either order).
[[nodiscard]] Expected<std::pair<std::string, std::string>>
find_operands(const ptx::Instruction& add, const Context& context)
{
  const std::string& a = add.operands[1].text;
  const std::string& b = add.operands[2].text;
  if (is_signed_half_of(b, a, context.original)) {
    return std::pair{a, b};
  }
  if (is_signed_half_of(a, b, context.original)) {
    return std::pair{b, a};
  }
  return make_error(ErrorCode::rejected,
                    where(context, add)
                        + ": no operand is 'copysign.f32 s, x, 0.5' of the other (defined once)");
}

[[nodiscard]] Expected<std::vector<ptx::Statement>>
replace_idiom(const ptx::Instruction& add, const ptx::Instruction& cvt, Context& context)
{
  const std::string& d = add.operands[0].text;
  if (count_mentions(context.original, d) != 2) {
    return make_error(ErrorCode::rejected,
                      where(context, add) + ": " + d + " is used outside the idiom");
  }
  TRY_ASSIGN(const auto operands, find_operands(add, context));
  const auto& [x, s] = operands;
  ++context.count;
  const int64_t base = 4 * (context.count - 1);
  const auto temp = [base](int64_t i) { return std::string(k_temp_f32) + std::to_string(base + i); };
  const std::string p = std::string(k_temp_pred) + std::to_string(context.count);
  const std::string ftz = has_ftz(add) ? ".ftz" : "";
  std::string guard;
  if (add.guard) {
    guard = std::string("@") + (add.guard->negated ? "!" : "") + add.guard->predicate + " ";
  }
  const std::string text =
      guard + "cvt.rzi" + ftz + ".f32.f32 " + temp(1) + ", " + x + ";\n"
      + guard + "sub" + ftz + ".f32 " + temp(2) + ", " + x + ", " + temp(1) + ";\n"
      + guard + "abs" + ftz + ".f32 " + temp(3) + ", " + temp(2) + ";\n"
      + guard + "setp.ge" + ftz + ".f32 " + p + ", " + temp(3) + ", " + std::string(k_half) + ";\n"
      + guard + "add" + ftz + ".f32 " + temp(4) + ", " + s + ", " + s + ";\n"
      + guard + "add" + ftz + ".f32 " + temp(4) + ", " + temp(1) + ", " + temp(4) + ";\n"
      + guard + "selp.f32 " + cvt.operands[0].text + ", " + temp(4) + ", " + temp(1) + ", " + p
      + ";\n";
  return ptx::parse_statements(text);
}

[[nodiscard]] Expected<void> rewrite_block(ptx::Block& block, Context& context)
{
  std::vector<ptx::Statement>& statements = block.statements;
  std::vector<ptx::Statement> out;
  out.reserve(statements.size());
  for (size_t i = 0; i < statements.size(); ++i) {
    if (auto* nested = std::get_if<ptx::Block>(&statements[i].value)) {
      TRY(rewrite_block(*nested, context));
      out.push_back(std::move(statements[i]));
      continue;
    }
    const auto* add = std::get_if<ptx::Instruction>(&statements[i].value);
    if (add == nullptr || !is_add_rz(*add)) {
      out.push_back(std::move(statements[i]));
      continue;
    }
    Expected<size_t> found = find_truncation(statements, i, context);
    Expected<std::vector<ptx::Statement>> rewritten =
        found ? replace_idiom(*add, std::get<ptx::Instruction>(statements[*found].value), context)
              : std::unexpected(found.error());
    if (!rewritten && !context.strict) {
      out.push_back(std::move(statements[i]));
      continue;
    }
    TRY_ASSIGN(std::vector<ptx::Statement> replacement, std::move(rewritten));
    const size_t cvt = *found;
    for (size_t between = i + 1; between < cvt; ++between) {
      out.push_back(std::move(statements[between]));
    }
    for (ptx::Statement& statement : replacement) {
      out.push_back(std::move(statement));
    }
    i = cvt;
  }
  statements = std::move(out);
  return {};
}

[[nodiscard]] ptx::Statement register_declaration(std::string_view type, std::string_view name,
                                                  int64_t range)
{
  ptx::Variable variable;
  variable.space = ".reg";
  variable.type = std::string(type);
  variable.name = std::string(name);
  variable.range = range;
  return ptx::Statement{variable};
}

// %rq<4n+1> and %pq<n+1> before the first .reg of the body (at its start when it has none).
[[nodiscard]] Expected<void> declare_registers(ptx::Function& function, int64_t count)
{
  std::vector<ptx::Statement>& statements = function.body->statements;
  size_t first_reg = statements.size();
  for (size_t i = 0; i < statements.size(); ++i) {
    const auto* variable = std::get_if<ptx::Variable>(&statements[i].value);
    if (variable == nullptr || variable->space != ".reg") {
      continue;
    }
    if (variable->name == k_temp_f32 || variable->name == k_temp_pred) {
      return make_error(ErrorCode::rejected, "roundf: " + function.name + ": registers "
                                                 + variable->name + " are already declared");
    }
    first_reg = std::min(first_reg, i);
  }
  first_reg = first_reg == statements.size() ? 0 : first_reg;
  const std::vector<ptx::Statement> declarations = {
      register_declaration(".pred", k_temp_pred, count + 1),
      register_declaration(".f32", k_temp_f32, 4 * count + 1)};
  statements.insert(statements.begin() + static_cast<std::ptrdiff_t>(first_reg),
                    declarations.begin(), declarations.end());
  return {};
}

class RoundfPass final : public Pass {
public:
  explicit RoundfPass(PassOptions options) : m_options(std::move(options)) {}

  std::string_view name() const override { return "roundf"; }

  Expected<PassResult> run(ptx::Module& module) override
  {
    PassResult result;
    for (ptx::Item& item : module.items) {
      auto* function = std::get_if<ptx::Function>(&item.value);
      if (function == nullptr || !function->body || !applies_to(m_options, function->name)) {
        continue;
      }
      const ptx::Block original = *function->body;
      Context context{original, function->name};
      TRY(rewrite_block(*function->body, context));
      if (context.count > 0) {
        TRY(declare_registers(*function, context.count));
      }
      result.rewrites += context.count;
    }
    return result;
  }

private:
  PassOptions m_options;
};

// Whether the body declares registers of the names the rewrite would declare.
[[nodiscard]] bool declares_temporaries(const ptx::Block& body)
{
  return std::ranges::any_of(body.statements, [](const ptx::Statement& statement) {
    const auto* variable = std::get_if<ptx::Variable>(&statement.value);
    return variable != nullptr && variable->space == ".reg"
           && (variable->name == k_temp_f32 || variable->name == k_temp_pred);
  });
}

} // namespace

int64_t rewrite_proven_roundf_idioms(ptx::Module& module)
{
  int64_t rewrites = 0;
  for (ptx::Item& item : module.items) {
    auto* function = std::get_if<ptx::Function>(&item.value);
    if (function == nullptr || !function->body || declares_temporaries(*function->body)) {
      continue;
    }
    const ptx::Block original = *function->body;
    Context context{original, function->name};
    context.strict = false;
    if (!rewrite_block(*function->body, context) || context.count == 0) {
      continue; // lenient: nothing fails
    }
    if (!declare_registers(*function, context.count)) {
      *function->body = original;
      continue;
    }
    rewrites += context.count;
  }
  return rewrites;
}

Expected<std::unique_ptr<Pass>> make_roundf_pass(const PassOptions& options)
{
  if (!options.parameters.empty()) {
    return make_error(ErrorCode::invalid_argument, "roundf: unknown parameter '"
                                                       + options.parameters.begin()->first + "'");
  }
  return std::make_unique<RoundfPass>(options);
}

} // namespace d4r::compiler::passes
