// The llvm backend: in-process LLVM 19. A HIP source first becomes optimised bitcode through the
// clang driver (a child process); LLVM IR and bitcode inputs are read directly and optimised at
// O3. Then, in this process: the AMDGPU target machine emits a relocatable object into memory and
// lld, linked in as a library, links it into a code object (v5, LLVM 19's default).
//
// lld's lldMain keeps global state and may exit on some errors, and LLVM aborts on some inputs
// ("Cannot select"): both are fine because every compile runs in its own worker process.

#include "compiler/backends/backend_factory.hpp"

#include "compiler/backends/backend_support.hpp"
#include "compiler/backends/clang_driver.hpp"

#include <lld/Common/Driver.h>
#include <llvm/ADT/SmallVector.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Target/TargetOptions.h>

#include <mutex>

LLD_HAS_DRIVER(elf)

namespace d4r::compiler {

namespace {

constexpr std::string_view k_name = "llvm";
constexpr const char* k_triple = "amdgcn-amd-amdhsa";

// Only the AMDGPU target: this process never generates code for anything else.
void initialise_amdgpu_target()
{
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeAMDGPUTargetInfo();
    LLVMInitializeAMDGPUTarget();
    LLVMInitializeAMDGPUTargetMC();
    LLVMInitializeAMDGPUAsmPrinter();
  });
}

// LLVM's own diagnostics (errors in codegen, warnings), collected instead of printed: the
// default handler exits the process on an error.
struct Diagnostics {
  std::string text;
  bool error = false;
};

void collect_diagnostic(const llvm::DiagnosticInfo* diagnostic, void* context)
{
  const llvm::DiagnosticInfo& info = *diagnostic;
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

Expected<std::unique_ptr<llvm::Module>>
load_module(const CompileJob& job, const std::filesystem::path& input, llvm::LLVMContext& context)
{
  llvm::SMDiagnostic diagnostic;
  std::unique_ptr<llvm::Module> module = llvm::parseIRFile(input.string(), diagnostic, context);
  if (module == nullptr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    diagnostic.print(input.filename().string().c_str(), os, /*ShowColors=*/false);
    return make_error(ErrorCode::rejected, job_label(k_name, job) + ": cannot read the module:\n" +
                                               last_lines(text, k_error_lines));
  }
  std::string triple = module->getTargetTriple();
  if (triple.empty()) {
    module->setTargetTriple(k_triple);
  } else if (triple.rfind("amdgcn-", 0) != 0) {
    return make_error(ErrorCode::rejected,
                      job_label(k_name, job) + ": the module is for " + triple + ", not amdgcn");
  }
  std::string broken;
  llvm::raw_string_ostream os(broken);
  if (llvm::verifyModule(*module, &os)) {
    return make_error(ErrorCode::rejected, job_label(k_name, job) + ": invalid module:\n" +
                                               last_lines(broken, k_error_lines));
  }
  return module;
}

Expected<std::unique_ptr<llvm::TargetMachine>> make_target_machine(const CompileJob& job)
{
  initialise_amdgpu_target();
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(k_triple, error);
  if (target == nullptr) {
    return make_error(ErrorCode::internal, job_label(k_name, job) + ": " + error);
  }
  const char* features = job.wave64 ? "+wavefrontsize64" : "+wavefrontsize32";
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      k_triple, job.target, features, llvm::TargetOptions(), llvm::Reloc::PIC_, std::nullopt,
      llvm::CodeGenOptLevel::Aggressive));
  if (machine == nullptr) {
    return make_error(ErrorCode::internal,
                      job_label(k_name, job) + ": cannot create the AMDGPU target machine");
  }
  return machine;
}

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

Expected<std::vector<std::byte>> emit_object(const CompileJob& job, llvm::Module& module,
                                             llvm::TargetMachine& machine,
                                             const Diagnostics& diagnostics)
{
  llvm::SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    return make_error(ErrorCode::internal,
                      job_label(k_name, job) + ": the target cannot emit an object file");
  }
  passes.run(module);
  if (diagnostics.error) {
    return make_error(ErrorCode::rejected, job_label(k_name, job) + ": code generation failed:\n" +
                                               last_lines(diagnostics.text, k_error_lines));
  }
  std::vector<std::byte> bytes(object.size());
  std::memcpy(bytes.data(), object.data(), object.size());
  return bytes;
}

// The relocatable object -> a code object, as the clang driver links one (-shared, no undefined
// symbols).
Expected<std::vector<std::byte>>
link_code_object(const CompileJob& job, std::span<const std::byte> object, std::string& log)
{
  std::filesystem::path input = job.work_dir / "x.o";
  std::filesystem::path output = job.work_dir / "out.hsaco";
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
    return make_error(ErrorCode::rejected, job_label(k_name, job) + ": lld failed:\n" +
                                               last_lines(messages, k_error_lines));
  }
  return read_file_bytes(output);
}

class LlvmBackend final : public Backend {
public:
  explicit LlvmBackend(std::filesystem::path clang) : m_clang(std::move(clang)) {}

  std::string_view name() const override { return k_name; }

  std::string fingerprint() const override
  {
    return "llvm backend; llvm " LLVM_VERSION_STRING "; " + clang_version_line(m_clang);
  }

  bool supports(std::string_view target) const override { return is_llvm_amdgcn_target(target); }

  Expected<CompileOutput> compile(const CompileJob& job) override;

private:
  // HIP -> optimised bitcode in the work folder, by the clang driver.
  Expected<std::filesystem::path> hip_to_bitcode(const CompileJob& job, std::string& log) const;

  std::filesystem::path m_clang;
};

Expected<std::filesystem::path> LlvmBackend::hip_to_bitcode(const CompileJob& job,
                                                            std::string& log) const
{
  std::filesystem::path bitcode = job.work_dir / "x.bc";
  std::vector<std::string> argv = hip_device_command(m_clang, job);
  argv.insert(argv.end(), {"-emit-llvm", "-c", "-o", bitcode.string(), job.source.string()});
  TRY_ASSIGN(std::string output, run_clang(k_name, job, argv));
  log += output;
  return bitcode;
}

Expected<CompileOutput> LlvmBackend::compile(const CompileJob& job)
{
  if (!supports(job.target)) {
    return make_error(ErrorCode::invalid_argument, job_label(k_name, job) + ": unknown target");
  }
  TRY(prepare_work_dir(k_name, job));
  CompileOutput output;
  std::filesystem::path input = job.source;
  if (job.language == SourceLanguage::hip) {
    TRY_ASSIGN(input, hip_to_bitcode(job, output.log));
  }
  // One context per compile: nothing is shared between jobs.
  llvm::LLVMContext context;
  Diagnostics diagnostics;
  context.setDiagnosticHandlerCallBack(collect_diagnostic, &diagnostics);
  TRY_ASSIGN(std::unique_ptr<llvm::Module> module, load_module(job, input, context));
  TRY_ASSIGN(std::unique_ptr<llvm::TargetMachine> machine, make_target_machine(job));
  module->setDataLayout(machine->createDataLayout());
  // clang already ran its O3 pipeline on HIP bitcode; IR from elsewhere gets ours.
  if (job.language != SourceLanguage::hip) {
    optimise(*module, *machine);
  }
  TRY_ASSIGN(std::vector<std::byte> object, emit_object(job, *module, *machine, diagnostics));
  TRY_ASSIGN(output.code_object, link_code_object(job, object, output.log));
  output.log += diagnostics.text;
  return output;
}

} // namespace

std::unique_ptr<Backend> make_llvm_backend(const BackendOptions& options)
{
  return std::make_unique<LlvmBackend>(options.clang);
}

} // namespace d4r::compiler
