#include "cli/ptx_translate.hpp"

#include "cli/code_object_file.hpp"
#include "cli/ptx_rewrite.hpp"
#include "compiler/cpu/executor.hpp"
#include "compiler/cpu/expected_output.hpp"
#include "compiler/cpu/launch_case.hpp"
#include "compiler/ptx_build.hpp"
#include "util/digest.hpp"

#include <filesystem>
#include <fstream>
#include <optional>
#include <utility>
#include <vector>

namespace d4r::cli {

namespace {

namespace fs = std::filesystem;
namespace cpu = d4r::compiler::cpu;

Expected<compiler::PtxBuild> build_of(const PtxTranslateCommand& cmd)
{
  compiler::PtxBuild build;
  build.target = cmd.target == "host" ? "" : cmd.target;
  build.entry = cmd.kernel;
  build.float_policy = compiler::float_policy_for(cmd.mode);
  if (!cmd.recipe_path.empty()) {
    TRY_ASSIGN(compiler::Recipe recipe, load_pass_recipe(cmd.recipe_path));
    build.passes = recipe.passes;
    build.pass_parameters = recipe.pass_parameters;
  }
  return build;
}

// The case file `inputs` names: itself, or the one *.case file of a folder.
Expected<fs::path> case_file_of(const std::string& inputs)
{
  std::error_code ec;
  if (!fs::is_directory(inputs, ec)) {
    return fs::path(inputs);
  }
  std::optional<fs::path> found;
  for (const fs::directory_entry& entry : fs::directory_iterator(inputs, ec)) {
    if (entry.path().extension() != ".case") {
      continue;
    }
    if (found) {
      return make_error(ErrorCode::invalid_argument, inputs + ": holds several .case files");
    }
    found = entry.path();
  }
  if (!found) {
    return make_error(ErrorCode::not_found, inputs + ": no .case file");
  }
  return *found;
}

// The expected bytes of output N: beside the case or in ../expected/ (cpu/expected_output.hpp).
std::optional<std::vector<std::byte>> expected_output(const fs::path& case_file, int64_t index)
{
  for (const fs::path& directory : {case_file.parent_path(), case_file.parent_path().parent_path() / "expected"}) {
    Expected<std::vector<std::byte>> bytes = cpu::read_expected_output(directory, case_file.stem().string(), index);
    if (bytes) {
      return std::move(*bytes);
    }
  }
  return std::nullopt;
}

// A case that traps on the GPU (`expect = trap`) passes when the executor's launch traps too; its
// outputs are undefined and not compared.
RunReport trap_report(const std::string& kernel, const Expected<cpu::LaunchStats>& launched)
{
  RunReport report;
  report.compared = 1;
  if (launched) {
    report.mismatches = 1;
    report.summary = kernel + ": completed, but the case expects a trap\n";
  } else {
    report.summary = kernel + ": trapped as the case expects: " + launched.error().message + "\n";
  }
  return report;
}

} // namespace

Expected<TranslateOutput> translate_ptx_file(const PtxTranslateCommand& cmd, std::ostream& log)
{
  TRY_ASSIGN(compiler::PtxBuild build, build_of(cmd));
  TRY_ASSIGN(compiler::ptx::PtxModule source, read_one_ptx_module(cmd.path, cmd.module_hash));
  std::string where = cmd.path + " (module " + hash_to_hex(source.fnv1a64) + ")";
  std::string passes_log;
  TranslateOutput output;
  if (cmd.emit_llvm) {
    auto kind = cmd.target == "host" ? compiler::translate::TargetKind::host
                                     : compiler::translate::TargetKind::amdgpu;
    Expected<compiler::translate::Translation> translation =
        compiler::translate_ptx(source.text, build, kind, passes_log);
    log << passes_log;
    if (!translation) {
      return make_error(translation.error().code, where + ": " + translation.error().message);
    }
    output.llvm_ir = compiler::llvm_ir_text(*translation);
    return output;
  }
  Expected<std::vector<std::byte>> object =
      compiler::build_ptx_code_object(source.text, build, passes_log);
  log << passes_log;
  if (!object) {
    return make_error(object.error().code, where + ": " + object.error().message);
  }
  output.code_object = std::move(*object);
  return output;
}

Expected<RunReport> run_ptx_file(const PtxRunCommand& cmd)
{
  TRY_ASSIGN(fs::path case_path, case_file_of(cmd.inputs));
  TRY_ASSIGN(cpu::LaunchCase launch, cpu::read_launch_case(case_path));
  launch.kernel = cmd.kernel;
  TRY_ASSIGN(compiler::ptx::PtxModule source, read_one_ptx_module(cmd.path, cmd.module_hash));
  compiler::PtxBuild build;
  build.entry = cmd.kernel;
  build.float_policy = compiler::float_policy_for(cmd.mode);
  std::string log;
  TRY_ASSIGN(compiler::translate::Translation translation,
             compiler::translate_ptx(source.text, build, compiler::translate::TargetKind::host, log));
  TRY_ASSIGN(std::unique_ptr<cpu::Executor> executor, cpu::Executor::create(std::move(translation)));
  TRY(cpu::write_case_globals(*executor, launch));
  std::unique_ptr<cpu::HostLaunch> host = cpu::HostLaunch::create(launch);
  TRY(cpu::write_case_texrefs(*executor, launch, *host));
  cpu::LaunchShape shape{launch.grid, launch.block, launch.dynamic_shared};
  Expected<cpu::LaunchStats> launched = executor->launch(cmd.kernel, shape, host->params());
  if (launch.expect == cpu::Expect::trap) {
    return trap_report(cmd.kernel, launched);
  }
  TRY_ASSIGN(cpu::LaunchStats stats, std::move(launched));
  RunReport report;
  report.summary = cmd.kernel + ": " + std::to_string(stats.threads_run) + " threads in " +
                   std::to_string(stats.seconds) + " s\n";
  for (int64_t index = 0; index < static_cast<int64_t>(launch.outputs.size()); ++index) {
    std::span<const std::byte> actual = host->output_bytes(index);
    std::string line = "out" + std::to_string(index) + " (" + launch.outputs[index].what + "): ";
    if (!cmd.out_dir.empty()) {
      fs::path file = fs::path(cmd.out_dir) / ("out" + std::to_string(index) + ".bin");
      std::string bytes(reinterpret_cast<const char*>(actual.data()), actual.size());
      TRY(write_file_atomically(file.string(), bytes));
    }
    std::optional<std::vector<std::byte>> expected = expected_output(case_path, index);
    if (!expected) {
      report.summary += line + "no expected file\n";
      continue;
    }
    ++report.compared;
    Expected<void> same = cpu::compare_output(launch, index, *expected, actual);
    if (same) {
      report.summary += line + "equals the expected output\n";
    } else {
      ++report.mismatches;
      report.summary += line + same.error().message + "\n";
    }
  }
  return report;
}

} // namespace d4r::cli
