// The clang backend: the clang driver alone turns a HIP source into a code object, linking it
// with its own ld.lld. Used with ROCm's clang where the user has it, else clang-19.

#include "compiler/backends/backend_factory.hpp"

#include "compiler/backends/backend_support.hpp"
#include "compiler/backends/clang_driver.hpp"

namespace d4r::compiler {

namespace {

constexpr std::string_view k_name = "clang";

class ClangBackend final : public Backend {
public:
  explicit ClangBackend(std::filesystem::path clang) : m_clang(std::move(clang)) {}

  std::string_view name() const override { return k_name; }

  std::string fingerprint() const override
  {
    return "clang backend; " + clang_version_line(m_clang);
  }

  bool supports(std::string_view target) const override { return is_llvm_amdgcn_target(target); }

  Expected<CompileOutput> compile(const CompileJob& job) override
  {
    if (job.language != SourceLanguage::hip) {
      return make_error(ErrorCode::invalid_argument,
                        job_label(k_name, job) + ": the clang backend compiles HIP sources only");
    }
    TRY(prepare_work_dir(k_name, job));
    std::filesystem::path output = job.work_dir / "out.hsaco";
    std::vector<std::string> argv = hip_device_command(m_clang, job);
    argv.insert(argv.end(), {"--no-gpu-bundle-output", "-o", output.string(), job.source.string()});
    TRY_ASSIGN(std::string log, run_clang(k_name, job, argv));
    TRY_ASSIGN(std::vector<std::byte> code_object, read_file_bytes(output));
    return CompileOutput{std::move(code_object), std::move(log)};
  }

private:
  std::filesystem::path m_clang;
};

} // namespace

std::unique_ptr<Backend> make_clang_backend(const BackendOptions& options)
{
  return std::make_unique<ClangBackend>(find_clang(options));
}

} // namespace d4r::compiler
