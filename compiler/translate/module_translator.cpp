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

#include <map>
#include <set>
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

// The constant of one scalar initialiser token for an element of `type`.
Expected<llvm::Constant*> scalar_constant(llvm::Type* type, const std::string& text)
{
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
                       std::vector<llvm::Constant*>& out)
{
  if (!init.is_list) {
    TRY_ASSIGN(llvm::Constant * constant, scalar_constant(type, init.scalar));
    out.push_back(constant);
    return {};
  }
  for (const ptx::Initializer& element : init.elements) {
    TRY(flatten(element, type, out));
  }
  return {};
}

// A global's type and initial value: [N x element] (or the element for scalars).
Expected<std::pair<llvm::Type*, llvm::Constant*>> global_value(llvm::LLVMContext& context,
                                                               const ptx::Variable& variable)
{
  std::optional<PtxType> type = parse_type(variable.type);
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
  std::vector<llvm::Constant*> elements;
  TRY(flatten(*variable.init, element, elements));
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

class ModuleTranslator {
public:
  ModuleTranslator(const ptx::Module& module, const TranslateOptions& options,
                   Translation& translation, TargetHooks& hooks)
      : m_ptx(module), m_options(options), m_translation(translation),
        m_state{*translation.context, *translation.module, hooks, options, {}, {}, {}, {}, {}, 0, 1}
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

  const ptx::Module& m_ptx;
  const TranslateOptions& m_options;
  Translation& m_translation;
  ModuleState m_state;
  int64_t m_shared_end = 0; // host window: the current layout's end
  // Module-scope static .shared variable -> the kernels that reach it (symbol_reach.hpp).
  std::map<std::string, std::set<std::string>> m_shared_reach;
  bool m_has_dynamic_shared = false;
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
  TRY_ASSIGN(auto value, global_value(m_state.context, variable));
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
  m_state.llvm_functions[function.name] =
      llvm::Function::Create(type, kind, function.name, m_state.module);
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
  return {};
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
