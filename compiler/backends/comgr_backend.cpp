// The comgr backend: the user's ROCm comgr, loaded at run time, compiles a HIP source for an ISA
// it reports: COMPILE_SOURCE_TO_BC (language HIP, no device libraries: our kernels use none),
// CODEGEN_BC_TO_RELOCATABLE, LINK_RELOCATABLE_TO_EXECUTABLE. Debian's comgr 2.4 (ROCm 5.2.3) knows
// no gfx11 or gfx12 ISA, so there choose_backend falls back to llvm for every d4r target.

#include "compiler/backends/backend_factory.hpp"

#include "compiler/backends/backend_support.hpp"
#include "compiler/backends/comgr_library.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

namespace d4r::compiler {

namespace {

constexpr std::string_view k_name = "comgr";
constexpr std::string_view k_isa_prefix = "amdgcn-amd-amdhsa--";

// One comgr data set, destroyed with its scope.
class DataSet {
public:
  explicit DataSet(const ComgrLibrary& lib) : m_lib(lib)
  {
    m_ok = lib.create_data_set(&m_set) == 0;
  }
  ~DataSet()
  {
    if (m_ok) {
      m_lib.destroy_data_set(m_set);
    }
  }
  DataSet(const DataSet&) = delete;
  DataSet& operator=(const DataSet&) = delete;
  bool ok() const { return m_ok; }
  amd_comgr_data_set_t get() const { return m_set; }

private:
  const ComgrLibrary& m_lib;
  amd_comgr_data_set_t m_set{};
  bool m_ok = false;
};

// One comgr action info, destroyed with its scope.
class ActionInfo {
public:
  explicit ActionInfo(const ComgrLibrary& lib) : m_lib(lib)
  {
    m_ok = lib.create_action_info(&m_info) == 0;
  }
  ~ActionInfo()
  {
    if (m_ok) {
      m_lib.destroy_action_info(m_info);
    }
  }
  ActionInfo(const ActionInfo&) = delete;
  ActionInfo& operator=(const ActionInfo&) = delete;
  bool ok() const { return m_ok; }
  amd_comgr_action_info_t get() const { return m_info; }

private:
  const ComgrLibrary& m_lib;
  amd_comgr_action_info_t m_info{};
  bool m_ok = false;
};

// The bytes of the `index`th data of `kind` in `set` (released after the copy).
std::optional<std::string> data_bytes(const ComgrLibrary& lib, amd_comgr_data_set_t set,
                                      amd_comgr_data_kind_t kind, size_t index)
{
  amd_comgr_data_t data{};
  if (lib.action_data_get_data(set, kind, index, &data) != AMD_COMGR_STATUS_SUCCESS) {
    return std::nullopt;
  }
  size_t size = 0;
  std::optional<std::string> bytes;
  if (lib.get_data(data, &size, nullptr) == AMD_COMGR_STATUS_SUCCESS) {
    std::string buffer(size, '\0');
    if (lib.get_data(data, &size, buffer.data()) == AMD_COMGR_STATUS_SUCCESS) {
      buffer.resize(size);
      bytes = std::move(buffer);
    }
  }
  lib.release_data(data);
  return bytes;
}

// Every log an action left in its result set.
std::string logs_of(const ComgrLibrary& lib, amd_comgr_data_set_t set)
{
  size_t count = 0;
  if (lib.action_data_count(set, AMD_COMGR_DATA_KIND_LOG, &count) != AMD_COMGR_STATUS_SUCCESS) {
    return {};
  }
  std::string text;
  for (size_t i = 0; i < count; ++i) {
    text += data_bytes(lib, set, AMD_COMGR_DATA_KIND_LOG, i).value_or("");
  }
  return text;
}

std::string status_text(const ComgrLibrary& lib, amd_comgr_status_t status)
{
  const char* text = nullptr;
  if (lib.status_string(status, &text) == AMD_COMGR_STATUS_SUCCESS && text != nullptr) {
    return text;
  }
  return "status " + std::to_string(static_cast<int>(status));
}

// The options of the compile action (front end) and of the codegen action.
struct ComgrOptions {
  std::vector<std::string> compile;
  std::vector<std::string> codegen;
};

ComgrOptions comgr_options(const CompileJob& job)
{
  // The source is data in memory: its own folder is where its quoted includes live.
  ComgrOptions options;
  options.compile = {"-I" + job.source.parent_path().string(), "-nogpulib", "-nogpuinc"};
  if (!has_optimisation_flag(job.flags)) {
    options.compile.emplace_back("-O3");
    options.codegen.emplace_back("-O3");
  }
  options.compile.insert(options.compile.end(), job.flags.begin(), job.flags.end());
  for (const std::string& flag : job.flags) {
    if (flag.compare(0, 2, "-O") == 0) {
      options.codegen.push_back(flag);
    }
  }
  if (job.wave64) {
    options.compile.emplace_back("-mwavefrontsize64");
    options.codegen.emplace_back("-mwavefrontsize64");
  }
  return options;
}

class ComgrBackend final : public Backend {
public:
  explicit ComgrBackend(std::unique_ptr<ComgrLibrary> lib) : m_lib(std::move(lib)) {}

  std::string_view name() const override { return k_name; }

  std::string fingerprint() const override
  {
    return "comgr backend; comgr " + m_lib->version + " (" + m_lib->soname + ")";
  }

  bool supports(std::string_view target) const override
  {
    std::string isa = std::string(k_isa_prefix) + std::string(target);
    return std::find(m_lib->isas.begin(), m_lib->isas.end(), isa) != m_lib->isas.end();
  }

  Expected<CompileOutput> compile(const CompileJob& job) override;

private:
  // Runs one action from `input` into `output` with `options`, appending its log.
  Expected<void> run_action(const CompileJob& job, amd_comgr_action_kind_t action, const char* what,
                            const ActionInfo& info, const std::vector<std::string>& options,
                            const DataSet& input, const DataSet& output, std::string& log) const;
  Expected<void> add_source(const CompileJob& job, const DataSet& set) const;

  std::unique_ptr<ComgrLibrary> m_lib;
};

Expected<void> ComgrBackend::run_action(const CompileJob& job, amd_comgr_action_kind_t action,
                                        const char* what, const ActionInfo& info,
                                        const std::vector<std::string>& options,
                                        const DataSet& input, const DataSet& output,
                                        std::string& log) const
{
  std::vector<const char*> option_list;
  for (const std::string& option : options) {
    option_list.push_back(option.c_str());
  }
  m_lib->action_info_set_option_list(info.get(), option_list.data(), option_list.size());
  amd_comgr_status_t status = m_lib->do_action(action, info.get(), input.get(), output.get());
  std::string action_log = logs_of(*m_lib, output.get());
  log += action_log;
  if (status != AMD_COMGR_STATUS_SUCCESS) {
    return make_error(ErrorCode::rejected, job_label(k_name, job) + ": " + what + " failed (" +
                                               status_text(*m_lib, status) + "):\n" +
                                               last_lines(action_log, k_error_lines));
  }
  return {};
}

Expected<void> ComgrBackend::add_source(const CompileJob& job, const DataSet& set) const
{
  TRY_ASSIGN(std::vector<std::byte> text, read_file_bytes(job.source));
  amd_comgr_data_t source{};
  if (m_lib->create_data(AMD_COMGR_DATA_KIND_SOURCE, &source) != AMD_COMGR_STATUS_SUCCESS) {
    return make_error(ErrorCode::internal, job_label(k_name, job) + ": cannot create data");
  }
  std::string name = job.source.filename().string();
  bool added = m_lib->set_data(source, text.size(), reinterpret_cast<const char*>(text.data())) ==
                   AMD_COMGR_STATUS_SUCCESS &&
               m_lib->set_data_name(source, name.c_str()) == AMD_COMGR_STATUS_SUCCESS &&
               m_lib->data_set_add(set.get(), source) == AMD_COMGR_STATUS_SUCCESS;
  // The set holds its own reference.
  m_lib->release_data(source);
  if (!added) {
    return make_error(ErrorCode::internal, job_label(k_name, job) + ": cannot add the source");
  }
  return {};
}

Expected<CompileOutput> ComgrBackend::compile(const CompileJob& job)
{
  if (job.language != SourceLanguage::hip) {
    return make_error(ErrorCode::invalid_argument,
                      job_label(k_name, job) + ": the comgr backend compiles HIP sources only");
  }
  if (!supports(job.target)) {
    return make_error(ErrorCode::invalid_argument,
                      job_label(k_name, job) + ": comgr " + m_lib->version + " lacks this ISA");
  }
  DataSet sources(*m_lib);
  DataSet bitcode(*m_lib);
  DataSet relocatable(*m_lib);
  DataSet executable(*m_lib);
  ActionInfo info(*m_lib);
  if (!sources.ok() || !bitcode.ok() || !relocatable.ok() || !executable.ok() || !info.ok()) {
    return make_error(ErrorCode::internal, job_label(k_name, job) + ": comgr out of resources");
  }
  TRY(add_source(job, sources));
  std::string isa = std::string(k_isa_prefix) + job.target;
  m_lib->action_info_set_isa_name(info.get(), isa.c_str());
  m_lib->action_info_set_language(info.get(), AMD_COMGR_LANGUAGE_HIP);
  m_lib->action_info_set_logging(info.get(), true);

  ComgrOptions options = comgr_options(job);
  CompileOutput output;
  TRY(run_action(job, AMD_COMGR_ACTION_COMPILE_SOURCE_TO_BC, "compile", info, options.compile,
                 sources, bitcode, output.log));
  TRY(run_action(job, AMD_COMGR_ACTION_CODEGEN_BC_TO_RELOCATABLE, "codegen", info, options.codegen,
                 bitcode, relocatable, output.log));
  TRY(run_action(job, AMD_COMGR_ACTION_LINK_RELOCATABLE_TO_EXECUTABLE, "link", info, {},
                 relocatable, executable, output.log));
  std::optional<std::string> object =
      data_bytes(*m_lib, executable.get(), AMD_COMGR_DATA_KIND_EXECUTABLE, 0);
  if (!object) {
    return make_error(ErrorCode::internal,
                      job_label(k_name, job) + ": comgr produced no executable");
  }
  output.code_object.resize(object->size());
  std::memcpy(output.code_object.data(), object->data(), object->size());
  return output;
}

} // namespace

Expected<std::unique_ptr<Backend>> make_comgr_backend(const BackendOptions& options)
{
  TRY_ASSIGN(std::unique_ptr<ComgrLibrary> lib, load_comgr_library(options.comgr_libraries));
  return std::unique_ptr<Backend>(std::make_unique<ComgrBackend>(std::move(lib)));
}

} // namespace d4r::compiler
