// Control flow: bra (and bra.uni), brx.idx (a switch over a .branchtargets list), ret, exit, call
// (with .param arguments, or registers as the splice pass passes them; direct, or through a
// register with a .callprototype), trap and brkpt, and the per-thread stack: alloca, stacksave,
// stackrestore; and isspacep, the generic-address test that guards address conversions. A guard
// around any of them is handled by FunctionTranslator.
//
// exit in a .func ends the thread, not only the function. A function that can exit (its body has
// an exit or calls one that can; module_translator.cpp marks it "d4r-exits" and gives it one more
// argument after its PTX parameters, a pointer to the caller's i1 "exited" flag) sets the flag and
// returns; after every call of such a function the caller tests the flag and returns too, up to
// the kernel, whose flag is a stack slot. When a function whose address is taken can exit, every
// such function takes the flag and every indirect call passes it (ModuleState::
// indirect_calls_exit).
// https://docs.nvidia.com/cuda/parallel-thread-execution/#control-flow-instructions
// https://docs.nvidia.com/cuda/parallel-thread-execution/#stack-manipulation-instructions
// https://docs.nvidia.com/cuda/parallel-thread-execution/#data-movement-and-conversion-instructions-isspacep

#include "compiler/translate/function_translator.hpp"
#include "compiler/translate/lowering.hpp"
#include "compiler/translate/lowering_support.hpp"
#include "compiler/translate/ptx_values.hpp"

#include <llvm/IR/Module.h>

#include <algorithm>
#include <cctype>
#include <initializer_list>
#include <set>
#include <utility>
#include <variant>
#include <vector>

namespace d4r::compiler::translate {

namespace {

// .uni asserts that the branch (call, return) is non-divergent: a performance hint.
constexpr std::string_view k_uniform[] = {"uni"};

Expected<void> lower_bra(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, k_uniform));
  TRY(expect_operands(t, instruction, 1));
  const ptx::Operand& target = instruction.operands.front();
  llvm::BasicBlock* block = t.label(target.text);
  if (target.kind != ptx::OperandKind::symbol || block == nullptr) {
    return std::unexpected(t.error(instruction, "unknown branch target " + target.text));
  }
  t.builder().CreateBr(block);
  return {};
}

Expected<void> lower_ret(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, k_uniform));
  TRY(expect_operands(t, instruction, 0));
  t.emit_return();
  return {};
}

constexpr const char* k_exited_name = "d4r.exited";

// The i1 "this thread executed exit" flag of the current function: the kernel's own stack slot
// (cleared at entry), or the argument module_translator.cpp added to a function that can exit.
llvm::Value* exited_flag(FunctionTranslator& t)
{
  llvm::Function& function = t.llvm_function();
  if (!t.is_kernel()) {
    llvm::Argument* flag = function.getArg(static_cast<unsigned>(t.function().params.size()));
    assert(flag->getName() == k_exited_name && "a function that can exit has the flag argument");
    return flag;
  }
  for (llvm::Instruction& instruction : function.getEntryBlock()) {
    if (instruction.getName() == k_exited_name) {
      return &instruction;
    }
  }
  llvm::AllocaInst* slot = t.entry_alloca(t.builder().getInt1Ty(), 1, k_exited_name);
  llvm::IRBuilder<> entry(&function.getEntryBlock());
  entry.CreateStore(entry.getFalse(), slot);
  return slot;
}

Expected<void> lower_exit(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, {}));
  TRY(expect_operands(t, instruction, 0));
  if (!t.is_kernel()) {
    t.builder().CreateStore(t.builder().getTrue(), exited_flag(t));
  }
  t.emit_return();
  return {};
}

// After a call of a function that can exit: return at once if the thread did.
void return_if_exited(FunctionTranslator& t)
{
  llvm::IRBuilder<>& b = t.builder();
  llvm::Value* flag = exited_flag(t);
  llvm::Value* exited = b.CreateLoad(b.getInt1Ty(), flag);
  llvm::BasicBlock* stop = llvm::BasicBlock::Create(t.context(), "exited", &t.llvm_function());
  llvm::BasicBlock* next = llvm::BasicBlock::Create(t.context(), "not_exited", &t.llvm_function());
  b.CreateCondBr(exited, stop, next);
  b.SetInsertPoint(stop);
  t.emit_return();
  b.SetInsertPoint(next);
}

Expected<void> lower_trap(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, {}));
  TRY(expect_operands(t, instruction, 0));
  t.hooks().trap(t.env(), t.next_site());
  return {};
}

// brkpt: without a debugger the H200 ends the launch with CUDA_ERROR_LAUNCH_FAILED
// (ctl_breakpoint), as a trap does; nothing on AMD attaches a debugger to a replaced kernel.
Expected<void> lower_brkpt(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, {}));
  TRY(expect_operands(t, instruction, 0));
  t.hooks().trap(t.env(), t.next_site());
  return {};
}

// One call argument: a .param variable declared in the calling scope (nvcc) or a register or
// immediate (the splice pass), as the callee's parameter `param`.
Expected<llvm::Value*> call_argument(FunctionTranslator& t, const ptx::Instruction& instruction,
                                     const ptx::Operand& operand, const ptx::Variable& param,
                                     llvm::Type* type)
{
  if (operand.kind == ptx::OperandKind::symbol) {
    const Symbol* symbol = t.symbol(operand.text);
    if (symbol == nullptr || symbol->space != Space::param) {
      return std::unexpected(t.error(instruction, "call argument " + operand.text +
                                                      " is not a .param variable"));
    }
    return t.builder().CreateLoad(type, symbol->storage);
  }
  std::optional<PtxType> ptx_type = parse_type(param.type);
  if (!ptx_type || !param.dims.empty()) {
    return std::unexpected(t.error(instruction, "call argument " + operand.text +
                                                    " cannot pass parameter " + param.name));
  }
  return t.read(operand, *ptx_type);
}

Expected<void> store_result(FunctionTranslator& t, const ptx::Instruction& instruction,
                            const ptx::Operand& operand, const ptx::Variable& result,
                            llvm::Value* value)
{
  if (operand.kind == ptx::OperandKind::symbol) {
    const Symbol* symbol = t.symbol(operand.text);
    if (symbol == nullptr || symbol->space != Space::param) {
      return std::unexpected(t.error(instruction, "call result " + operand.text +
                                                      " is not a .param variable"));
    }
    t.builder().CreateStore(value, symbol->storage);
    return {};
  }
  std::optional<PtxType> type = parse_type(result.type);
  if (!type || !result.dims.empty()) {
    return std::unexpected(t.error(instruction, "call result " + operand.text +
                                                    " cannot receive " + result.name));
  }
  return t.write(operand, value, *type);
}

// The arguments of a call, then the result stores: `params` and `returns` describe the callee
// (its PTX declaration or the prototype of an indirect call).
Expected<void> emit_call(FunctionTranslator& t, const ptx::Instruction& instruction,
                         llvm::FunctionCallee callee, const std::vector<ptx::Variable>& params,
                         const std::vector<ptx::Variable>& returns, const ptx::Operand* arguments,
                         const ptx::Operand* results, bool can_exit)
{
  size_t argument_count = arguments != nullptr ? arguments->elements.size() : 0;
  size_t result_count = results != nullptr ? results->elements.size() : 0;
  if (argument_count != params.size() || result_count != returns.size()) {
    return std::unexpected(t.error(instruction, "call has the wrong number of arguments or "
                                                "results"));
  }
  std::vector<llvm::Value*> values;
  for (size_t i = 0; i < argument_count; ++i) {
    llvm::Type* type = callee.getFunctionType()->getParamType(static_cast<unsigned>(i));
    TRY_ASSIGN(llvm::Value * value,
               call_argument(t, instruction, arguments->elements[i], params[i], type));
    values.push_back(value);
  }
  if (can_exit) {
    values.push_back(exited_flag(t));
  }
  if (t.hooks().funcs_take_thread()) {
    values.push_back(t.env().thread);
  }
  llvm::Value* returned = t.builder().CreateCall(callee, values);
  for (size_t i = 0; i < result_count; ++i) {
    llvm::Value* value = result_count == 1
                             ? returned
                             : t.builder().CreateExtractValue(returned, static_cast<unsigned>(i));
    TRY(store_result(t, instruction, results->elements[i], returns[i], value));
  }
  if (can_exit) {
    return_if_exited(t);
  }
  return {};
}

// The directive named one of `kinds` that follows label `name` (`proto: .callprototype ...`,
// `ts: .branchtargets ...`), searched through the nested scopes of `block`.
const ptx::Directive* find_labelled(const ptx::Block& block, const std::string& name,
                                    std::initializer_list<std::string_view> kinds)
{
  for (size_t i = 0; i < block.statements.size(); ++i) {
    const ptx::Statement& statement = block.statements[i];
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      if (const ptx::Directive* found = find_labelled(*inner, name, kinds)) {
        return found;
      }
      continue;
    }
    const auto* label = std::get_if<ptx::Label>(&statement.value);
    if (label == nullptr || label->name != name || i + 1 >= block.statements.size()) {
      continue;
    }
    const auto* directive = std::get_if<ptx::Directive>(&block.statements[i + 1].value);
    if (directive != nullptr && std::ranges::find(kinds, directive->name) != kinds.end()) {
      return directive;
    }
  }
  return nullptr;
}

// The .callprototype or .calltargets directive that follows label `name`.
const ptx::Directive* find_prototype(const ptx::Block& block, const std::string& name)
{
  return find_labelled(block, name, {".callprototype", ".calltargets"});
}

// One parenthesised list of a prototype, "( .param .b32 _ , .param .align 8 .b8 _ [ 16 ] )", from
// args[at] on; `at` ends after the ')'.
Expected<std::vector<ptx::Variable>> prototype_list(const std::vector<std::string>& args,
                                                   size_t& at)
{
  std::vector<ptx::Variable> list;
  auto bad = [&]() {
    return make_error(ErrorCode::invalid_argument, "malformed .callprototype");
  };
  if (at >= args.size() || args[at] != "(") {
    return bad();
  }
  ++at;
  while (at < args.size() && args[at] != ")") {
    ptx::Variable variable;
    if (!list.empty()) {
      if (args[at] != ",") {
        return bad();
      }
      ++at;
    }
    for (; at < args.size() && args[at].starts_with("."); ++at) {
      if (args[at] == ".param" || args[at] == ".reg") {
        variable.space = args[at];
      } else if (args[at] == ".align" && at + 1 < args.size()) {
        variable.align = static_cast<int64_t>(parse_integer(args[++at]).value_or(0));
      } else if (args[at] == ".ptr" || args[at] == ".global" || args[at] == ".shared" ||
                 args[at] == ".const" || args[at] == ".local") {
        continue; // a pointer attribute: the value is its integer
      } else {
        variable.type = args[at];
      }
    }
    if (at >= args.size() || variable.type.empty() || variable.space.empty()) {
      return bad();
    }
    variable.name = args[at++];
    if (at + 2 < args.size() && args[at] == "[" && args[at + 2] == "]") {
      variable.dims.push_back(static_cast<int64_t>(parse_integer(args[at + 1]).value_or(0)));
      at += 3;
    }
    list.push_back(std::move(variable));
  }
  if (at >= args.size()) {
    return bad();
  }
  ++at;
  return list;
}

// `proto: .callprototype (.param .b32 _) _ (.param .b32 _, ...);`: the results (the first list,
// when the name `_` follows it) and the parameters.
struct Prototype {
  std::vector<ptx::Variable> returns;
  std::vector<ptx::Variable> params;
};

Expected<Prototype> parse_prototype(const ptx::Directive& directive)
{
  const std::vector<std::string>& args = directive.args;
  Prototype prototype;
  size_t at = 0;
  if (at < args.size() && args[at] == "(") {
    TRY_ASSIGN(prototype.returns, prototype_list(args, at));
  }
  if (at >= args.size() || args[at] != "_") {
    return make_error(ErrorCode::invalid_argument, "malformed .callprototype");
  }
  ++at;
  if (at < args.size()) {
    TRY_ASSIGN(prototype.params, prototype_list(args, at));
  }
  if (at != args.size()) {
    return make_error(ErrorCode::invalid_argument, "malformed .callprototype");
  }
  return prototype;
}

Expected<void> prototype_types(FunctionTranslator& t, const std::vector<ptx::Variable>& list,
                               std::vector<llvm::Type*>& out)
{
  for (const ptx::Variable& variable : list) {
    TRY_ASSIGN(llvm::Type * type, variable_type(t.context(), variable));
    out.push_back(type);
  }
  return {};
}

// `targets: .calltargets f, g;`: the callees' own declarations (the first one's, as they must
// all have the same) are the prototype.
Expected<Prototype> targets_prototype(FunctionTranslator& t, const ptx::Directive& directive)
{
  const ptx::Function* first = nullptr;
  for (const std::string& name : directive.args) {
    auto found = t.module().functions.find(name);
    if (name != "," && (found == t.module().functions.end() || found->second->is_entry)) {
      return make_error(ErrorCode::invalid_argument, "unknown function " + name + " in");
    }
    if (first == nullptr && name != ",") {
      first = found->second;
    }
  }
  if (first == nullptr) {
    return make_error(ErrorCode::invalid_argument, "empty .calltargets");
  }
  return Prototype{first->returns, first->params};
}

// call{.uni} (results), %reg, (arguments), proto: the address in %reg (a function's address,
// mov.u64 %rd, f, or one read from an initialised table) called with the types of a
// .callprototype or of the functions a .calltargets list names.
Expected<void> lower_indirect_call(FunctionTranslator& t, const ptx::Instruction& instruction,
                                   const ptx::Operand& target, const ptx::Operand* arguments,
                                   const ptx::Operand* results, const ptx::Operand* prototype_name)
{
  if (prototype_name == nullptr || prototype_name->kind != ptx::OperandKind::symbol) {
    return std::unexpected(t.unsupported(instruction)); // no prototype: nothing says the types
  }
  const ptx::Directive* directive = find_prototype(*t.function().body, prototype_name->text);
  if (directive == nullptr) {
    return std::unexpected(
        t.error(instruction, "no .callprototype named " + prototype_name->text));
  }
  Expected<Prototype> prototype = directive->name == ".calltargets"
                                      ? targets_prototype(t, *directive)
                                      : parse_prototype(*directive);
  if (!prototype) {
    return std::unexpected(t.error(instruction, prototype.error().message + " " +
                                                    prototype_name->text));
  }
  std::vector<llvm::Type*> params;
  std::vector<llvm::Type*> results_types;
  if (auto done = prototype_types(t, prototype->params, params); !done) {
    return std::unexpected(t.error(instruction, done.error().message));
  }
  if (auto done = prototype_types(t, prototype->returns, results_types); !done) {
    return std::unexpected(t.error(instruction, done.error().message));
  }
  llvm::IRBuilder<>& b = t.builder();
  const bool can_exit = t.module().indirect_calls_exit;
  if (can_exit) {
    params.push_back(b.getPtrTy(t.hooks().address_space(Space::local)));
  }
  if (t.hooks().funcs_take_thread()) {
    params.push_back(b.getPtrTy(0));
  }
  llvm::Type* result = results_types.empty()      ? b.getVoidTy()
                       : results_types.size() == 1 ? results_types.front()
                       : llvm::StructType::get(t.context(), results_types);
  llvm::FunctionType* type = llvm::FunctionType::get(result, params, false);
  const PtxType u64{PtxType::Kind::unsigned_int, 64, false};
  TRY_ASSIGN(llvm::Value * address, t.read(target, u64));
  llvm::Value* pointer = b.CreateIntToPtr(address, b.getPtrTy(0));
  return emit_call(t, instruction, llvm::FunctionCallee(type, pointer), prototype->params,
                   prototype->returns, arguments, results, can_exit);
}

Expected<void> lower_call(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  TRY(known_modifiers(t, instruction, k_uniform));
  const std::vector<ptx::Operand>& operands = instruction.operands;
  size_t at = 0;
  const ptx::Operand* results = nullptr;
  if (at < operands.size() && operands[at].kind == ptx::OperandKind::list) {
    results = &operands[at++];
  }
  if (at >= operands.size()) {
    return std::unexpected(t.unsupported(instruction));
  }
  const ptx::Operand& target = operands[at++];
  const ptx::Operand* arguments = nullptr;
  if (at < operands.size() && operands[at].kind == ptx::OperandKind::list) {
    arguments = &operands[at++];
  }
  if (target.kind == ptx::OperandKind::reg ||
      (target.kind == ptx::OperandKind::symbol && t.is_register(target.text))) {
    const ptx::Operand* prototype = at < operands.size() ? &operands[at++] : nullptr;
    if (at != operands.size()) {
      return std::unexpected(t.unsupported(instruction));
    }
    return lower_indirect_call(t, instruction, target, arguments, results, prototype);
  }
  if (target.kind != ptx::OperandKind::symbol) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::string& name = target.text;
  auto found = t.module().functions.find(name);
  if (Lowering builtin = find_lowering("call:" + name);
      builtin != nullptr && found != t.module().functions.end() && !found->second->body) {
    return builtin(t, instruction); // a rewrite pass's helper (builtin_call.hpp)
  }
  if (found != t.module().functions.end() && !found->second->body && !found->second->is_entry) {
    // vprintf, malloc, __assertfail or a function of another module: nothing defines it on AMD,
    // and the undefined symbol would surface only as a link error.
    return std::unexpected(t.error(instruction, "unsupported: call of extern function " + name +
                                                    " (no definition in the module)"));
  }
  llvm::Function* callee = t.module().module.getFunction(name);
  if (at != operands.size() || found == t.module().functions.end() || callee == nullptr ||
      found->second->is_entry) {
    return std::unexpected(t.error(instruction, "call of unknown function " + name));
  }
  const ptx::Function& function = *found->second;
  return emit_call(t, instruction, callee, function.params, function.returns, arguments, results,
                   callee->hasFnAttribute("d4r-exits"));
}

// The thread's stack for alloca: a fixed buffer of each function that allocates (LLVM's AMDGPU
// backend has no dynamic alloca, and both targets should fail alike), with the offset of its
// first free byte. alloca and stackrestore past its end trap, where PTX leaves a stack overflow
// undefined; CUDA's default stack is 1 KiB per thread for all frames together, so a kernel that
// fits on an NVIDIA GPU fits here.
constexpr uint64_t k_stack_bytes = 4096;
constexpr const char* k_stack_name = "d4r.stack";
constexpr const char* k_stack_top_name = "d4r.stack_top";

struct ThreadStack {
  llvm::Value* base = nullptr; // i64: the buffer's .local address
  llvm::Value* top = nullptr;  // i64 slot: the offset of the first free byte
};

ThreadStack thread_stack(FunctionTranslator& t)
{
  llvm::IRBuilder<>& b = t.builder();
  llvm::BasicBlock& entry = t.llvm_function().getEntryBlock();
  llvm::AllocaInst* buffer = nullptr;
  llvm::AllocaInst* top = nullptr;
  for (llvm::Instruction& instruction : entry) {
    if (instruction.getName() == k_stack_name) {
      buffer = llvm::cast<llvm::AllocaInst>(&instruction);
    } else if (instruction.getName() == k_stack_top_name) {
      top = llvm::cast<llvm::AllocaInst>(&instruction);
    }
  }
  if (buffer == nullptr) {
    buffer = t.entry_alloca(llvm::ArrayType::get(b.getInt8Ty(), k_stack_bytes), 16, k_stack_name);
    top = t.entry_alloca(b.getInt64Ty(), 8, k_stack_top_name);
    llvm::IRBuilder<> at_entry(&entry);
    at_entry.CreateStore(at_entry.getInt64(0), top);
  }
  unsigned bits =
      t.module().module.getDataLayout().getPointerSizeInBits(buffer->getAddressSpace());
  llvm::Value* base = b.CreateZExt(b.CreatePtrToInt(buffer, b.getIntNTy(bits)), b.getInt64Ty());
  return ThreadStack{base, top};
}

// Traps where `condition` holds; the code after goes on in a fresh block.
void trap_if(FunctionTranslator& t, llvm::Value* condition, const char* name)
{
  llvm::IRBuilder<>& b = t.builder();
  llvm::BasicBlock* trap = llvm::BasicBlock::Create(t.context(), name, &t.llvm_function());
  llvm::BasicBlock* next = llvm::BasicBlock::Create(t.context(), "ok", &t.llvm_function());
  b.CreateCondBr(condition, trap, next);
  b.SetInsertPoint(trap);
  t.hooks().trap(t.env(), t.next_site());
  if (b.GetInsertBlock()->getTerminator() == nullptr) {
    b.CreateUnreachable();
  }
  b.SetInsertPoint(next);
}

// .u32 or .u64 from the instruction's modifiers.
Expected<PtxType> stack_type(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  const bool wide = has_modifier(instruction, "u64");
  if (wide == has_modifier(instruction, "u32")) {
    return std::unexpected(t.error(instruction, instruction.opcode + " needs one of .u32, .u64"));
  }
  return PtxType{PtxType::Kind::unsigned_int, wide ? 64 : 32, false};
}

// alloca{.local}.u32/.u64 d, size{, align}: `size` bytes of the thread's stack, alive until the
// function returns; d is their .local address (nvcc follows with cvta.local). The alignment is an
// immediate power of two up to 2^23, 8 when absent (the ISA's).
Expected<void> lower_alloca(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"local", "u32", "u64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY_ASSIGN(PtxType type, stack_type(t, instruction));
  const size_t count = instruction.operands.size();
  if (count != 2 && count != 3) {
    return std::unexpected(t.error(instruction, "alloca takes 2 or 3 operands (d, size{, align})"));
  }
  uint64_t align = 8;
  if (count == 3) {
    const ptx::Operand& operand = instruction.operands[2];
    std::optional<uint64_t> value = operand.kind == ptx::OperandKind::integer
                                        ? parse_integer(operand.text)
                                        : std::nullopt;
    if (!value || *value == 0 || (*value & (*value - 1)) != 0 || *value > (uint64_t{1} << 23)) {
      return std::unexpected(t.error(instruction, "the alignment of alloca must be an immediate "
                                                  "power of two"));
    }
    align = *value;
  }
  TRY_ASSIGN(llvm::Value * size, t.read(instruction.operands[1], type));
  llvm::IRBuilder<>& b = t.builder();
  PtxType u64{PtxType::Kind::unsigned_int, 64, false};
  size = adapt_value(b, size, type, u64);
  ThreadStack stack = thread_stack(t);
  llvm::Value* free = b.CreateAdd(stack.base, b.CreateLoad(b.getInt64Ty(), stack.top));
  llvm::Value* start = b.CreateAnd(b.CreateAdd(free, b.getInt64(align - 1)), b.getInt64(0 - align));
  llvm::Value* room = b.CreateSub(b.CreateAdd(stack.base, b.getInt64(k_stack_bytes)), start);
  // start may pass the end when the alignment is larger than what is left.
  llvm::Value* overflow = b.CreateOr(
      b.CreateICmpUGT(start, b.CreateAdd(stack.base, b.getInt64(k_stack_bytes))),
      b.CreateICmpUGT(size, room));
  trap_if(t, overflow, "stack.overflow");
  b.CreateStore(b.CreateSub(b.CreateAdd(start, size), stack.base), stack.top);
  return t.write(instruction.operands[0], adapt_value(b, start, u64, type), type);
}

// stacksave.u32/.u64 d / stackrestore.u32/.u64 a: the address of alloca's first free byte, saved
// and set back (what alloca took after the save is free again); an address outside the
// function's stack traps.
Expected<void> lower_stack_pointer(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"u32", "u64"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(expect_operands(t, instruction, 1));
  TRY_ASSIGN(PtxType type, stack_type(t, instruction));
  llvm::IRBuilder<>& b = t.builder();
  PtxType u64{PtxType::Kind::unsigned_int, 64, false};
  ThreadStack stack = thread_stack(t);
  if (instruction.opcode == "stacksave") {
    llvm::Value* free = b.CreateAdd(stack.base, b.CreateLoad(b.getInt64Ty(), stack.top));
    return t.write(instruction.operands[0], adapt_value(b, free, u64, type), type);
  }
  TRY_ASSIGN(llvm::Value * value, t.read(instruction.operands[0], type));
  // A .u32 pointer is the address's low half (the host's .local addresses are 64-bit host
  // pointers): the offset is taken modulo 2^32, which is exact for a stack of 4 KiB.
  llvm::Value* offset =
      type.bits == 32
          ? b.CreateZExt(b.CreateSub(value, b.CreateTrunc(stack.base, b.getInt32Ty())),
                         b.getInt64Ty())
          : b.CreateSub(value, stack.base);
  trap_if(t, b.CreateICmpUGT(offset, b.getInt64(k_stack_bytes)), "stack.overflow");
  b.CreateStore(offset, stack.top);
  return {};
}

// brx.idx{.uni} index, tlist: a switch over the labels of the .branchtargets directive `tlist`
// (in the function, before the branch). An index past the list is undefined in the ISA; it traps
// here rather than jump anywhere.
Expected<void> lower_brx(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"idx", "uni"};
  TRY(known_modifiers(t, instruction, k_known));
  if (!has_modifier(instruction, "idx")) {
    return std::unexpected(t.unsupported(instruction));
  }
  TRY(expect_operands(t, instruction, 2));
  const ptx::Operand& list = instruction.operands[1];
  const ptx::Directive* targets =
      list.kind == ptx::OperandKind::symbol && list.offset.empty()
          ? find_labelled(*t.function().body, list.text, {".branchtargets"})
          : nullptr;
  if (targets == nullptr) {
    return std::unexpected(t.error(instruction, "no .branchtargets named " + list.text));
  }
  std::vector<llvm::BasicBlock*> blocks;
  for (const std::string& name : targets->args) {
    if (name == ",") {
      continue;
    }
    llvm::BasicBlock* block = t.label(name);
    if (block == nullptr) {
      return std::unexpected(t.error(instruction, "unknown branch target " + name));
    }
    blocks.push_back(block);
  }
  if (blocks.empty()) {
    return std::unexpected(t.error(instruction, "empty .branchtargets " + list.text));
  }
  TRY_ASSIGN(llvm::Value * index,
             t.read(instruction.operands[0], PtxType{PtxType::Kind::unsigned_int, 32, false}));
  llvm::IRBuilder<>& b = t.builder();
  llvm::BasicBlock* outside =
      llvm::BasicBlock::Create(t.context(), "brx.outside", &t.llvm_function());
  llvm::SwitchInst* branch = b.CreateSwitch(index, outside, static_cast<unsigned>(blocks.size()));
  for (size_t i = 0; i < blocks.size(); ++i) {
    branch->addCase(b.getInt32(static_cast<uint32_t>(i)), blocks[i]);
  }
  b.SetInsertPoint(outside);
  t.hooks().trap(t.env(), t.next_site());
  if (b.GetInsertBlock()->getTerminator() == nullptr) {
    b.CreateUnreachable();
  }
  return {};
}

// The names an operand mentions, at any depth, and those of an initialiser's identifiers
// ("generic(table)+8": generic, table).
void mentioned(const ptx::Operand& operand, std::set<std::string>& out)
{
  if (operand.kind == ptx::OperandKind::symbol) {
    out.insert(operand.text);
  }
  for (const ptx::Operand& element : operand.elements) {
    mentioned(element, out);
  }
}

void mentioned(const ptx::Initializer& init, std::set<std::string>& out)
{
  std::string word;
  for (char c : init.scalar + " ") {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '$' || c == '%') {
      word += c;
    } else if (!word.empty()) {
      out.insert(std::exchange(word, ""));
    }
  }
  for (const ptx::Initializer& element : init.elements) {
    mentioned(element, out);
  }
}

void mentioned(const ptx::Block& block, std::set<std::string>& out)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      mentioned(*inner, out);
    } else if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      for (const ptx::Operand& operand : instruction->operands) {
        mentioned(operand, out);
      }
    }
  }
}

// Whether `kernel` may run the .func `target`: its body, the bodies of the functions it names
// and the initialisers of the variables they name (function tables) reach it.
bool may_run(FunctionTranslator& t, const ptx::Function& kernel, const std::string& target)
{
  std::set<std::string> seen = {kernel.name};
  std::vector<std::set<std::string>> work(1);
  mentioned(*kernel.body, work.back());
  while (!work.empty()) {
    std::set<std::string> names = std::move(work.back());
    work.pop_back();
    for (const std::string& name : names) {
      if (name == target) {
        return true;
      }
      if (!seen.insert(name).second) {
        continue;
      }
      work.emplace_back();
      if (auto function = t.module().functions.find(name);
          function != t.module().functions.end() && function->second->body) {
        mentioned(*function->second->body, work.back());
      } else if (auto symbol = t.module().symbols.find(name);
                 symbol != t.module().symbols.end() && symbol->second.variable != nullptr &&
                 symbol->second.variable->init) {
        mentioned(*symbol->second.variable->init, work.back());
      }
    }
  }
  return false;
}

// Whether a kernel makes a generic address of its parameters (cvta.param): on AMDGPU the
// parameter block is a private copy, so such an address is in the private aperture.
bool takes_parameter_addresses(const ptx::Block& block)
{
  for (const ptx::Statement& statement : block.statements) {
    if (const auto* inner = std::get_if<ptx::Block>(&statement.value)) {
      if (takes_parameter_addresses(*inner)) {
        return true;
      }
    } else if (const auto* instruction = std::get_if<ptx::Instruction>(&statement.value)) {
      if (instruction->opcode == "cvta" && !has_modifier(*instruction, "to") &&
          (has_modifier(*instruction, "param") || has_modifier(*instruction, "param::entry"))) {
        return true;
      }
    }
  }
  return false;
}

// (generic address - start) < bytes, on i64.
llvm::Value* in_range(llvm::IRBuilder<>& b, llvm::Value* address, llvm::Value* start,
                      int64_t bytes)
{
  return b.CreateICmpULT(b.CreateSub(address, start), b.getInt64(static_cast<uint64_t>(bytes)));
}

// The generic address of a variable's storage in `space`.
llvm::Value* generic_of(FunctionTranslator& t, llvm::Value* storage, Space space)
{
  llvm::IRBuilder<>& b = t.builder();
  unsigned bits = t.module().module.getDataLayout().getPointerSizeInBits(
      storage->getType()->getPointerAddressSpace());
  llvm::Value* address = b.CreatePtrToInt(storage, b.getIntNTy(bits));
  return t.hooks().convert_address(t.env(), space, true, address, 64);
}

// The kernel's .param window: its parameter block. A .func cannot know which kernel's it is.
Expected<llvm::Value*> in_parameters(FunctionTranslator& t, const ptx::Instruction& instruction,
                                     llvm::Value* address)
{
  if (!t.is_kernel()) {
    return std::unexpected(t.error(instruction, "unsupported: isspacep.param in a .func (the "
                                                "parameter window of its kernel is not known)"));
  }
  const KernelSignature& signature = *t.module().kernels.at(t.function().name);
  const Symbol* first =
      signature.params.empty() ? nullptr : t.symbol(signature.params.front().name);
  if (first == nullptr || signature.param_bytes == 0) {
    return t.builder().getFalse();
  }
  return in_range(t.builder(), address, generic_of(t, first->storage, Space::param),
                  signature.param_bytes);
}

// The .const window: the module's .const variables.
Expected<llvm::Value*> in_constants(FunctionTranslator& t, const ptx::Instruction& instruction,
                                    llvm::Value* address)
{
  llvm::IRBuilder<>& b = t.builder();
  llvm::Value* inside = b.getFalse();
  auto add = [&](const Symbol& symbol) -> Expected<void> {
    if (symbol.space != Space::constant || symbol.variable == nullptr) {
      return {};
    }
    Expected<int64_t> bytes = variable_size(*symbol.variable);
    if (!bytes || *bytes == 0 || symbol.storage == nullptr) {
      return std::unexpected(t.error(instruction, "unsupported: isspacep.const with .const " +
                                                      symbol.variable->name + " of unknown size"));
    }
    inside = b.CreateOr(inside, in_range(b, address, generic_of(t, symbol.storage, Space::constant),
                                         *bytes));
    return {};
  };
  // In name order, so that the same module always gives the same IR (body_symbols is keyed by
  // address).
  std::vector<const Symbol*> constants;
  for (const auto& [name, symbol] : t.module().symbols) {
    constants.push_back(&symbol);
  }
  for (const auto& [variable, symbol] : t.module().body_symbols) {
    constants.push_back(&symbol);
  }
  std::ranges::sort(constants, [](const Symbol* x, const Symbol* y) {
    const std::string none;
    return (x->variable ? x->variable->name : none) < (y->variable ? y->variable->name : none);
  });
  for (const Symbol* symbol : constants) {
    TRY(add(*symbol));
  }
  return inside;
}

// .local: the target's window, less the kernel's parameter block where that is a private copy
// (AMDGPU). A .func there cannot tell a parameter's address from a local one when a kernel that
// may run it makes one.
Expected<llvm::Value*> in_locals(FunctionTranslator& t, const ptx::Instruction& instruction,
                                 llvm::Value* address)
{
  llvm::IRBuilder<>& b = t.builder();
  llvm::Value* local = t.hooks().in_window(t.env(), Space::local, address);
  if (t.hooks().kind() == TargetKind::host) {
    return local; // the parameter block is not on a fiber stack
  }
  if (t.is_kernel()) {
    TRY_ASSIGN(llvm::Value * parameter, in_parameters(t, instruction, address));
    return b.CreateAnd(local, b.CreateNot(parameter));
  }
  for (const auto& [name, function] : t.module().functions) {
    if (function->is_entry && function->body && takes_parameter_addresses(*function->body) &&
        may_run(t, *function, t.function().name)) {
      return std::unexpected(t.error(instruction, "unsupported: isspacep." +
                                                      instruction.modifiers.front() +
                                                      " in a .func that kernel " + name +
                                                      " may run, which takes parameter "
                                                      "addresses"));
    }
  }
  return local;
}

// isspacep.space p, a: whether the generic address a is in the window of `space`. .shared
// (::cta) and .local are the target's windows (the AMDGPU apertures; the host's block window and
// fiber stack); .shared::cluster is the CTA's own where clusters are one CTA; .param{::entry} the
// kernel's parameter block; .const the module's .const variables; .global everything that is
// none of .shared, .local and .const: the .param window lies inside it, as the ISA says, and the
// H200 answers 0 for .global on a .const variable's generic address (ctl_space_probe).
Expected<void> lower_isspacep(FunctionTranslator& t, const ptx::Instruction& instruction)
{
  static constexpr std::string_view k_known[] = {"global", "shared", "shared::cta",
                                                 "shared::cluster", "local", "const",
                                                 "param", "param::entry"};
  TRY(known_modifiers(t, instruction, k_known));
  TRY(expect_operands(t, instruction, 2));
  if (instruction.modifiers.size() != 1) {
    return std::unexpected(t.unsupported(instruction));
  }
  const std::string& space = instruction.modifiers.front();
  TRY_ASSIGN(llvm::Value * address,
             t.read(instruction.operands[1], PtxType{PtxType::Kind::unsigned_int, 64, false}));
  llvm::IRBuilder<>& b = t.builder();
  llvm::Value* inside = nullptr;
  if (space == "shared" || space == "shared::cta" || space == "shared::cluster") {
    if (space == "shared::cluster" && !one_cta_clusters(t)) {
      return std::unexpected(t.unsupported(instruction));
    }
    inside = t.hooks().in_window(t.env(), Space::shared, address);
  } else if (space == "local") {
    TRY_ASSIGN(inside, in_locals(t, instruction, address));
  } else if (space == "param" || space == "param::entry") {
    TRY_ASSIGN(inside, in_parameters(t, instruction, address));
  } else if (space == "const") {
    TRY_ASSIGN(inside, in_constants(t, instruction, address));
  } else {
    TRY_ASSIGN(llvm::Value * local, in_locals(t, instruction, address));
    TRY_ASSIGN(llvm::Value * constant, in_constants(t, instruction, address));
    llvm::Value* shared = t.hooks().in_window(t.env(), Space::shared, address);
    inside = b.CreateNot(b.CreateOr(b.CreateOr(shared, local), constant));
  }
  return t.write(instruction.operands[0], inside, PtxType{PtxType::Kind::pred, 1, false});
}

} // namespace

void add_control_lowerings(LoweringTable& table)
{
  table["bra"] = lower_bra;
  table["brx"] = lower_brx;
  table["isspacep"] = lower_isspacep;
  table["ret"] = lower_ret;
  table["exit"] = lower_exit;
  table["trap"] = lower_trap;
  table["brkpt"] = lower_brkpt;
  table["call"] = lower_call;
  table["alloca"] = lower_alloca;
  table["stacksave"] = lower_stack_pointer;
  table["stackrestore"] = lower_stack_pointer;
}

} // namespace d4r::compiler::translate
