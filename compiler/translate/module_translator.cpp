// translate_module: the module's items -> one llvm::Module. Kernel signatures (the PTX .param
// layout), module variables (.global, .const, .shared), variables declared in bodies, .func/.entry
// declarations, then each body (function_translator.hpp); last, the support library is linked,
// everything but the kernels and the module's .global/.const variables internalised and LLVM's O2
// pipeline run.
//
// .shared layout on the host (host_abi.hpp): one window per block holding the module's .shared
// variables that several kernels reach (and those of .func bodies) at fixed offsets, then each
// kernel's own (its module-scope ones no other kernel reaches, then its body's), then the dynamic
// array at the 16-aligned end (KernelSignature::static_shared_bytes, already aligned). On AMDGPU
// every .shared variable is its own addrspace(3) global and the backend lays them out.
// https://docs.nvidia.com/cuda/parallel-thread-execution/#state-spaces
//
// Module-scope .global and .const variables belong to the host as much as to the kernels: a game
// finds any of them by name with cuModuleGetGlobal (cudaMemcpyToSymbol, hipModuleGetGlobal under
// ZLUDA), with or without .visible, initialised or not, and writes it before a launch. So each
// one is an externally visible symbol named exactly as in PTX, `externally_initialized` (its
// initialiser, or zeros, is only the value before the host's first write) and never an LLVM
// constant: LLVM folds none of its loads. On AMDGPU it has protected visibility, as clang gives
// HIP's __device__ (addrspace 1) and __constant__ (addrspace 4) variables, so that the code object
// exports it in .dynsym with its size (read_launch_meta lists these as host variables). On the
// host it is a default-visibility symbol of the JIT (cpu::Executor::global). The only variables
// whose values may fold are those the host cannot reach: .global/.const declared inside a
// function body, which stay internal (and an uninitialised body-level .const is 0 for good).

#include "compiler/translate/translator.hpp"

#include "compiler/translate/denormal_mode.hpp"
#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/module_support.hpp"
#include "compiler/translate/ptx_values.hpp"
#include "compiler/translate/symbol_reach.hpp"
#include "compiler/translate/target_hooks.hpp"
#include "compiler/translate/vector_registers.hpp"

#include <llvm/IR/Constants.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <variant>

namespace d4r::compiler::translate {

namespace {

int64_t align_up(int64_t value, int64_t align)
{
  return align <= 1 ? value : (value + align - 1) / align * align;
}

Error module_error(const std::string& message)
{
  return Error{ErrorCode::invalid_argument, "translate: " + message};
}

Expected<KernelSignature> make_signature(const ptx::Function& function)
{
  KernelSignature signature;
  signature.name = function.name;
  int64_t end = 0;
  for (const ptx::Variable& param : function.params) {
    auto size = variable_size(param);
    if (!size) {
      return std::unexpected(module_error("kernel " + function.name + ": " + size.error().message));
    }
    KernelParam out;
    out.name = param.name;
    out.type = param.type;
    out.size = *size;
    out.align = variable_align(param);
    out.offset = align_up(end, out.align);
    end = out.offset + out.size;
    signature.params.push_back(out);
  }
  signature.param_bytes = end;
  return signature;
}

// An initialiser that names a symbol: "sym", "generic(sym)", either with "+ N" or "- N" after
// it (the parser joins the tokens with single spaces: "generic ( sym ) + 4").
struct AddressInit {
  std::string symbol;
  bool generic = false;
  int64_t offset = 0;
};

bool is_identifier(std::string_view word)
{
  if (word.empty() || std::isdigit(static_cast<unsigned char>(word.front())) != 0) {
    return false;
  }
  return std::ranges::all_of(word, [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$' || c == '%';
  });
}

std::optional<AddressInit> parse_address_init(const std::string& text)
{
  std::vector<std::string> words;
  std::istringstream stream(text);
  for (std::string word; stream >> word;) {
    words.push_back(word);
  }
  AddressInit init;
  size_t at = 0;
  if (words.size() >= 4 && words[0] == "generic" && words[1] == "(" && words[3] == ")") {
    init.generic = true;
    init.symbol = words[2];
    at = 4;
  } else if (!words.empty()) {
    init.symbol = words[0];
    at = 1;
  }
  if (!is_identifier(init.symbol) || init.symbol == "generic") {
    return std::nullopt;
  }
  std::string rest;
  for (; at < words.size(); ++at) {
    rest += words[at];
  }
  if (rest.empty()) {
    return init;
  }
  if (rest.size() < 2 || (rest.front() != '+' && rest.front() != '-')) {
    return std::nullopt;
  }
  std::optional<uint64_t> offset = parse_integer(std::string_view(rest).substr(1));
  if (!offset) {
    return std::nullopt;
  }
  init.offset = static_cast<int64_t>(*offset) * (rest.front() == '-' ? -1 : 1);
  return init;
}

// "0xFF00 ( generic ( sym ) + 8 )": byte `byte` of an address, PTX 7.1's form for pointers in
// .b8/.u8 arrays (nvcc and clang write packed structs that hold pointers so).
struct MaskedByte {
  AddressInit address;
  std::string expression; // the address, as written: equal expressions are one address
  int byte = 0;
};

std::optional<MaskedByte> parse_masked_byte(const std::string& text)
{
  size_t open = text.find('(');
  if (open == std::string::npos || open == 0 || text.back() != ')') {
    return std::nullopt;
  }
  std::string mask_text = text.substr(0, open);
  while (!mask_text.empty() && mask_text.back() == ' ') {
    mask_text.pop_back();
  }
  std::optional<uint64_t> mask = parse_integer(mask_text);
  MaskedByte out;
  out.expression = text.substr(open + 1, text.size() - open - 2);
  std::optional<AddressInit> address = parse_address_init(out.expression);
  if (!mask || !address) {
    return std::nullopt;
  }
  for (; out.byte < 8 && *mask != uint64_t{0xff} << (8 * out.byte); ++out.byte) {
  }
  if (out.byte == 8) {
    return std::nullopt;
  }
  out.address = *address;
  return out;
}

bool names_symbols(const ptx::Initializer& init)
{
  if (!init.is_list) {
    return parse_address_init(init.scalar).has_value() ||
           parse_masked_byte(init.scalar).has_value();
  }
  return std::ranges::any_of(init.elements, names_symbols);
}

// Resolves the symbols of address initialisers once every variable and function is declared.
// A variable's or function's address is a relocation of the code object (the JIT resolves it on
// the host): `sym` is its address in its own state space, `generic(sym)` the generic one (the
// same number for .global and .const on both targets, whose .const is global memory).
struct AddressResolver {
  const ModuleState& state;

  Expected<llvm::Constant*> operator()(const AddressInit& init, llvm::Type* type) const
  {
    llvm::Constant* base = nullptr;
    auto found = state.symbols.find(init.symbol);
    if (found != state.symbols.end()) {
      if (found->second.space != Space::global && found->second.space != Space::constant) {
        return std::unexpected(module_error("initialiser " + init.symbol +
                                            ": only .global and .const variables and functions "
                                            "have an address an initialiser can hold"));
      }
      base = llvm::cast<llvm::Constant>(found->second.storage);
    } else {
      base = state.module.getFunction(init.symbol);
    }
    if (base == nullptr) {
      return std::unexpected(module_error("initialiser names unknown symbol " + init.symbol));
    }
    if (!type->isIntegerTy(64) && !type->isIntegerTy(32)) {
      return std::unexpected(module_error("initialiser " + init.symbol +
                                          ": an address needs a 32- or 64-bit integer element"));
    }
    llvm::LLVMContext& context = state.context;
    if (init.generic && base->getType()->getPointerAddressSpace() != 0) {
      base = llvm::ConstantExpr::getAddrSpaceCast(base, llvm::PointerType::get(context, 0));
    }
    llvm::Constant* at = llvm::ConstantExpr::getGetElementPtr(
        llvm::Type::getInt8Ty(context), base,
        llvm::ConstantInt::get(llvm::Type::getInt64Ty(context),
                               static_cast<uint64_t>(init.offset)));
    return llvm::ConstantExpr::getPtrToInt(at, type);
  }
};

// The constant of one scalar initialiser token for an element of `type`.
Expected<llvm::Constant*> scalar_constant(llvm::Type* type, const std::string& text,
                                          const AddressResolver* resolver)
{
  if (std::optional<AddressInit> address = parse_address_init(text); address && resolver) {
    return (*resolver)(*address, type);
  }
  if (type->isFloatingPointTy()) {
    if (std::optional<FloatLiteral> literal = parse_float(text)) {
      return float_constant(type, *literal);
    }
    if (std::optional<uint64_t> value = parse_integer(text)) {
      return llvm::ConstantFP::get(type, static_cast<double>(static_cast<int64_t>(*value)));
    }
  } else if (std::optional<uint64_t> value = parse_integer(text)) {
    return llvm::ConstantInt::get(type, *value);
  } else if (std::optional<FloatLiteral> literal = parse_float(text)) {
    return llvm::ConstantInt::get(type, literal->raw);
  }
  return std::unexpected(module_error("unsupported initialiser " + text));
}

Expected<void> flatten(const ptx::Initializer& init, llvm::Type* type,
                       std::vector<llvm::Constant*>& out, const AddressResolver* resolver)
{
  if (!init.is_list) {
    TRY_ASSIGN(llvm::Constant * constant, scalar_constant(type, init.scalar, resolver));
    out.push_back(constant);
    return {};
  }
  for (const ptx::Initializer& element : init.elements) {
    TRY(flatten(element, type, out, resolver));
  }
  return {};
}

void leaves(const ptx::Initializer& init, std::vector<const ptx::Initializer*>& out)
{
  if (!init.is_list) {
    out.push_back(&init);
    return;
  }
  for (const ptx::Initializer& element : init.elements) {
    leaves(element, out);
  }
}

// A byte array whose initialiser holds the bytes of addresses (parse_masked_byte): a packed
// struct of i8 for the plain bytes and one i64 (or i32) address for every 8 (or 4) bytes 0, 1,
// ... of one address in a row, so that the address stays one relocation.
Expected<std::pair<llvm::Type*, llvm::Constant*>>
byte_value(llvm::LLVMContext& context, const ptx::Variable& variable, int64_t count,
           const AddressResolver& resolver)
{
  std::vector<const ptx::Initializer*> bytes;
  leaves(*variable.init, bytes);
  if (static_cast<int64_t>(bytes.size()) > count) {
    return std::unexpected(module_error("variable " + variable.name + ": too many initialisers"));
  }
  llvm::Type* i8 = llvm::Type::getInt8Ty(context);
  std::vector<llvm::Constant*> fields;
  for (size_t i = 0; i < bytes.size();) {
    std::optional<MaskedByte> first = parse_masked_byte(bytes[i]->scalar);
    if (!first) {
      TRY_ASSIGN(llvm::Constant * plain, scalar_constant(i8, bytes[i]->scalar, nullptr));
      fields.push_back(plain);
      ++i;
      continue;
    }
    size_t run = 1;
    while (i + run < bytes.size() && run < 8) {
      std::optional<MaskedByte> next = parse_masked_byte(bytes[i + run]->scalar);
      if (!next || next->expression != first->expression || next->byte != static_cast<int>(run)) {
        break;
      }
      ++run;
    }
    if (first->byte != 0 || (run != 8 && run != 4)) {
      return std::unexpected(module_error("variable " + variable.name +
                                          ": unsupported: bytes of an address that are not its "
                                          "4 or 8 bytes in order"));
    }
    llvm::Type* width = llvm::Type::getIntNTy(context, static_cast<unsigned>(8 * run));
    TRY_ASSIGN(llvm::Constant * address, resolver(first->address, width));
    fields.push_back(address);
    i += run;
  }
  for (int64_t i = static_cast<int64_t>(bytes.size()); i < count; ++i) {
    fields.push_back(llvm::ConstantInt::get(i8, 0));
  }
  llvm::StructType* type = llvm::StructType::get(context, [&] {
    std::vector<llvm::Type*> types;
    for (llvm::Constant* field : fields) {
      types.push_back(field->getType());
    }
    return types;
  }(), true);
  return std::pair{type, llvm::ConstantStruct::get(type, fields)};
}

// A global's type and initial value: [N x element] (or the element for scalars). Without a
// resolver, an initialiser that names a symbol is an error (the caller defers it).
Expected<std::pair<llvm::Type*, llvm::Constant*>>
global_value(llvm::LLVMContext& context, const ptx::Variable& variable,
             const AddressResolver* resolver)
{
  std::optional<PtxType> type = parse_type(storage_type(variable));
  if (!type || type->kind == PtxType::Kind::pred) {
    return std::unexpected(module_error("variable " + variable.name + ": unsupported type " +
                                        variable.type));
  }
  llvm::Type* element = llvm_type(context, *type);
  TRY_ASSIGN(int64_t size, variable_size(variable));
  int64_t count = std::max<int64_t>(size / std::max(type->bits / 8, 1), 1);
  bool scalar = variable.dims.empty() && variable.vector.empty();
  llvm::Type* whole = scalar ? element : llvm::ArrayType::get(element, static_cast<uint64_t>(count));
  if (!variable.init) {
    return std::pair{whole, llvm::Constant::getNullValue(whole)};
  }
  if (resolver != nullptr && type->bits == 8 && names_symbols(*variable.init)) {
    return byte_value(context, variable, count, *resolver);
  }
  std::vector<llvm::Constant*> elements;
  TRY(flatten(*variable.init, element, elements, resolver));
  if (static_cast<int64_t>(elements.size()) > count) {
    return std::unexpected(module_error("variable " + variable.name + ": too many initialisers"));
  }
  if (scalar) {
    return std::pair{whole, elements.front()};
  }
  elements.resize(static_cast<size_t>(count), llvm::Constant::getNullValue(element));
  return std::pair{whole, llvm::ConstantArray::get(llvm::cast<llvm::ArrayType>(whole), elements)};
}

// .maxntid / .reqntid -> the AMDGPU backend's flat work-group size bounds.
void set_workgroup_size(const ptx::Function& function, llvm::Function& kernel)
{
  for (const ptx::Directive& directive : function.performance) {
    if (directive.name != ".maxntid" && directive.name != ".reqntid") {
      continue;
    }
    int64_t threads = 1;
    for (const std::string& arg : directive.args) {
      std::optional<uint64_t> value = parse_integer(arg);
      if (value && *value > 0 && *value <= 1024) {
        threads *= static_cast<int64_t>(*value);
      }
    }
    if (threads < 1 || threads > 1024) {
      continue;
    }
    std::string low = directive.name == ".reqntid" ? std::to_string(threads) : "1";
    kernel.addFnAttr("amdgpu-flat-work-group-size", low + "," + std::to_string(threads));
  }
}

// A module-scope .global/.const variable is a symbol of the object whatever its PTX linkage:
// cuModuleGetGlobal finds a variable without .visible too (nvcc writes `__constant__` and
// `static __device__` variables that way; the H200 golden case module_vars_static writes two).
llvm::GlobalValue::LinkageTypes host_linkage(const std::string& ptx_linkage)
{
  if (ptx_linkage == ".weak" || ptx_linkage == ".common") {
    return llvm::GlobalValue::WeakAnyLinkage;
  }
  return llvm::GlobalValue::ExternalLinkage;
}

// `.alias A, B;` at module scope: alias name -> aliasee name.
std::map<std::string, std::string> module_aliases(const ptx::Module& module)
{
  std::map<std::string, std::string> aliases;
  for (const ptx::Item& item : module.items) {
    const auto* directive = std::get_if<ptx::Directive>(&item.value);
    if (directive != nullptr && directive->name == ".alias" && directive->args.size() == 3 &&
        directive->args[1] == ",") {
      aliases[directive->args[0]] = directive->args[2];
    }
  }
  return aliases;
}

// What a function body does with other functions: whether it executes exit, whom it calls
// directly, and which names it uses otherwise (a function's address: mov.u64 %rd, f).
struct BodyFacts {
  bool exits = false;
  bool calls_indirectly = false;
  std::set<std::string> callees;
  std::set<std::string> named;
};

void collect_named(const ptx::Operand& operand, std::set<std::string>& out)
{
  if (operand.kind == ptx::OperandKind::symbol) {
    out.insert(operand.text);
  }
  for (const ptx::Operand& element : operand.elements) {
    collect_named(element, out);
  }
}

void body_facts(const ptx::Block& block, BodyFacts& facts)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      body_facts(*inner, facts);
      continue;
    }
    const auto* instruction = std::get_if<ptx::Instruction>(&statement.value);
    if (instruction == nullptr) {
      continue;
    }
    facts.exits = facts.exits || instruction->opcode == "exit";
    size_t first = 0;
    if (instruction->opcode == "call") {
      const std::vector<ptx::Operand>& operands = instruction->operands;
      first = !operands.empty() && operands[0].kind == ptx::OperandKind::list ? 1 : 0;
      if (first < operands.size() && operands[first].kind == ptx::OperandKind::symbol) {
        facts.callees.insert(operands[first].text);
        ++first;
      } else {
        facts.calls_indirectly = true;
      }
    }
    for (size_t i = first; i < instruction->operands.size(); ++i) {
      collect_named(instruction->operands[i], facts.named);
    }
  }
}

// The .func definitions that can execute exit, themselves or through a call (aliases followed).
// An indirect call cannot know its callee, so when a function whose address is taken can exit,
// every function whose address is taken takes the "exited" flag (lower_control.cpp), every
// indirect call passes it, and a function that calls indirectly can exit.
struct ExitFacts {
  std::set<std::string> exiting;
  bool indirect_calls_exit = false;
};

ExitFacts exiting_functions(const ptx::Module& module,
                            const std::map<std::string, std::string>& aliases)
{
  auto resolve = [&](const std::string& name) {
    auto alias = aliases.find(name);
    return alias == aliases.end() ? name : alias->second;
  };
  std::map<std::string, BodyFacts> facts;
  std::set<std::string> address_taken;
  for (const ptx::Item& item : module.items) {
    const auto* function = std::get_if<ptx::Function>(&item.value);
    if (function != nullptr && function->body) {
      BodyFacts& own = facts[function->name];
      body_facts(*function->body, own);
      for (const std::string& name : own.named) {
        address_taken.insert(resolve(name));
      }
    } else if (const auto* variable = std::get_if<ptx::Variable>(&item.value);
               variable && variable->init) {
      std::vector<const ptx::Initializer*> work = {&*variable->init};
      while (!work.empty()) {
        const ptx::Initializer* init = work.back();
        work.pop_back();
        if (std::optional<AddressInit> address = parse_address_init(init->scalar)) {
          address_taken.insert(resolve(address->symbol));
        } else if (std::optional<MaskedByte> byte = parse_masked_byte(init->scalar)) {
          address_taken.insert(resolve(byte->address.symbol));
        }
        for (const ptx::Initializer& element : init->elements) {
          work.push_back(&element);
        }
      }
    }
  }
  ExitFacts out;
  for (bool changed = true; changed;) {
    changed = false;
    for (const auto& [name, own] : facts) {
      bool exits = own.exits || (own.calls_indirectly && out.indirect_calls_exit) ||
                   std::ranges::any_of(own.callees, [&](const std::string& callee) {
                     return out.exiting.contains(resolve(callee));
                   });
      changed = (exits && out.exiting.insert(name).second) || changed;
    }
    const bool indirect = std::ranges::any_of(
        address_taken, [&](const std::string& name) { return out.exiting.contains(name); });
    if (indirect && !out.indirect_calls_exit) {
      out.indirect_calls_exit = true;
      for (const std::string& name : address_taken) {
        if (facts.contains(name)) {
          out.exiting.insert(name);
        }
      }
      changed = true;
    }
  }
  return out;
}

class ModuleTranslator {
public:
  ModuleTranslator(const ptx::Module& module, const TranslateOptions& options,
                   Translation& translation, TargetHooks& hooks)
      : m_ptx(module), m_options(options), m_translation(translation),
        m_state{*translation.context, *translation.module, hooks, options, {}, {}, {}, {}, {},
                0, 1, {}, false}
  {
  }

  Expected<void> run();

private:
  Expected<void> add_variable(const ptx::Variable& variable, const std::string& llvm_name,
                              bool in_body, Symbol& out);
  Expected<void> add_body_variables(const ptx::Block& block, const std::string& owner,
                                    bool shared_only);
  void place_dynamic_shared();
  Expected<void> place_shared(const ptx::Variable& variable);
  Expected<void> layout_module_shared();
  Expected<void> place_kernel_module_shared(const std::string& kernel);
  Expected<void> declare_function(const ptx::Function& function);
  llvm::GlobalValue::LinkageTypes linkage(const std::string& ptx_linkage) const;
  Expected<void> resolve_address_initialisers();
  void mark_flushing_functions();
  Expected<void> resolve_aliases();

  const ptx::Module& m_ptx;
  const TranslateOptions& m_options;
  Translation& m_translation;
  ModuleState m_state;
  int64_t m_shared_end = 0; // host window: the current layout's end
  // Module-scope static .shared variable -> the kernels that reach it (symbol_reach.hpp).
  std::map<std::string, std::set<std::string>> m_shared_reach;
  bool m_has_dynamic_shared = false;
  // Variables whose initialisers name symbols (generic(sym)+4, function addresses).
  std::vector<std::pair<llvm::GlobalVariable*, const ptx::Variable*>> m_address_initialised;
  std::map<std::string, std::string> m_aliases; // .alias A, B: A -> B
  std::set<std::string> m_exiting;              // .func definitions that can exit (aliases too)
};

llvm::GlobalValue::LinkageTypes ModuleTranslator::linkage(const std::string& ptx_linkage) const
{
  if (ptx_linkage == ".visible" || ptx_linkage == ".extern") {
    return llvm::GlobalValue::ExternalLinkage;
  }
  if (ptx_linkage == ".weak" || ptx_linkage == ".common") {
    return llvm::GlobalValue::WeakAnyLinkage;
  }
  return llvm::GlobalValue::InternalLinkage;
}

Expected<void> ModuleTranslator::add_variable(const ptx::Variable& variable,
                                              const std::string& llvm_name, bool in_body,
                                              Symbol& out)
{
  TargetHooks& hooks = m_state.hooks;
  out.variable = &variable;
  if (variable.space == ".shared") {
    out.space = Space::shared;
    bool dynamic = !variable.dims.empty() && variable.dims.back() < 0;
    if (dynamic) {
      out.dynamic_shared = true;
      return {};
    }
    TRY_ASSIGN(int64_t size, variable_size(variable));
    int64_t align = variable_align(variable);
    m_shared_end = align_up(m_shared_end, align);
    out.offset = m_shared_end;
    m_shared_end += size;
    if (hooks.kind() == TargetKind::host) {
      return {};
    }
    llvm::Type* type = llvm::ArrayType::get(llvm::Type::getInt8Ty(m_state.context),
                                            static_cast<uint64_t>(std::max<int64_t>(size, 1)));
    auto* global = new llvm::GlobalVariable(
        m_state.module, type, false, llvm::GlobalValue::InternalLinkage,
        llvm::UndefValue::get(type), llvm_name, nullptr, llvm::GlobalValue::NotThreadLocal,
        hooks.address_space(Space::shared));
    global->setAlignment(llvm::Align(static_cast<uint64_t>(align)));
    out.storage = global;
    return {};
  }
  bool constant = variable.space == ".const";
  if (!constant && variable.space != ".global") {
    return std::unexpected(module_error("unsupported: " + variable.space + " variable " +
                                        variable.name + " at line " +
                                        std::to_string(variable.pos.line)));
  }
  out.space = constant ? Space::constant : Space::global;
  // An initialiser that names symbols waits until every variable and function is declared
  // (resolve_address_initialisers); until then the variable holds zeros.
  const bool deferred = variable.init && names_symbols(*variable.init);
  ptx::Variable bare = variable;
  if (deferred) {
    bare.init.reset();
  }
  TRY_ASSIGN(auto value, global_value(m_state.context, bare, nullptr));
  bool external = variable.linkage == ".extern";
  // Module scope: the host may write it (see the file comment), so it is never an LLVM constant
  // and its initialiser is only the value before the host's first write.
  auto* global = new llvm::GlobalVariable(
      m_state.module, value.first, constant && in_body,
      in_body ? llvm::GlobalValue::InternalLinkage : host_linkage(variable.linkage),
      external ? nullptr : value.second, llvm_name, nullptr, llvm::GlobalValue::NotThreadLocal,
      hooks.address_space(out.space), !in_body);
  global->setAlignment(llvm::Align(static_cast<uint64_t>(variable_align(variable))));
  if (!in_body && hooks.kind() == TargetKind::amdgpu) {
    global->setVisibility(llvm::GlobalValue::ProtectedVisibility);
  }
  out.storage = global;
  if (deferred && !external) {
    m_address_initialised.emplace_back(global, &variable);
  }
  return {};
}

Expected<void> ModuleTranslator::resolve_address_initialisers()
{
  AddressResolver resolver{m_state};
  for (auto [global, variable] : m_address_initialised) {
    TRY_ASSIGN(auto value, global_value(m_state.context, *variable, &resolver));
    if (value.first == global->getValueType()) {
      global->setInitializer(value.second);
      continue;
    }
    // A byte array with addresses in it became a packed struct of the same size: a new global
    // takes the name and every use (nothing but other initialisers uses it yet).
    auto* replacement = new llvm::GlobalVariable(
        m_state.module, value.first, global->isConstant(), global->getLinkage(), value.second, "",
        global, llvm::GlobalValue::NotThreadLocal, global->getAddressSpace(),
        global->isExternallyInitialized());
    replacement->copyAttributesFrom(global);
    replacement->takeName(global);
    global->replaceAllUsesWith(replacement);
    for (auto& [name, symbol] : m_state.symbols) {
      symbol.storage = symbol.storage == global ? replacement : symbol.storage;
    }
    global->eraseFromParent();
  }
  return {};
}

Expected<void> ModuleTranslator::add_body_variables(const ptx::Block& block,
                                                    const std::string& owner, bool shared_only)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      TRY(add_body_variables(*inner, owner, shared_only));
      continue;
    }
    const auto* variable = std::get_if<ptx::Variable>(&statement.value);
    if (variable == nullptr || variable->space == ".reg" || variable->space == ".local" ||
        variable->space == ".param") {
      continue;
    }
    bool shared = variable->space == ".shared";
    if (shared_only != shared) {
      continue;
    }
    Symbol symbol;
    TRY(add_variable(*variable, owner + "." + variable->name, true, symbol));
    m_has_dynamic_shared = m_has_dynamic_shared || symbol.dynamic_shared;
    m_state.body_symbols[variable] = symbol;
  }
  return {};
}

// Puts a module-scope static .shared variable at the window's current end.
Expected<void> ModuleTranslator::place_shared(const ptx::Variable& variable)
{
  TRY_ASSIGN(int64_t size, variable_size(variable));
  int64_t align = variable_align(variable);
  m_shared_end = align_up(m_shared_end, align);
  m_state.symbols[variable.name].offset = m_shared_end;
  m_shared_end += size;
  return {};
}

// The module-scope static .shared variables that two or more kernels reach get the window's first
// bytes, at one offset for all; each of the others is placed with the one kernel that reaches it
// (place_kernel_module_shared), so kernels' own variables share bytes across kernels instead of
// adding up in every block (clang writes each kernel's __shared__ arrays at module scope). A
// variable no kernel reaches is never addressed and stays at 0.
Expected<void> ModuleTranslator::layout_module_shared()
{
  std::set<std::string> names;
  for (const ptx::Item& item : m_ptx.items) {
    const auto* variable = std::get_if<ptx::Variable>(&item.value);
    if (variable != nullptr && variable->space == ".shared" &&
        !m_state.symbols[variable->name].dynamic_shared) {
      names.insert(variable->name);
      m_state.symbols[variable->name].offset = 0;
    }
  }
  m_shared_reach = kernels_reaching(m_ptx, names);
  m_shared_end = 0;
  for (const ptx::Item& item : m_ptx.items) {
    const auto* variable = std::get_if<ptx::Variable>(&item.value);
    if (variable != nullptr && names.contains(variable->name) &&
        m_shared_reach[variable->name].size() >= 2) {
      TRY(place_shared(*variable));
    }
  }
  return {};
}

Expected<void> ModuleTranslator::place_kernel_module_shared(const std::string& kernel)
{
  for (const ptx::Item& item : m_ptx.items) {
    const auto* variable = std::get_if<ptx::Variable>(&item.value);
    if (variable == nullptr) {
      continue;
    }
    auto reach = m_shared_reach.find(variable->name);
    if (reach != m_shared_reach.end() && reach->second.size() == 1 &&
        reach->second.contains(kernel)) {
      TRY(place_shared(*variable));
    }
  }
  return {};
}

// The dynamic array follows the static variables. A .func may address it on behalf of any kernel,
// so on the host it sits at one module-wide offset: the largest kernel's static end, which then
// is every kernel's static_shared_bytes.
void ModuleTranslator::place_dynamic_shared()
{
  if (!m_has_dynamic_shared) {
    return;
  }
  int64_t offset = align_up(m_state.module_shared_bytes, 16);
  for (const KernelSignature& signature : m_translation.kernels) {
    offset = std::max(offset, signature.static_shared_bytes);
  }
  for (KernelSignature& signature : m_translation.kernels) {
    signature.static_shared_bytes = offset;
    signature.uses_dynamic_shared = true;
  }
  for (auto& [name, symbol] : m_state.symbols) {
    symbol.offset = symbol.dynamic_shared ? offset : symbol.offset;
  }
  for (auto& [variable, symbol] : m_state.body_symbols) {
    symbol.offset = symbol.dynamic_shared ? offset : symbol.offset;
  }
}

Expected<void> ModuleTranslator::declare_function(const ptx::Function& function)
{
  llvm::LLVMContext& context = m_state.context;
  if (function.is_entry) {
    KernelSignature* signature = nullptr;
    for (KernelSignature& candidate : m_translation.kernels) {
      if (candidate.name == function.name) {
        signature = &candidate;
      }
    }
    llvm::Function* kernel = m_state.hooks.declare_kernel(m_state.module, *signature);
    m_state.llvm_functions[function.name] = kernel;
    if (m_options.kind == TargetKind::amdgpu) {
      set_workgroup_size(function, *kernel);
    }
    return {};
  }
  std::vector<llvm::Type*> params;
  for (const ptx::Variable& param : function.params) {
    auto type = variable_type(context, param);
    if (!type) {
      return std::unexpected(module_error("function " + function.name + ": " +
                                          type.error().message));
    }
    params.push_back(*type);
  }
  // A function that can exit takes a pointer to its caller's "exited" flag (lower_control.cpp).
  const bool exits = m_exiting.contains(function.name);
  if (exits) {
    params.push_back(llvm::PointerType::get(context, m_state.hooks.address_space(Space::local)));
  }
  if (m_state.hooks.funcs_take_thread()) {
    params.push_back(llvm::PointerType::get(context, 0));
  }
  std::vector<llvm::Type*> results;
  for (const ptx::Variable& result : function.returns) {
    auto type = variable_type(context, result);
    if (!type) {
      return std::unexpected(module_error("function " + function.name + ": " +
                                          type.error().message));
    }
    results.push_back(*type);
  }
  llvm::Type* result = results.empty()    ? llvm::Type::getVoidTy(context)
                       : results.size() == 1 ? results.front()
                                             : llvm::StructType::get(context, results);
  llvm::FunctionType* type = llvm::FunctionType::get(result, params, false);
  llvm::Function* existing = m_state.module.getFunction(function.name);
  if (existing != nullptr) {
    if (existing->getFunctionType() != type) {
      return std::unexpected(module_error("function " + function.name +
                                          " is declared twice with different parameters"));
    }
    if (function.body) {
      existing->setLinkage(linkage(function.linkage));
    }
    return {};
  }
  llvm::GlobalValue::LinkageTypes kind =
      function.body ? linkage(function.linkage) : llvm::GlobalValue::ExternalLinkage;
  llvm::Function* created = llvm::Function::Create(type, kind, function.name, m_state.module);
  if (exits) {
    created->addFnAttr("d4r-exits");
    created->getArg(static_cast<unsigned>(function.params.size()))->setName("d4r.exited");
  }
  m_state.llvm_functions[function.name] = created;
  return {};
}

// The functions whose f32 denormals the float mode flushes (denormal_mode.hpp), before any body
// is translated: flush_subnormal reads the attribute.
void ModuleTranslator::mark_flushing_functions()
{
#if !defined(__x86_64__)
  if (m_options.kind == TargetKind::host) {
    return; // the CPU executor models the float mode with x86-64's MXCSR only
  }
#endif
  const std::set<std::string> flushing = functions_flushing_f32(m_ptx, m_options.float_policy);
  for (const std::string& name : flushing) {
    if (llvm::Function* function = m_state.module.getFunction(name)) {
      function->addFnAttr("denormal-fp-math-f32", "preserve-sign,preserve-sign");
    }
  }
  for (KernelSignature& signature : m_translation.kernels) {
    signature.flushes_f32_denormals = flushing.contains(signature.name);
  }
}

// `.alias A, B`: A was declared from its own .func prototype; every use of it (calls, addresses)
// becomes B, whose definition must be in the module with the same signature.
Expected<void> ModuleTranslator::resolve_aliases()
{
  for (const auto& [alias, aliasee] : m_aliases) {
    llvm::Function* from = m_state.module.getFunction(alias);
    llvm::Function* to = m_state.module.getFunction(aliasee);
    auto defined = m_state.functions.find(aliasee);
    if (from == nullptr || to == nullptr || defined == m_state.functions.end() ||
        !defined->second->body || defined->second->is_entry) {
      return std::unexpected(module_error(".alias " + alias + ", " + aliasee +
                                          ": both must be functions, the second defined here"));
    }
    if (from->getFunctionType() != to->getFunctionType()) {
      return std::unexpected(module_error(".alias " + alias + ", " + aliasee +
                                          ": the two functions' parameters differ"));
    }
    from->replaceAllUsesWith(to);
    from->eraseFromParent();
  }
  return {};
}

Expected<void> ModuleTranslator::run()
{
  std::vector<const ptx::Function*> functions;
  for (const ptx::Item& item : m_ptx.items) {
    if (const auto* function = std::get_if<ptx::Function>(&item.value)) {
      functions.push_back(function);
      if (function->body || !m_state.functions.contains(function->name)) {
        m_state.functions[function->name] = function;
      }
      if (function->is_entry) {
        TRY_ASSIGN(KernelSignature signature, make_signature(*function));
        m_translation.kernels.push_back(std::move(signature));
      }
    } else if (const auto* variable = std::get_if<ptx::Variable>(&item.value)) {
      Symbol symbol;
      TRY(add_variable(*variable, variable->name, false, symbol));
      m_has_dynamic_shared = m_has_dynamic_shared || symbol.dynamic_shared;
      m_state.symbols[variable->name] = symbol;
    }
  }
  m_aliases = module_aliases(m_ptx);
  for (const auto& [alias, aliasee] : m_aliases) {
    auto defined = m_state.functions.find(aliasee);
    if (defined != m_state.functions.end() && defined->second->body) {
      m_state.functions[alias] = defined->second; // a call of A is a call of B (lower_control.cpp)
    }
  }
  ExitFacts exits = exiting_functions(m_ptx, m_aliases);
  m_exiting = std::move(exits.exiting);
  m_state.indirect_calls_exit = exits.indirect_calls_exit;
  for (const auto& [alias, aliasee] : m_aliases) {
    if (m_exiting.contains(aliasee)) {
      m_exiting.insert(alias);
    }
  }
  TRY(layout_module_shared());
  // .shared of .func bodies joins the module's part of the window; then each kernel's own part.
  for (const ptx::Function* function : functions) {
    if (!function->is_entry && function->body) {
      TRY(add_body_variables(*function->body, function->name, true));
      TRY(add_body_variables(*function->body, function->name, false));
    }
  }
  m_state.module_shared_bytes = m_shared_end;
  for (KernelSignature& signature : m_translation.kernels) {
    m_state.kernels[signature.name] = &signature;
  }
  for (const ptx::Function* function : functions) {
    if (!function->is_entry || !function->body) {
      continue;
    }
    m_shared_end = m_state.module_shared_bytes;
    TRY(place_kernel_module_shared(function->name));
    TRY(add_body_variables(*function->body, function->name, true));
    TRY(add_body_variables(*function->body, function->name, false));
    KernelSignature& signature = *const_cast<KernelSignature*>(m_state.kernels[function->name]);
    signature.static_shared_bytes = align_up(m_shared_end, 16);
  }
  place_dynamic_shared();
  for (const ptx::Function* function : functions) {
    TRY(declare_function(*function));
  }
  mark_flushing_functions();
  TRY(resolve_address_initialisers());
  for (const ptx::Function* function : functions) {
    if (!function->body) {
      continue;
    }
    llvm::Function* target = m_state.module.getFunction(function->name);
    if (!target->empty()) {
      return std::unexpected(module_error("function " + function->name + " is defined twice"));
    }
    FunctionTranslator translator(m_state, *function, *target);
    TRY(translator.translate());
  }
  return resolve_aliases();
}

} // namespace

Expected<Translation> translate_module(const ptx::Module& module, const TranslateOptions& options)
{
  if (has_vector_registers(module)) {
    TRY_ASSIGN(ptx::Module scalar, expand_vector_registers(module));
    return translate_module(scalar, options); // once: the expanded module has none
  }
  Translation translation;
  translation.context = std::make_unique<llvm::LLVMContext>();
  translation.module = std::make_unique<llvm::Module>("ptx", *translation.context);
  TRY_ASSIGN(std::unique_ptr<TargetSetup> setup, make_target_setup(*translation.module, options));
  ModuleTranslator translator(module, options, translation, *setup->hooks);
  TRY(translator.run());
  TRY(finish_module(translation, *setup));
  return translation;
}

} // namespace d4r::compiler::translate
