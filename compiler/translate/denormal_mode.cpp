#include "compiler/translate/denormal_mode.hpp"

#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/symbol_reach.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string_view>
#include <variant>
#include <vector>

namespace d4r::compiler::translate {

namespace {

// Types whose values the f32 mode (or the host's model of it, which flushes f64 too) can flush:
// f32 itself, and the formats with f32's exponent range or wider.
bool flushable_type(std::string_view type)
{
  return type == "f32" || type == "f64" || type == "bf16" || type == "bf16x2" || type == "tf32";
}

bool integer_type(std::string_view type)
{
  return type.size() >= 2 && (type.front() == 's' || type.front() == 'u') &&
         std::ranges::all_of(type.substr(1), [](char c) { return c >= '0' && c <= '9'; });
}

// Instructions that move or test bits without float arithmetic: their results are the same in
// either mode (abs, neg and copysign are bit operations in the lowering, lower_float.cpp).
bool moves_bits(std::string_view opcode)
{
  static constexpr std::array<std::string_view, 19> k_opcodes = {
      "mov",  "ld",   "ldu",   "st",  "selp", "shfl", "prmt",  "tex",      "tld4", "txq",
      "suld", "sust", "sured", "suq", "cvta", "abs",  "neg",   "copysign", "testp"};
  return std::ranges::find(k_opcodes, opcode) != k_opcodes.end();
}

// cvt's destination and source types, in that order.
std::vector<std::string_view> conversion_types(const ptx::Instruction& instruction)
{
  std::vector<std::string_view> types;
  for (const std::string& modifier : instruction.modifiers) {
    if (parse_type(modifier) || flushable_type(modifier) || modifier.starts_with("e4m3") ||
        modifier.starts_with("e5m2") || modifier.starts_with("e2m") || modifier.starts_with("e3m") ||
        modifier.starts_with("ue8m0")) {
      types.push_back(modifier);
    }
  }
  return types;
}

// cvt forms whose result does not depend on whether a subnormal f32 input is flushed (to a zero
// of its sign): integer -> float never makes a subnormal; rounding toward zero or to nearest
// sends a subnormal and its flushed zero to the same signed zero, as integer or f32; f32 -> f16
// and the FP8 formats to nearest or toward zero make a zero of either (f16's smallest subnormal
// is 2^-24). Toward +-inf a tiny input rounds to +-1 or the smallest subnormal, but zero does not.
bool conversion_ignores_subnormals(const ptx::Instruction& instruction)
{
  std::vector<std::string_view> types = conversion_types(instruction);
  if (types.size() != 2) {
    return false;
  }
  const std::string_view to = types[0];
  const std::string_view from = types[1];
  if (integer_type(from)) {
    return true;
  }
  if (from == "f16" || from == "f16x2") {
    return !flushable_type(to) || to == "f32";
  }
  if (from != "f32") {
    return false;
  }
  const int mode = rounding_mode(instruction);
  const bool nearest_or_zero = mode == 0 || mode == 1;
  if (has_modifier(instruction, "sat") || has_modifier(instruction, "relu")) {
    return false;
  }
  if (integer_type(to) || to == "f32") {
    return nearest_or_zero;
  }
  return nearest_or_zero && !flushable_type(to);
}

bool names_flushable_type(const ptx::Instruction& instruction)
{
  return std::ranges::any_of(instruction.modifiers,
                             [](const std::string& modifier) { return flushable_type(modifier); });
}

bool is_matrix_product(std::string_view opcode)
{
  return opcode == "mma" || opcode == "wmma" || opcode == "wgmma";
}

// f32 is the instruction's only flushable type.
bool only_f32(const ptx::Instruction& instruction)
{
  return std::ranges::all_of(instruction.modifiers, [](const std::string& modifier) {
    return modifier == "f32" || !flushable_type(modifier);
  });
}

// cvt.ftz from f32 to f32 or an integer: PTX flushes the input as the mode does. (To f16 the
// H200 does not flush the input: cvt.rp.ftz.f16.f32 of 2^-148 is 0x0001, kernels/support/convert.c.)
bool flushed_conversion(const ptx::Instruction& instruction)
{
  std::vector<std::string_view> types = conversion_types(instruction);
  return has_modifier(instruction, "ftz") && types.size() == 2 && types[1] == "f32" &&
         (types[0] == "f32" || integer_type(types[0]));
}

struct BodyFacts {
  bool allows_flush = true;
  bool has_ftz = false;
};

void scan(const ptx::Block& block, FloatPolicy policy, BodyFacts& facts)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      scan(*inner, policy, facts);
    } else if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      facts.has_ftz = facts.has_ftz || (has_modifier(*instruction, "ftz") &&
                                        has_modifier(*instruction, "f32"));
      facts.allows_flush = facts.allows_flush && allows_f32_flush(*instruction, policy);
    }
  }
}

} // namespace

bool allows_f32_flush(const ptx::Instruction& instruction, FloatPolicy policy)
{
  const std::string_view opcode = instruction.opcode;
  if (!names_flushable_type(instruction) || moves_bits(opcode)) {
    return true;
  }
  if (opcode == "atom" || opcode == "red") {
    // .add.f32 flushes on NVIDIA whatever the mode; f64 and bf16 atomics do arithmetic.
    return only_f32(instruction);
  }
  if (is_matrix_product(opcode)) {
    return policy == FloatPolicy::fast;
  }
  if (opcode == "cvt") {
    return conversion_ignores_subnormals(instruction) || flushed_conversion(instruction);
  }
  // Arithmetic, comparisons, selects on a float's sign (slct), the .approx functions: exact only
  // with .ftz on f32 alone.
  return has_modifier(instruction, "ftz") && only_f32(instruction);
}

std::set<std::string> functions_flushing_f32(const ptx::Module& module, FloatPolicy policy)
{
  std::map<std::string, BodyFacts> bodies;
  std::set<std::string> functions;
  std::vector<std::string> kernels;
  for (const ptx::Item& item : module.items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function == nullptr) {
      continue;
    }
    functions.insert(function->name);
    if (!function->body) {
      continue;
    }
    scan(*function->body, policy, bodies[function->name]);
    if (function->is_entry) {
      kernels.push_back(function->name);
    }
  }
  // A kernel reaches each function whose name its code (or a function it reaches) mentions.
  std::map<std::string, std::set<std::string>> reaching = kernels_reaching(module, functions);
  std::map<std::string, std::vector<std::string>> reached;
  for (const auto& [function, by] : reaching) {
    for (const std::string& kernel : by) {
      reached[kernel].push_back(function);
    }
  }
  std::set<std::string> flushing;
  for (const std::string& kernel : kernels) {
    BodyFacts facts = bodies[kernel];
    for (const std::string& function : reached[kernel]) {
      auto body = bodies.find(function);
      if (body == bodies.end()) { // declared here, defined elsewhere or an alias: unknown code
        facts.allows_flush = false;
        break;
      }
      facts.allows_flush = facts.allows_flush && body->second.allows_flush;
      facts.has_ftz = facts.has_ftz || body->second.has_ftz;
    }
    if (facts.allows_flush && facts.has_ftz) {
      flushing.insert(kernel);
    }
  }
  for (const auto& [function, by] : reaching) {
    if (!by.empty() && bodies.contains(function) &&
        std::ranges::all_of(by, [&](const std::string& kernel) { return flushing.contains(kernel); })) {
      flushing.insert(function);
    }
  }
  return flushing;
}

} // namespace d4r::compiler::translate
