#include "compiler/translate/module_support.hpp"

#include "compiler/translate/amdgpu_target.hpp"
#include "compiler/translate/exact_round_trip.hpp"
#include "compiler/translate/min_max_zeros.hpp"
#include "compiler/translate/nan_observation.hpp"
#include "compiler/translate/uniform_lane_moves.hpp"
#include "compiler/translate/wmma_accumulator.hpp"

#if __has_include("compiler/translate/support_library.hpp")
#include "compiler/translate/support_library.hpp"
#define D4R_HAVE_SUPPORT_LIBRARY 1
#endif

#include <llvm/Bitcode/BitcodeReader.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/Instructions.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/TargetParser.h>

#include <algorithm>
#include <set>
#include <vector>


namespace d4r::compiler::translate {

namespace {

Expected<std::unique_ptr<llvm::TargetMachine>> amdgpu_machine(const std::string& processor)
{
  if (llvm::AMDGPU::parseArchAMDGCN(processor) == llvm::AMDGPU::GK_NONE) {
    return make_error(ErrorCode::invalid_argument,
                      "translate: unknown AMDGPU processor " + processor);
  }
  return make_amdgpu_target_machine(processor, false, "translate");
}

// Links the support library's bitcode, only the functions the module calls.
Expected<void> link_support(llvm::Module& module, TargetKind kind)
{
#ifdef D4R_HAVE_SUPPORT_LIBRARY
  std::span<const std::byte> bitcode = support_bitcode(kind);
  if (bitcode.empty()) {
    return {};
  }
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char*>(bitcode.data()), bitcode.size()),
      "d4r_ptx_support");
  llvm::Expected<std::unique_ptr<llvm::Module>> support =
      llvm::parseBitcodeFile(buffer, module.getContext());
  if (!support) {
    return make_error(ErrorCode::internal, "translate: the support library does not load: " +
                                               llvm::toString(support.takeError()));
  }
  (*support)->setTargetTriple(module.getTargetTriple());
  (*support)->setDataLayout(module.getDataLayout());
  // LLVM inlines a function only into callers of its own denormal mode, or from one whose mode is
  // "dynamic". The library's functions give PTX's results in either f32 mode (each flushes what
  // its .ftz argument says, and computes in f64 or on bits), so where a kernel runs flushed they
  // say so and are inlined into it.
  const bool any_flushing = std::ranges::any_of(module, [](const llvm::Function& function) {
    return function.getDenormalModeF32Raw().Output == llvm::DenormalMode::PreserveSign;
  });
  if (any_flushing) {
    for (llvm::Function& function : **support) {
      if (!function.isDeclaration()) {
        function.addFnAttr("denormal-fp-math-f32", "dynamic,dynamic");
      }
    }
  }
  if (llvm::Linker::linkModules(module, std::move(*support), llvm::Linker::LinkOnlyNeeded)) {
    return make_error(ErrorCode::internal, "translate: linking the support library failed");
  }
#else
  (void)module;
  (void)kind;
#endif
  return {};
}

void internalise(llvm::Module& module, const Translation& translation)
{
  auto is_kernel = [&](llvm::StringRef name) {
    for (const KernelSignature& kernel : translation.kernels) {
      if (kernel.name == name) {
        return true;
      }
    }
    return false;
  };
  for (llvm::Function& function : module) {
    if (!function.isDeclaration() && !is_kernel(function.getName())) {
      function.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  for (llvm::GlobalVariable& global : module.globals()) {
    // Externally initialised: a module-scope .global/.const the host may write by name
    // (module_translator.cpp); it stays a symbol of the object.
    if (!global.isDeclaration() && global.hasName() && !global.getName().starts_with("llvm.") &&
        !global.isExternallyInitialized()) {
      global.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
}

void optimise(llvm::Module& module, llvm::TargetMachine* machine)
{
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  // After mem2reg, inlining and LICM, before the loop unroller copies the loops' bodies.
  builder.registerVectorizerStartEPCallback(
      [](llvm::FunctionPassManager& passes, llvm::OptimizationLevel) {
        passes.addPass(WmmaAccumulatorPass());
      });
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O2);
  pipeline.run(module, modules);
  (void)expand_wmma_accumulator_moves(module); // where the pipeline left a mark
  for (llvm::Function& function : module) {
    if (!function.isDeclaration()) {
      functions.invalidate(function, llvm::PreservedAnalyses::none()); // the marks' expansion
      (void)forward_uniform_lane_moves(function,
                                       functions.getResult<llvm::UniformityInfoAnalysis>(function));
      (void)fold_exact_half_round_trips(function);
      (void)order_zeros_in_min_max(function);
      (void)drop_unobserved_nan_canonicalisations(function);
    }
  }
}

// Whether `from` calls (directly, or through functions of the module) one of `targets`; an
// indirect call may reach any of them.
bool reaches(llvm::Function& from, const std::set<llvm::Function*>& targets)
{
  std::set<llvm::Function*> seen = {&from};
  std::vector<llvm::Function*> work = {&from};
  while (!work.empty()) {
    llvm::Function* function = work.back();
    work.pop_back();
    if (targets.contains(function)) {
      return true;
    }
    for (llvm::BasicBlock& block : *function) {
      for (llvm::Instruction& instruction : block) {
        auto* call = llvm::dyn_cast<llvm::CallBase>(&instruction);
        if (call == nullptr || call->isInlineAsm()) {
          continue;
        }
        llvm::Function* callee = call->getCalledFunction();
        if (callee == nullptr) {
          return true;
        }
        if (!callee->isDeclaration() && seen.insert(callee).second) {
          work.push_back(callee);
        }
      }
    }
  }
  return false;
}

// LDS holds whatever the workgroup before left there, so every kernel that reaches the counted
// barriers' words (k_named_barriers, hooks_amdgpu.cpp) zeroes them before anything else: lanes
// 0-15 of each wave store one word each (the same zeros in every wave), then the workgroup
// barrier, so that no wave arrives at a barrier before every word is 0.
void zero_named_barriers(llvm::Module& module, TargetHooks& hooks)
{
  llvm::GlobalVariable* words = module.getNamedGlobal(k_named_barriers);
  if (words == nullptr) {
    return;
  }
  std::set<llvm::Function*> users;
  std::vector<llvm::User*> work(words->user_begin(), words->user_end());
  while (!work.empty()) {
    llvm::User* user = work.back();
    work.pop_back();
    if (auto* instruction = llvm::dyn_cast<llvm::Instruction>(user)) {
      users.insert(instruction->getFunction());
    } else {
      work.insert(work.end(), user->user_begin(), user->user_end());
    }
  }
  for (llvm::Function& kernel : module) {
    if (kernel.isDeclaration() || kernel.getCallingConv() != llvm::CallingConv::AMDGPU_KERNEL ||
        !reaches(kernel, users)) {
      continue;
    }
    llvm::BasicBlock* body = kernel.getEntryBlock().getTerminator()->getSuccessor(0);
    llvm::BasicBlock* rest = body->splitBasicBlock(body->getFirstInsertionPt(), "zeroed");
    body->getTerminator()->eraseFromParent();
    llvm::BasicBlock* store = llvm::BasicBlock::Create(module.getContext(), "zero", &kernel, rest);
    llvm::IRBuilder<> b(body);
    llvm::Value* lane = hooks.special_register(HookEnv{b, nullptr}, "%laneid");
    b.CreateCondBr(b.CreateICmpULT(lane, b.getInt32(16)), store, rest);
    b.SetInsertPoint(store);
    llvm::Value* word = b.CreateInBoundsGEP(words->getValueType(), words, {b.getInt32(0), lane});
    llvm::StoreInst* zero = b.CreateAlignedStore(b.getInt64(0), word, llvm::Align(8));
    zero->setAtomic(llvm::AtomicOrdering::Monotonic,
                    module.getContext().getOrInsertSyncScopeID("workgroup"));
    b.CreateBr(rest);
    b.SetInsertPoint(rest, rest->getFirstInsertionPt());
    hooks.barrier(HookEnv{b, nullptr}, 0, b.getInt32(0), b.getInt32(0));
  }
}

} // namespace

TargetSetup::TargetSetup() = default;
TargetSetup::~TargetSetup() = default;

Expected<std::unique_ptr<TargetSetup>> make_target_setup(llvm::Module& module,
                                                         const TranslateOptions& options)
{
  auto setup = std::make_unique<TargetSetup>();
  setup->options = options;
  if (options.kind == TargetKind::host) {
    module.setTargetTriple(llvm::sys::getProcessTriple());
    setup->hooks = make_host_hooks();
    return setup;
  }
  TRY_ASSIGN(setup->machine, amdgpu_machine(options.processor));
  module.setTargetTriple(k_amdgpu_triple);
  module.setDataLayout(setup->machine->createDataLayout());
  setup->hooks = make_amdgpu_hooks(options);
  return setup;
}

Expected<void> finish_module(Translation& translation, TargetSetup& setup)
{
  llvm::Module& module = *translation.module;
  if (setup.options.kind == TargetKind::amdgpu) {
    zero_named_barriers(module, *setup.hooks);
    for (llvm::Function& function : module) {
      if (!function.isDeclaration()) {
        function.addFnAttr("target-cpu", setup.options.processor);
        function.addFnAttr("target-features", "+wavefrontsize32");
      }
    }
  }
  std::string broken;
  llvm::raw_string_ostream os(broken);
  if (llvm::verifyModule(module, &os)) {
    constexpr size_t k_max = 4000;
    if (broken.size() > k_max) {
      broken = broken.substr(0, k_max) + "...";
    }
    return make_error(ErrorCode::internal, "translate: the lowering made invalid IR:\n" + broken);
  }
  if (!setup.options.optimise) {
    (void)expand_wmma_accumulator_moves(module);
    return {};
  }
  TRY(link_support(module, setup.options.kind));
  internalise(module, translation);
  optimise(module, setup.machine.get());
  return {};
}

} // namespace d4r::compiler::translate
