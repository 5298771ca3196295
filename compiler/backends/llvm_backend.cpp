// The llvm backend: in-process LLVM 19. A HIP source first becomes optimised bitcode through the
// clang driver (a child process); LLVM IR and bitcode inputs are read directly and optimised at
// O3. Then, in this process, llvm_codegen.hpp: the AMDGPU target machine emits a relocatable
// object into memory and lld, linked in as a library, links it into a code object (v5, LLVM 19's
// default).
//
// lld's lldMain keeps global state and may exit on some errors, and LLVM aborts on some inputs
// ("Cannot select"): both are fine because every compile runs in its own worker process.

#include "compiler/backends/backend_factory.hpp"

#include "compiler/backends/backend_support.hpp"
#include "compiler/backends/clang_driver.hpp"
#include "compiler/backends/llvm_codegen.hpp"
#include "compiler/ptx_build.hpp"

#include <llvm/Config/llvm-config.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/IR/Verifier.h>
#include <llvm/IRReader/IRReader.h>
#include <llvm/Support/SourceMgr.h>
#include <llvm/Support/raw_ostream.h>

namespace d4r::compiler {

namespace {

constexpr std::string_view k_name = "llvm";
constexpr const char* k_triple = "amdgcn-amd-amdhsa";

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

// A game's PTX module: the recipe's passes, our translator, then the same code generation.
Expected<CompileOutput> compile_ptx(const CompileJob& job)
{
  TRY_ASSIGN(std::vector<std::byte> bytes, read_file_bytes(job.source));
  std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
  PtxBuild build{job.target,   job.passes, job.pass_parameters,
                 job.entry,    job.work_dir, float_policy_for(job.mode)};
  CompileOutput output;
  // The worker names the job in front of any error; the translator names the kernel and line.
  TRY_ASSIGN(output.code_object, build_ptx_code_object(text, build, output.log));
  return output;
}

Expected<CompileOutput> LlvmBackend::compile(const CompileJob& job)
{
  if (!supports(job.target)) {
    return make_error(ErrorCode::invalid_argument, job_label(k_name, job) + ": unknown target");
  }
  TRY(prepare_work_dir(k_name, job));
  if (job.language == SourceLanguage::ptx) {
    return compile_ptx(job); // PTX warps are 32 lanes: never wave64
  }
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
  // Anything LLVM reported while reading the module; codegen collects its own.
  output.log += diagnostics.text;
  CodegenOptions options;
  options.target = job.target;
  options.wave64 = job.wave64;
  // clang already ran its O3 pipeline on HIP bitcode; IR from elsewhere gets ours.
  options.optimise = job.language != SourceLanguage::hip;
  options.label = job_label(k_name, job);
  options.work_dir = job.work_dir;
  TRY_ASSIGN(output.code_object, codegen_code_object(*module, options, output.log));
  return output;
}

} // namespace

std::unique_ptr<Backend> make_llvm_backend(const BackendOptions& options)
{
  return std::make_unique<LlvmBackend>(options.clang);
}

} // namespace d4r::compiler
