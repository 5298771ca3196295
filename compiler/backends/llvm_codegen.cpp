#include "compiler/backends/llvm_codegen.hpp"

#include "compiler/backends/backend_support.hpp"
#include "compiler/translate/amdgpu_target.hpp"

#include <lld/Common/Driver.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <cstring>
#include <system_error>

LLD_HAS_DRIVER(elf)

namespace d4r::compiler {

namespace {

// LLVM's own diagnostics (errors in codegen, warnings), collected instead of printed: the
// default handler exits the process on an error.
struct Diagnostics {
  std::string text;
  bool error = false;
};

void collect_diagnostic(const llvm::DiagnosticInfo* diagnostic, void* context)
{
  const llvm::DiagnosticInfo& info = *diagnostic;
  if (info.getSeverity() == llvm::DS_Remark) {
    return; // optimisation remarks ("N instructions in function") are not messages for people
  }
  Diagnostics& diagnostics = *static_cast<Diagnostics*>(context);
  llvm::raw_string_ostream os(diagnostics.text);
  os << llvm::LLVMContext::getDiagnosticMessagePrefix(info.getSeverity()) << ": ";
  llvm::DiagnosticPrinterRawOStream printer(os);
  info.print(printer);
  os << '\n';
  if (info.getSeverity() == llvm::DS_Error) {
    diagnostics.error = true;
  }
}

// Installs the collecting handler for one compile and restores the previous one.
class DiagnosticScope {
public:
  DiagnosticScope(llvm::LLVMContext& context, Diagnostics& diagnostics)
      : m_context(context), m_previous(context.getDiagnosticHandlerCallBack()),
        m_previous_context(context.getDiagnosticContext())
  {
    context.setDiagnosticHandlerCallBack(collect_diagnostic, &diagnostics);
  }
  ~DiagnosticScope() { m_context.setDiagnosticHandlerCallBack(m_previous, m_previous_context); }
  DiagnosticScope(const DiagnosticScope&) = delete;
  DiagnosticScope& operator=(const DiagnosticScope&) = delete;

private:
  llvm::LLVMContext& m_context;
  llvm::DiagnosticHandler::DiagnosticHandlerTy m_previous;
  void* m_previous_context;
};

void optimise(llvm::Module& module, llvm::TargetMachine& machine)
{
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(&machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager pipeline =
      builder.buildPerModuleDefaultPipeline(llvm::OptimizationLevel::O3);
  pipeline.run(module, modules);
}

Expected<std::vector<std::byte>> emit_object(const CodegenOptions& options, llvm::Module& module,
                                             llvm::TargetMachine& machine,
                                             const Diagnostics& diagnostics)
{
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    return make_error(ErrorCode::internal,
                      options.label + ": the target cannot emit an object file");
  }
  passes.run(module);
  if (diagnostics.error) {
    return make_error(ErrorCode::rejected, options.label + ": code generation failed:\n" +
                                               last_lines(diagnostics.text, k_error_lines));
  }
  std::vector<std::byte> bytes(object.size());
  std::memcpy(bytes.data(), object.data(), object.size());
  return bytes;
}

// The relocatable object -> a code object, as the clang driver links one (-shared, no undefined
// symbols).
Expected<std::vector<std::byte>> link_code_object(const CodegenOptions& options,
                                                  const std::filesystem::path& work_dir,
                                                  std::span<const std::byte> object,
                                                  std::string& log)
{
  std::filesystem::path input = work_dir / "x.o";
  std::filesystem::path output = work_dir / "out.hsaco";
  TRY(write_file_bytes(input, object));
  std::string input_arg = input.string();
  std::string output_arg = output.string();
  std::vector<const char*> args = {"ld.lld", "-shared",          "--no-undefined",
                                   "-o",     output_arg.c_str(), input_arg.c_str()};
  std::string messages;
  llvm::raw_string_ostream os(messages);
  lld::Result result = lld::lldMain(args, os, os, {{lld::Gnu, &lld::elf::link}});
  os.flush();
  log += messages;
  if (result.retCode != 0) {
    return make_error(ErrorCode::rejected, options.label + ": lld failed:\n" +
                                               last_lines(messages, k_error_lines));
  }
  return read_file_bytes(output);
}

// A temporary work folder, removed with everything in it when the scope ends.
class TemporaryDir {
public:
  ~TemporaryDir()
  {
    if (!m_path.empty()) {
      std::error_code ignored;
      std::filesystem::remove_all(m_path, ignored);
    }
  }
  Expected<std::filesystem::path> create(const std::string& label)
  {
    llvm::SmallString<128> path;
    if (std::error_code error = llvm::sys::fs::createUniqueDirectory("d4r-codegen", path)) {
      return make_error(ErrorCode::io,
                        label + ": cannot create a temporary folder: " + error.message());
    }
    m_path = std::string(path.str());
    return m_path;
  }

private:
  std::filesystem::path m_path;
};

} // namespace

Expected<std::vector<std::byte>>
codegen_code_object(llvm::Module& module, const CodegenOptions& options, std::string& log)
{
  Diagnostics diagnostics;
  DiagnosticScope scope(module.getContext(), diagnostics);
  std::string triple = module.getTargetTriple();
  if (triple.empty()) {
    module.setTargetTriple(translate::k_amdgpu_triple);
  } else if (triple.rfind("amdgcn-", 0) != 0) {
    return make_error(ErrorCode::rejected,
                      options.label + ": the module is for " + triple + ", not amdgcn");
  }
  TRY_ASSIGN(std::unique_ptr<llvm::TargetMachine> machine, translate::make_amdgpu_target_machine(options.target, options.wave64, options.label));
  module.setDataLayout(machine->createDataLayout());
  if (options.optimise) {
    optimise(module, *machine);
  }
  TRY_ASSIGN(std::vector<std::byte> object, emit_object(options, module, *machine, diagnostics));
  TemporaryDir temporary;
  std::filesystem::path work_dir = options.work_dir;
  if (work_dir.empty()) {
    TRY_ASSIGN(work_dir, temporary.create(options.label));
  }
  TRY_ASSIGN(std::vector<std::byte> code_object,
             link_code_object(options, work_dir, object, log));
  log += diagnostics.text;
  return code_object;
}

Expected<std::vector<std::byte>> codegen_code_object(llvm::Module& module, std::string_view target,
                                                     bool wave64, std::string& log)
{
  CodegenOptions options;
  options.target = std::string(target);
  options.wave64 = wave64;
  return codegen_code_object(module, options, log);
}

} // namespace d4r::compiler
