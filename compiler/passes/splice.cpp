#include "compiler/passes/splice.hpp"

// A splice hands the rest of a kernel to native code: everything after a cut instruction is
// dropped and replaced by `call.uni TAIL, (args); ret;`, TAIL being a function compiled from our
// own sources that continues the computation (d4r-contract.md section 4, "Splices"). Dropping code
// is only correct at the exact point the tail was written for, so every assumption is checked and
// any doubt is an error rather than a guess:
// - the cut instruction is compared whole (opcode, modifiers, operands, guard), and must be unique
//   or be picked by an explicit occurrence that exists;
// - the instructions ending at the cut must have the expected opcodes and modifiers (registers are
//   not compared: they move between compiler versions, the operation sequence does not);
// - each argument register comes from a unique defining instruction, found by pattern;
// - no label that is dropped may still be branched to from the code that stays.
// The cut is searched in the function's top-level statements only (nvcc's inline { } scopes never
// hold a barrier we cut at). Arguments travel as registers, the callee's `.extern .func` parameters
// typed .b16/.b32/.b64 after the registers' declared widths; call.uni because the tail is called by
// the whole warp after a warp-wide barrier.
// Head mode (`replace_through`, the dec0 head of the contract): the instructions from the cut
// through the first later `replace_through` become one `call.uni HEAD, (args);` and the kernel goes
// on after it; `expect` then names the operations the range starts with, and no code outside the
// range may branch into it.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#control-flow-instructions-call

#include "compiler/passes/call_block.hpp"
#include "compiler/ptx/parser.hpp"
#include "compiler/ptx/printer.hpp"

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace d4r::compiler::passes {

namespace {

// "OPCODE.MODS [+OFFSET] #ELEMENT" or a literal register.
struct ArgumentPattern {
  std::string text;     // as written, for messages
  std::string reg;      // a literal "%r5"; empty for an instruction pattern
  std::string opcode;   // "ld"
  std::vector<std::string> modifiers;
  std::string offset;   // "40", "-8" or "" (no offset)
  int64_t element = -1; // element of a vector destination; -1: a scalar destination
};

struct SpliceConfig {
  ptx::Instruction cut;
  int64_t occurrence = 0; // 0: unique, -1: last
  // Head mode: the instructions from `cut` through the first later `replace_through` are replaced
  // by the call (the kernel goes on after it); `expect` then starts with `cut` instead of ending
  // with it. Without it (tail mode), everything after `cut` becomes the call and a ret.
  std::optional<ptx::Instruction> replace_through;
  std::vector<ptx::Instruction> expect;
  std::string function;
  std::vector<ArgumentPattern> arguments;
};

[[nodiscard]] std::unexpected<Error> config_error(const std::string& message)
{
  return make_error(ErrorCode::invalid_argument, "splice: " + message);
}

[[nodiscard]] Expected<std::vector<ptx::Instruction>> parse_instructions(std::string text,
                                                                         std::string_view what)
{
  text.erase(text.find_last_not_of(" \t\n") + 1);
  if (!text.ends_with(';')) {
    text += ";"; // the last instruction's ';' is optional in a parameter
  }
  d4r::Expected<std::vector<ptx::Statement>> statements = ptx::parse_statements(text);
  if (!statements) {
    return config_error(std::string(what) + ": " + statements.error().message);
  }
  std::vector<ptx::Instruction> instructions;
  for (ptx::Statement& statement : *statements) {
    if (auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      instructions.push_back(std::move(*instruction));
    }
  }
  if (instructions.empty()) {
    return config_error(std::string(what) + " holds no instruction");
  }
  return instructions;
}

[[nodiscard]] std::vector<std::string> split(std::string_view text, char separator)
{
  std::vector<std::string> parts;
  size_t start = 0;
  while (start <= text.size()) {
    const size_t end = std::min(text.find(separator, start), text.size());
    std::string part(text.substr(start, end - start));
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    if (!part.empty()) {
      parts.push_back(std::move(part));
    }
    start = end + 1;
  }
  return parts;
}

[[nodiscard]] Expected<ArgumentPattern> parse_argument(const std::string& text)
{
  ArgumentPattern pattern;
  pattern.text = text;
  const std::vector<std::string> words = split(text, ' ');
  if (words.size() == 1 && words[0].starts_with('%')) {
    pattern.reg = words[0];
    return pattern;
  }
  const bool address = words.size() >= 2 && words[1].size() >= 2 && words[1].front() == '['
                       && words[1].back() == ']';
  // The element is written {I}, as PTX writes vector operands; not #I, since `#` starts a
  // comment in a recipe.
  const bool element = words.size() == 3 && words[2].size() >= 3 && words[2].front() == '{' &&
                       words[2].back() == '}';
  if (!address || words.size() > 3 || (words.size() == 3 && !element)) {
    return config_error("argument '" + text + "': expected '%reg' or 'OPCODE [+OFFSET] [{I}]'");
  }
  std::vector<std::string> parts = split(words[0], '.');
  pattern.opcode = parts.front();
  pattern.modifiers.assign(parts.begin() + 1, parts.end());
  std::string offset = words[1].substr(1, words[1].size() - 2);
  offset.erase(0, offset.starts_with('+') ? 1 : 0);
  pattern.offset = offset == "0" ? "" : offset;
  if (words.size() == 3) {
    const std::string_view digits = std::string_view(words[2]).substr(1, words[2].size() - 2);
    const auto [end, error] =
        std::from_chars(digits.data(), digits.data() + digits.size(), pattern.element);
    if (error != std::errc() || end != digits.data() + digits.size() || pattern.element < 0) {
      return config_error("argument '" + text + "': bad element '" + words[2] + "'");
    }
  }
  return pattern;
}

[[nodiscard]] std::string required(const PassOptions& options, const std::string& key)
{
  const auto found = options.parameters.find(key);
  return found == options.parameters.end() ? std::string() : found->second;
}

[[nodiscard]] Expected<int64_t> parse_occurrence(const PassOptions& options)
{
  const auto found = options.parameters.find("occurrence");
  if (found == options.parameters.end()) {
    return 0;
  }
  if (found->second == "last") {
    return -1;
  }
  int64_t value = 0;
  const std::string& text = found->second;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1) {
    return config_error("occurrence '" + text + "': expected a number from 1 or 'last'");
  }
  return value;
}

[[nodiscard]] bool is_identifier(std::string_view name)
{
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) {
    return false;
  }
  for (const char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                    || c == '_' || c == '$';
    if (!ok) {
      return false;
    }
  }
  return true;
}

[[nodiscard]] bool same_operation(const ptx::Instruction& a, const ptx::Instruction& b)
{
  return a.opcode == b.opcode && a.modifiers == b.modifiers;
}

[[nodiscard]] Expected<SpliceConfig> parse_config(const PassOptions& options)
{
  static const std::set<std::string> k_known = {"cut_after", "occurrence", "expect", "function",
                                                "arguments", "replace_through"};
  for (const auto& [key, value] : options.parameters) {
    if (!k_known.contains(key)) {
      return config_error("unknown parameter '" + key + "'");
    }
  }
  SpliceConfig config;
  for (const std::string key : {"cut_after", "expect", "function"}) {
    if (required(options, key).empty()) {
      return config_error("missing parameter '" + key + "'");
    }
  }
  TRY_ASSIGN(std::vector<ptx::Instruction> cut,
             parse_instructions(required(options, "cut_after"), "cut_after"));
  if (cut.size() != 1) {
    return config_error("cut_after must be one instruction");
  }
  config.cut = std::move(cut[0]);
  TRY_ASSIGN(config.occurrence, parse_occurrence(options));
  TRY_ASSIGN(config.expect, parse_instructions(required(options, "expect"), "expect"));
  if (!required(options, "replace_through").empty()) {
    TRY_ASSIGN(std::vector<ptx::Instruction> through,
               parse_instructions(required(options, "replace_through"), "replace_through"));
    if (through.size() != 1) {
      return config_error("replace_through must be one instruction");
    }
    config.replace_through = std::move(through[0]);
    if (!same_operation(config.expect.front(), config.cut)) {
      return config_error("with replace_through, expect must start with the first replaced instruction");
    }
  } else if (!same_operation(config.expect.back(), config.cut)) {
    return config_error("expect must end with the cut instruction");
  }
  config.function = required(options, "function");
  if (!is_identifier(config.function)) {
    return config_error("function '" + config.function + "' is not a PTX identifier");
  }
  for (const std::string& text : split(required(options, "arguments"), ';')) {
    TRY_ASSIGN(ArgumentPattern pattern, parse_argument(text));
    config.arguments.push_back(std::move(pattern));
  }
  return config;
}

// ---- Matching in a function -------------------------------------------------------------------

void collect_instructions(const ptx::Block& block, std::vector<const ptx::Instruction*>& out)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* nested = std::get_if<ptx::Block>(&statement.value)) {
      collect_instructions(*nested, out);
    } else if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      out.push_back(instruction);
    }
  }
}

[[nodiscard]] bool has_address_offset(const ptx::Instruction& instruction, const std::string& offset)
{
  for (const ptx::Operand& operand : instruction.operands) {
    if (operand.kind == ptx::OperandKind::address && !operand.elements.empty()
        && operand.elements[0].offset == offset) {
      return true;
    }
  }
  return false;
}

class SpliceSite {
public:
  SpliceSite(const SpliceConfig& config, ptx::Function& function)
      : m_config(config), m_function(function), m_statements(function.body->statements)
  {
  }

  [[nodiscard]] Expected<size_t> find_cut() const;
  [[nodiscard]] Expected<void> check_expected(size_t cut) const;
  [[nodiscard]] Expected<std::vector<std::string>> find_arguments() const;
  [[nodiscard]] Expected<std::string> param_type(const std::string& reg) const;
  [[nodiscard]] Expected<void> replace_tail(size_t cut, const std::vector<std::string>& args);
  [[nodiscard]] Expected<size_t> find_range_end(size_t first) const;
  [[nodiscard]] Expected<void> check_expected_from(size_t first) const;
  [[nodiscard]] Expected<void> replace_range(size_t first, size_t last,
                                             const std::vector<std::string>& args);

  [[nodiscard]] std::unexpected<Error> error(const std::string& message) const
  {
    return make_error(ErrorCode::rejected, "splice: " + m_function.name + ": " + message);
  }

private:
  [[nodiscard]] Expected<std::string> find_argument(const ArgumentPattern& pattern) const;

  const SpliceConfig& m_config;
  ptx::Function& m_function;
  std::vector<ptx::Statement>& m_statements;
};

Expected<size_t> SpliceSite::find_cut() const
{
  std::vector<size_t> found;
  for (size_t i = 0; i < m_statements.size(); ++i) {
    const auto* instruction = std::get_if<ptx::Instruction>(&m_statements[i].value);
    if (instruction != nullptr && *instruction == m_config.cut) {
      found.push_back(i);
    }
  }
  const std::string cut = "'" + ptx::print_instruction(m_config.cut) + "'";
  if (found.empty()) {
    return error("cut instruction " + cut + " not found");
  }
  if (m_config.occurrence == 0 && found.size() != 1) {
    return error("cut instruction " + cut + " is not unique (" + std::to_string(found.size())
                 + " found)");
  }
  if (m_config.occurrence > static_cast<int64_t>(found.size())) {
    return error("cut instruction " + cut + ": occurrence " + std::to_string(m_config.occurrence)
                 + " requested, " + std::to_string(found.size()) + " found");
  }
  if (m_config.occurrence <= 0) {
    return found.back();
  }
  return found[static_cast<size_t>(m_config.occurrence - 1)];
}

Expected<void> SpliceSite::check_expected(size_t cut) const
{
  std::vector<const ptx::Instruction*> before; // nearest first
  for (size_t i = cut + 1; i-- > 0 && before.size() < m_config.expect.size();) {
    if (const auto* instruction = std::get_if<ptx::Instruction>(&m_statements[i].value)) {
      before.push_back(instruction);
    }
  }
  if (before.size() != m_config.expect.size()) {
    return error("only " + std::to_string(before.size()) + " instructions before the cut, "
                 + std::to_string(m_config.expect.size()) + " expected");
  }
  for (size_t k = 0; k < before.size(); ++k) {
    const ptx::Instruction& want = m_config.expect[m_config.expect.size() - 1 - k];
    const ptx::Instruction& got = *before[k];
    if (!same_operation(want, got)) {
      return error("instruction " + std::to_string(k) + " before the cut (line "
                   + std::to_string(got.pos.line) + ") is '" + ptx::print_instruction(got)
                   + "', expected '" + ptx::print_instruction(want) + "'");
    }
  }
  return {};
}

// Head mode: the end of the replaced range, the first `replace_through` after `first`.
Expected<size_t> SpliceSite::find_range_end(size_t first) const
{
  for (size_t i = first; i < m_statements.size(); ++i) {
    const auto* instruction = std::get_if<ptx::Instruction>(&m_statements[i].value);
    if (instruction != nullptr && *instruction == *m_config.replace_through) {
      return i;
    }
  }
  return error("end of the replaced range '" + ptx::print_instruction(*m_config.replace_through) +
               "' not found after the first replaced instruction");
}

// Head mode: the replaced range must start with the expected sequence.
Expected<void> SpliceSite::check_expected_from(size_t first) const
{
  size_t k = 0;
  for (size_t i = first; i < m_statements.size() && k < m_config.expect.size(); ++i) {
    const auto* got = std::get_if<ptx::Instruction>(&m_statements[i].value);
    if (got == nullptr) {
      continue;
    }
    const ptx::Instruction& want = m_config.expect[k];
    if (!same_operation(want, *got)) {
      return error("instruction " + std::to_string(k) + " of the replaced range (line " +
                   std::to_string(got->pos.line) + ") is '" + ptx::print_instruction(*got) +
                   "', expected '" + ptx::print_instruction(want) + "'");
    }
    ++k;
  }
  if (k != m_config.expect.size()) {
    return error("the replaced range is shorter than the expected sequence");
  }
  return {};
}

// Head mode: statements first..last become one `call.uni`; declarations in the range are kept, and
// no instruction outside the range may branch into it.
Expected<void> SpliceSite::replace_range(size_t first, size_t last,
                                         const std::vector<std::string>& args)
{
  std::set<std::string> dropped_labels;
  std::vector<ptx::Statement> kept_declarations;
  for (size_t i = first; i <= last; ++i) {
    if (const auto* label = std::get_if<ptx::Label>(&m_statements[i].value)) {
      dropped_labels.insert(label->name);
    } else if (std::holds_alternative<ptx::Variable>(m_statements[i].value)) {
      kept_declarations.push_back(std::move(m_statements[i]));
    }
  }
  std::string text = "call.uni " + m_config.function + ", (";
  for (size_t i = 0; i < args.size(); ++i) {
    text += (i == 0 ? "" : ", ") + args[i];
  }
  text += ");\n";
  TRY_ASSIGN(std::vector<ptx::Statement> call, ptx::parse_statements(text));
  for (ptx::Statement& statement : call) {
    kept_declarations.push_back(std::move(statement));
  }
  m_statements.erase(m_statements.begin() + static_cast<std::ptrdiff_t>(first),
                     m_statements.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  m_statements.insert(m_statements.begin() + static_cast<std::ptrdiff_t>(first),
                      std::make_move_iterator(kept_declarations.begin()),
                      std::make_move_iterator(kept_declarations.end()));
  std::vector<const ptx::Instruction*> remaining;
  collect_instructions(*m_function.body, remaining);
  for (const ptx::Instruction* instruction : remaining) {
    for (const ptx::Operand& operand : instruction->operands) {
      if (operand.kind == ptx::OperandKind::symbol && dropped_labels.contains(operand.text)) {
        return error("'" + ptx::print_instruction(*instruction) + "' (line " +
                     std::to_string(instruction->pos.line) + ") branches to " + operand.text +
                     ", which lies in the replaced range");
      }
    }
  }
  return {};
}

Expected<std::string> SpliceSite::find_argument(const ArgumentPattern& pattern) const
{
  std::vector<const ptx::Instruction*> all;
  collect_instructions(*m_function.body, all);
  std::vector<const ptx::Instruction*> matches;
  for (const ptx::Instruction* instruction : all) {
    const bool operation =
        instruction->opcode == pattern.opcode && instruction->modifiers == pattern.modifiers;
    if (operation && has_address_offset(*instruction, pattern.offset)) {
      matches.push_back(instruction);
    }
  }
  if (matches.size() != 1) {
    return error("argument '" + pattern.text + "' matches " + std::to_string(matches.size())
                 + " instructions, expected exactly one");
  }
  const ptx::Operand& destination = matches[0]->operands.front();
  if (pattern.element < 0 && destination.kind == ptx::OperandKind::reg) {
    return destination.text;
  }
  const bool vector = destination.kind == ptx::OperandKind::vector;
  if (!vector || pattern.element < 0
      || pattern.element >= static_cast<int64_t>(destination.elements.size())
      || destination.elements[static_cast<size_t>(pattern.element)].kind
             != ptx::OperandKind::reg) {
    return error("argument '" + pattern.text + "': destination of '"
                 + ptx::print_instruction(*matches[0]) + "' is not the register asked for");
  }
  return destination.elements[static_cast<size_t>(pattern.element)].text;
}

Expected<std::vector<std::string>> SpliceSite::find_arguments() const
{
  std::vector<std::string> registers;
  for (const ArgumentPattern& pattern : m_config.arguments) {
    if (!pattern.reg.empty()) {
      registers.push_back(pattern.reg);
      continue;
    }
    TRY_ASSIGN(std::string reg, find_argument(pattern));
    registers.push_back(std::move(reg));
  }
  return registers;
}

// The callee's parameter type for a register, from its .reg declaration: %rd7 is declared by
// "%rd<N>" with 7 < N, or by name.
Expected<std::string> SpliceSite::param_type(const std::string& reg) const
{
  for (const ptx::Statement& statement : m_statements) {
    const auto* variable = std::get_if<ptx::Variable>(&statement.value);
    if (variable == nullptr || variable->space != ".reg" || !reg.starts_with(variable->name)) {
      continue;
    }
    const std::string_view suffix = std::string_view(reg).substr(variable->name.size());
    int64_t index = 0;
    const auto [end, status] = std::from_chars(suffix.data(), suffix.data() + suffix.size(), index);
    const bool in_range = variable->range >= 0 && !suffix.empty() && status == std::errc()
                          && end == suffix.data() + suffix.size() && index < variable->range;
    if (!(suffix.empty() && variable->range < 0) && !in_range) {
      continue;
    }
    const std::string& type = variable->type;
    if (type == ".pred" || !variable->vector.empty()) {
      return error("argument " + reg + " has type " + type + ", not a scalar integer or float");
    }
    if (type.ends_with("16")) {
      return std::string(".b16");
    }
    if (type.ends_with("32")) {
      return std::string(".b32");
    }
    if (type.ends_with("64")) {
      return std::string(".b64");
    }
    return error("argument " + reg + " has unsupported type " + type);
  }
  return error("argument " + reg + " is not a declared register");
}

Expected<void> SpliceSite::replace_tail(size_t cut, const std::vector<std::string>& args)
{
  std::set<std::string> dropped_labels;
  std::vector<ptx::Statement> kept_declarations;
  for (size_t i = cut + 1; i < m_statements.size(); ++i) {
    if (const auto* label = std::get_if<ptx::Label>(&m_statements[i].value)) {
      dropped_labels.insert(label->name);
    } else if (std::holds_alternative<ptx::Variable>(m_statements[i].value)) {
      kept_declarations.push_back(std::move(m_statements[i]));
    }
  }
  m_statements.resize(cut + 1);
  std::vector<const ptx::Instruction*> remaining;
  collect_instructions(*m_function.body, remaining);
  for (const ptx::Instruction* instruction : remaining) {
    for (const ptx::Operand& operand : instruction->operands) {
      if (operand.kind == ptx::OperandKind::symbol && dropped_labels.contains(operand.text)) {
        return error("'" + ptx::print_instruction(*instruction) + "' (line "
                     + std::to_string(instruction->pos.line) + ") branches to " + operand.text
                     + ", which lies after the cut");
      }
    }
  }
  std::string text = "call.uni " + m_config.function + ", (";
  for (size_t i = 0; i < args.size(); ++i) {
    text += (i == 0 ? "" : ", ") + args[i];
  }
  text += ");\nret;\n";
  TRY_ASSIGN(std::vector<ptx::Statement> tail, ptx::parse_statements(text));
  for (ptx::Statement& statement : kept_declarations) {
    m_statements.push_back(std::move(statement));
  }
  for (ptx::Statement& statement : tail) {
    m_statements.push_back(std::move(statement));
  }
  return {};
}

class SplicePass final : public Pass {
public:
  SplicePass(PassOptions options, SpliceConfig config)
      : m_options(std::move(options)), m_config(std::move(config))
  {
  }

  std::string_view name() const override { return "splice"; }

  Expected<PassResult> run(ptx::Module& module) override;

private:
  [[nodiscard]] bool in_scope(const ptx::Function& function) const
  {
    const bool selected = m_options.kernels.empty() ? function.is_entry : true;
    return selected && function.body && applies_to(m_options, function.name);
  }

  [[nodiscard]] Expected<CallSignature> splice(ptx::Function& function) const;
  [[nodiscard]] Expected<void> declare(ptx::Module& module, const CallSignature& signature) const;

  PassOptions m_options;
  SpliceConfig m_config;
};

Expected<CallSignature> SplicePass::splice(ptx::Function& function) const
{
  SpliceSite site(m_config, function);
  TRY_ASSIGN(const size_t cut, site.find_cut());
  std::optional<size_t> range_end;
  if (m_config.replace_through) {
    TRY(site.check_expected_from(cut));
    TRY_ASSIGN(range_end, site.find_range_end(cut));
  } else {
    TRY(site.check_expected(cut));
  }
  TRY_ASSIGN(const std::vector<std::string> args, site.find_arguments());
  CallSignature signature{m_config.function, "", {}};
  for (const std::string& reg : args) {
    TRY_ASSIGN(std::string type, site.param_type(reg));
    signature.param_types.push_back(std::move(type));
  }
  if (range_end) {
    TRY(site.replace_range(cut, *range_end, args));
  } else {
    TRY(site.replace_tail(cut, args));
  }
  return signature;
}

// Adds the callee's declaration, or checks that an existing one has the same parameters.
Expected<void> SplicePass::declare(ptx::Module& module, const CallSignature& signature) const
{
  const ptx::Function wanted = make_extern_declaration(signature);
  for (const ptx::Item& item : module.items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function == nullptr || function->name != signature.name) {
      continue;
    }
    if (function->body) {
      return make_error(ErrorCode::rejected,
                        "splice: " + signature.name + " is defined in the module, not a tail");
    }
    if (function->params.size() != wanted.params.size()) {
      return make_error(ErrorCode::rejected, "splice: " + signature.name + " is declared with "
                                                 + std::to_string(function->params.size())
                                                 + " parameters, the call passes "
                                                 + std::to_string(wanted.params.size()));
    }
    for (size_t i = 0; i < wanted.params.size(); ++i) {
      if (function->params[i].type != wanted.params[i].type) {
        return make_error(ErrorCode::rejected, "splice: " + signature.name + " parameter "
                                                   + std::to_string(i) + " is declared "
                                                   + function->params[i].type + ", the call passes "
                                                   + wanted.params[i].type);
      }
    }
    return {};
  }
  ensure_declaration(module, signature);
  return {};
}

Expected<PassResult> SplicePass::run(ptx::Module& module)
{
  PassResult result;
  std::vector<CallSignature> signatures;
  for (ptx::Item& item : module.items) {
    auto* function = std::get_if<ptx::Function>(&item.value);
    if (function == nullptr || !in_scope(*function)) {
      continue;
    }
    TRY_ASSIGN(CallSignature signature, splice(*function));
    signatures.push_back(std::move(signature));
    ++result.rewrites;
  }
  if (signatures.empty()) {
    return make_error(ErrorCode::rejected, "splice: no kernel to splice in the module");
  }
  for (const CallSignature& signature : signatures) {
    TRY(declare(module, signature));
  }
  return result;
}

} // namespace

Expected<std::unique_ptr<Pass>> make_splice_pass(const PassOptions& options)
{
  TRY_ASSIGN(SpliceConfig config, parse_config(options));
  return std::make_unique<SplicePass>(options, std::move(config));
}

} // namespace d4r::compiler::passes
