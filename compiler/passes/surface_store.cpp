#include "compiler/passes/surface_store.hpp"

// Surface stores to calls of the d4r_sust_* support functions (d4r-contract.md section 4, the
// make_ptx.py rewrite; PTX ISA "sust":
// https://docs.nvidia.com/cuda/parallel-thread-execution/#surface-instructions-sust).
//
//   sust.b.2d.v2.b16.zero [s, {x, y}], {h0, h1}       -> d4r_sust_v2b16(b64, b32, b32, b16 x2)
//   sust.b.2d.v4.b16.zero [s, {x, y}], {h0, .., h3}   -> d4r_sust_v4b16(b64, b32, b32, b16 x4)
//   sust.p.2d.v4.b32.zero [s, {x, y}], {f0, .., f3}   -> d4r_sust_p_v4b32(b64, b32, b32, f32 x4)
//   sust.b.2d.b32.zero    [s, {x, y}], {r}            -> d4r_sust_b32(b64, b32, b32, b32)
//
// Each store becomes the scoped call sequence nvcc emits for a call: one .param temporary per
// operand, st.param of the operand, then a plain `call` (a store may sit in divergent code, so
// call.uni, which promises a uniform call, would be wrong).
//
// Why the call stores the same bytes. The instruction's whole meaning is a function of its
// operands: the surface object handle (a b64 register with sm_30+ bindless surfaces), the two
// coordinates and the values, with the .zero clamp mode (an out-of-range store writes nothing).
// st.param of a register into a .param of the register's own width, and the callee's ld.param of
// it, are bit copies: no conversion, no rounding, no reordering of the values. So the helper
// receives exactly the instruction's operands, in the instruction's order, with the coordinate
// convention of the kind (.b: x is a byte offset; .p: x is an element index), and it implements
// that store with the same clamp mode (tex_common.h). The f32 values of sust.p travel as .f32
// bit patterns, so formatted conversion (to the surface's channel format) happens only once, in
// the helper, as the hardware would do it. Nothing else in the function changes: the temporaries
// live in their own scope and the call writes no register of the caller.
//
// Only these four spellings are rewritten; any other sust (other geometry, clamp mode or vector)
// is left for the translator. The "kinds" parameter (default "b16,p,b32", D4R_SUST_KINDS)
// selects which of them are: b16 takes both b16 vectors.

#include "compiler/passes/call_block.hpp"
#include "compiler/ptx/printer.hpp"

#include <array>
#include <cstddef>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace d4r::compiler::passes {

namespace {

struct StoreSpec {
  std::string_view kind; // the "kinds" name selecting it
  std::vector<std::string> modifiers;
  CallSignature signature;
};

std::vector<StoreSpec> store_specs()
{
  const std::string b64 = ".b64";
  const std::string b32 = ".b32";
  const std::string b16 = ".b16";
  const std::string f32 = ".f32";
  return {
      StoreSpec{"b16",
                {"b", "2d", "v2", "b16", "zero"},
                {"d4r_sust_v2b16", "", {b64, b32, b32, b16, b16}}},
      StoreSpec{"b16",
                {"b", "2d", "v4", "b16", "zero"},
                {"d4r_sust_v4b16", "", {b64, b32, b32, b16, b16, b16, b16}}},
      StoreSpec{"p",
                {"p", "2d", "v4", "b32", "zero"},
                {"d4r_sust_p_v4b32", "", {b64, b32, b32, f32, f32, f32, f32}}},
      StoreSpec{"b32", {"b", "2d", "b32", "zero"}, {"d4r_sust_b32", "", {b64, b32, b32, b32}}},
  };
}

constexpr std::array<std::string_view, 3> k_kinds = {"b16", "p", "b32"};

std::string trim(std::string_view text)
{
  size_t begin = text.find_first_not_of(" \t");
  if (begin == std::string_view::npos) {
    return {};
  }
  size_t end = text.find_last_not_of(" \t");
  return std::string(text.substr(begin, end - begin + 1));
}

// "b16,p" -> {"b16", "p"}; empty items are skipped, so "" selects nothing.
Expected<std::set<std::string>> parse_kinds(std::string_view text)
{
  std::set<std::string> kinds;
  while (true) {
    size_t comma = text.find(',');
    std::string kind = trim(text.substr(0, comma));
    if (!kind.empty()) {
      bool known = false;
      for (std::string_view name : k_kinds) {
        known = known || name == kind;
      }
      if (!known) {
        return make_error(ErrorCode::invalid_argument,
                          "passes: sust: unknown store kind '" + kind + "' (known: b16, p, b32)");
      }
      kinds.insert(kind);
    }
    if (comma == std::string_view::npos) {
      return kinds;
    }
    text.remove_prefix(comma + 1);
  }
}

// The call arguments of a matched store: surface, x, y, then the values, or an error naming the
// function when the operands do not have the instruction's shape.
Expected<std::vector<ptx::Operand>>
store_arguments(const ptx::Instruction& store, const StoreSpec& spec, const std::string& function)
{
  size_t values = spec.signature.param_types.size() - 3;
  auto malformed = [&](const char* why) {
    return make_error(ErrorCode::invalid_argument, "passes: sust: function " + function + ": '" +
                                                       ptx::print_instruction(store) + "': " + why);
  };
  if (store.operands.size() != 2 || store.operands[0].kind != ptx::OperandKind::address) {
    return malformed("expected [surface, {x, y}], {values}");
  }
  const std::vector<ptx::Operand>& address = store.operands[0].elements;
  if (address.size() != 2 || address[1].kind != ptx::OperandKind::vector ||
      address[1].elements.size() != 2) {
    return malformed("expected a 2d address [surface, {x, y}]");
  }
  if (address[0].kind != ptx::OperandKind::reg || !address[0].offset.empty()) {
    return malformed("the surface is not a b64 register (.surfref is not supported)");
  }
  std::vector<ptx::Operand> arguments = {address[0], address[1].elements[0],
                                         address[1].elements[1]};
  const ptx::Operand& source = store.operands[1];
  if (source.kind != ptx::OperandKind::vector) {
    if (values != 1) {
      return malformed("expected a vector of values");
    }
    arguments.push_back(source);
    return arguments;
  }
  if (source.elements.size() != values) {
    return malformed("wrong number of values");
  }
  arguments.insert(arguments.end(), source.elements.begin(), source.elements.end());
  return arguments;
}

class SurfaceStorePass final : public Pass {
public:
  SurfaceStorePass(PassOptions options, std::set<std::string> kinds)
      : m_options(std::move(options)), m_kinds(std::move(kinds)), m_specs(store_specs())
  {
  }

  std::string_view name() const override { return "sust"; }

  Expected<PassResult> run(ptx::Module& module) override
  {
    PassResult result;
    std::vector<bool> used(m_specs.size(), false);
    for (ptx::Item& item : module.items) {
      auto* function = std::get_if<ptx::Function>(&item.value);
      if (function == nullptr || !function->body || !applies_to(m_options, function->name)) {
        continue;
      }
      TRY(rewrite_block(*function->body, function->name, used, result));
    }
    for (size_t i = 0; i < m_specs.size(); ++i) {
      if (used[i]) {
        ensure_declaration(module, m_specs[i].signature);
      }
    }
    return result;
  }

private:
  const StoreSpec* match(const ptx::Instruction& instruction, size_t& index) const
  {
    if (instruction.opcode != "sust") {
      return nullptr;
    }
    for (index = 0; index < m_specs.size(); ++index) {
      const StoreSpec& spec = m_specs[index];
      if (instruction.modifiers == spec.modifiers && m_kinds.contains(std::string(spec.kind))) {
        return &spec;
      }
    }
    return nullptr;
  }

  Expected<void> rewrite_block(ptx::Block& block, const std::string& function,
                               std::vector<bool>& used, PassResult& result) const
  {
    for (ptx::Statement& statement : block.statements) {
      if (auto* inner = std::get_if<ptx::Block>(&statement.value)) {
        TRY(rewrite_block(*inner, function, used, result));
        continue;
      }
      auto* store = std::get_if<ptx::Instruction>(&statement.value);
      size_t index = 0;
      const StoreSpec* spec = store == nullptr ? nullptr : match(*store, index);
      if (spec == nullptr) {
        continue;
      }
      TRY_ASSIGN(std::vector<ptx::Operand> arguments, store_arguments(*store, *spec, function));
      statement.value = make_call_block(spec->signature, arguments, std::nullopt, store->guard);
      used[index] = true;
      ++result.rewrites;
    }
    return {};
  }

  PassOptions m_options;
  std::set<std::string> m_kinds;
  std::vector<StoreSpec> m_specs;
};

} // namespace

Expected<std::unique_ptr<Pass>> make_surface_store_pass(const PassOptions& options)
{
  std::string kinds_text = "b16,p,b32";
  for (const auto& [key, value] : options.parameters) {
    if (key != "kinds") {
      return make_error(ErrorCode::invalid_argument,
                        "passes: sust: unknown parameter '" + key + "' (known: kinds)");
    }
    kinds_text = value;
  }
  TRY_ASSIGN(std::set<std::string> kinds, parse_kinds(kinds_text));
  return std::make_unique<SurfaceStorePass>(options, std::move(kinds));
}

} // namespace d4r::compiler::passes
