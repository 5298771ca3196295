#pragma once
// One .entry or .func body -> one LLVM function. Registers become allocas of their PTX type (.pred
// is i1, .f32 float, .f64 double, everything else an integer of its width; mem2reg removes them),
// labels become basic blocks, a guard `@%p` / `@!%p` becomes a conditional branch around its
// instruction, and nested `{ }` scopes shadow outer declarations. Each instruction goes to the
// lowering registered for its opcode (lowering.hpp); an opcode nobody registered is the error
// "unsupported: OPCODE at line L".

#include "compiler/ptx/ast.hpp"
#include "compiler/translate/target_hooks.hpp"
#include "compiler/translate/translator.hpp"
#include "util/error.hpp"

#include <llvm/IR/IRBuilder.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace d4r::compiler::translate {

// A PTX fundamental type: .b32 is {bits, 32}, .pred is {pred, 1}; f16/bf16 are kept as their bits.
struct PtxType {
  enum class Kind { bits, unsigned_int, signed_int, floating, pred };
  Kind kind = Kind::bits;
  int bits = 32;
  bool bf16 = false; // .bf16 / .bf16x2
  bool is_float() const { return kind == Kind::floating; }
  bool is_signed() const { return kind == Kind::signed_int; }
  bool operator==(const PtxType&) const = default;
};

// ".u32" or "u32" -> the type; nullopt when `name` is not a fundamental type.
[[nodiscard]] std::optional<PtxType> parse_type(std::string_view name);
// "u32", "f16", "pred": the type as PTX spells it, for messages.
[[nodiscard]] std::string type_spelling(PtxType type);
// f32 -> float, f64 -> double, pred -> i1, anything else (f16, bf16, f16x2 included) iN.
[[nodiscard]] llvm::Type* llvm_type(llvm::LLVMContext& context, PtxType type);

// A module-level or body-level variable that is not a register.
struct Symbol {
  Space space = Space::global;
  llvm::Value* storage = nullptr; // GlobalVariable or alloca
  int64_t offset = 0;             // host .shared: offset in the window; param: offset in the block
  bool dynamic_shared = false;
  const ptx::Variable* variable = nullptr;
};

// The bytes a variable occupies (elements times vector width times dimensions; 0 when unsized),
// its alignment (.align or natural) and its LLVM type (a scalar, or [N x i8] for arrays, vectors
// and anything that is not a register type).
[[nodiscard]] Expected<int64_t> variable_size(const ptx::Variable& variable);
// A .texref/.samplerref/.surfref variable (a bound texture, sampler or surface): stored as the
// 64-bit handle the host writes into it (lower_image.cpp), so its storage type is .b64.
[[nodiscard]] bool is_handle_variable(const ptx::Variable& variable);
[[nodiscard]] std::string storage_type(const ptx::Variable& variable);
[[nodiscard]] int64_t variable_align(const ptx::Variable& variable);
[[nodiscard]] Expected<llvm::Type*> variable_type(llvm::LLVMContext& context,
                                                  const ptx::Variable& variable);

// What all functions of one module share.
struct ModuleState {
  llvm::LLVMContext& context;
  llvm::Module& module;
  TargetHooks& hooks;
  const TranslateOptions& options;
  std::unordered_map<std::string, Symbol> symbols; // module scope
  std::unordered_map<std::string, const ptx::Function*> functions;
  std::unordered_map<std::string, llvm::Function*> llvm_functions;
  std::unordered_map<std::string, const KernelSignature*> kernels;
  // .shared/.global/.const variables declared in bodies, created by the module translator.
  std::unordered_map<const ptx::Variable*, Symbol> body_symbols;
  int64_t module_shared_bytes = 0; // host: the window's module-scope part
  uint32_t next_site = 1;
  // lower_warp.cpp, on first use: bit i when barrier i has a thread count somewhere in the
  // module, bit 16 when a barrier with a count has its id in a register.
  std::optional<uint32_t> counted_barriers;
  // A function whose address is taken can exit: indirect calls pass the "exited" flag
  // (module_translator.cpp, lower_control.cpp).
  bool indirect_calls_exit = false;
};

class FunctionTranslator {
public:
  FunctionTranslator(ModuleState& module, const ptx::Function& function, llvm::Function& target);
  [[nodiscard]] Expected<void> translate();

  // For the lowerings.
  llvm::IRBuilder<>& builder() { return m_builder; }
  llvm::LLVMContext& context() { return m_module.context; }
  ModuleState& module() { return m_module; }
  TargetHooks& hooks() { return m_module.hooks; }
  HookEnv env() { return HookEnv{m_builder, m_thread}; }
  bool is_kernel() const { return m_function.is_entry; }
  const ptx::Function& function() const { return m_function; }
  llvm::Function& llvm_function() { return m_target; }
  uint32_t next_site() { return m_module.next_site++; }

  // "translate: function foo: line 12: MESSAGE" as ErrorCode::invalid_argument.
  [[nodiscard]] Error error(const ptx::Instruction& instruction, const std::string& message) const;
  [[nodiscard]] Error unsupported(const ptx::Instruction& instruction) const;

  // The value of an operand as `type` (registers of another width are truncated or extended,
  // bit patterns reinterpreted; immediates converted; a symbol gives its address).
  [[nodiscard]] Expected<llvm::Value*> read(const ptx::Operand& operand, PtxType type);
  // Stores `value` (of llvm_type(type)) into a register operand (a sink is ignored); a wider
  // register gets the value sign- or zero-extended after `type`.
  [[nodiscard]] Expected<void> write(const ptx::Operand& operand, llvm::Value* value, PtxType type);
  // The pointer an address operand ([reg+off], [sym+off], [imm]) designates in `space`.
  [[nodiscard]] Expected<llvm::Value*> address(const ptx::Operand& operand, Space space);
  // A register's storage and type, or an error naming it.
  [[nodiscard]] Expected<std::pair<llvm::AllocaInst*, PtxType>> reg(const std::string& name);
  [[nodiscard]] const Symbol* symbol(const std::string& name) const;
  // Whether `name` is a declared register (PTX allows register names without '%': ".reg .f16 low").
  [[nodiscard]] bool is_register(const std::string& name) const;
  [[nodiscard]] llvm::BasicBlock* label(const std::string& name) const;

  // A support library function (__d4r_ptx_*), declared on first use.
  llvm::FunctionCallee support(std::string_view name, llvm::Type* result,
                               llvm::ArrayRef<llvm::Type*> params);
  llvm::Value* call_support(std::string_view name, llvm::Type* result,
                            llvm::ArrayRef<llvm::Value*> args);
  // After a terminator: a fresh block for the code that follows (unreachable unless labelled).
  void start_dead_block();
  // The .func's return: loads the return .params.
  void emit_return();
  llvm::Value* i32(uint32_t value) { return m_builder.getInt32(value); }
  // A stack slot in the entry block (private address space on AMDGPU).
  llvm::AllocaInst* entry_alloca(llvm::Type* type, int64_t align, const std::string& name);
  // PTX's carry flag CC.CF (add.cc, addc, ...; lower_carry.cpp): an i1 slot made on first use and
  // cleared in the entry block, so that a chain the function never started reads 0.
  llvm::AllocaInst* carry_flag();

private:
  struct RegDecl {
    PtxType type;
    int64_t range = -1; // -1: a single name
    std::map<int64_t, llvm::AllocaInst*> slots;
  };
  struct Scope {
    std::unordered_map<std::string, RegDecl> regs;        // by name or range prefix
    std::unordered_map<std::string, Symbol> symbols;      // .local/.param/.shared in the body
  };

  Expected<void> collect_labels(const ptx::Block& block);
  Expected<void> translate_block(const ptx::Block& block);
  Expected<void> declare(const ptx::Variable& variable);
  Expected<void> translate_instruction(const ptx::Instruction& instruction);
  Expected<void> setup_params();
  Expected<llvm::Value*> read_reg(const ptx::Operand& operand, PtxType type);
  Expected<llvm::Value*> read_immediate(const ptx::Operand& operand, PtxType type);
  Expected<llvm::Value*> read_symbol(const ptx::Operand& operand, PtxType type);
  Expected<llvm::Value*> symbol_pointer(const Symbol& symbol, Space space, int64_t offset);
  llvm::Value* to_pointer(llvm::Value* address, Space space);
  Expected<void> add_param(const ptx::Variable& param, llvm::Value* argument);
  Error declaration_error(const ptx::Variable& variable, const std::string& message) const;

  ModuleState& m_module;
  const ptx::Function& m_function;
  llvm::Function& m_target;
  llvm::IRBuilder<> m_builder;
  llvm::BasicBlock* m_entry = nullptr;
  llvm::Value* m_thread = nullptr;
  llvm::Value* m_param_block = nullptr; // kernels
  std::vector<Scope> m_scopes;
  std::unordered_map<std::string, llvm::BasicBlock*> m_labels;
  const ptx::Instruction* m_current = nullptr;
  llvm::AllocaInst* m_carry = nullptr;
};

// Converts `value` between integer, float and pointer-free representations of `from` -> `to`
// following PTX's register rules (bit reinterpretation, truncation, extension by `from`'s sign).
llvm::Value* adapt_value(llvm::IRBuilder<>& builder, llvm::Value* value, PtxType from, PtxType to);

} // namespace d4r::compiler::translate
