#include "compiler/backends/backend_support.hpp"

#include <cstring>
#include <llvm/TargetParser/TargetParser.h>

#include <fstream>
#include <iterator>

namespace d4r::compiler {

std::string last_lines(std::string_view text, int max_lines)
{
  while (!text.empty() && text.back() == '\n') {
    text.remove_suffix(1);
  }
  size_t start = text.size();
  for (int i = 0; i < max_lines; ++i) {
    size_t newline = start == 0 ? std::string_view::npos : text.rfind('\n', start - 1);
    if (newline == std::string_view::npos) {
      return std::string(text);
    }
    start = newline;
  }
  return std::string(text.substr(start + 1));
}

std::string compiler_summary(std::string_view text, int max_lines)
{
  bool crashed = text.find("Stack dump:") != std::string_view::npos ||
                 text.find("PLEASE submit a bug report") != std::string_view::npos;
  if (!crashed) {
    return last_lines(text, max_lines);
  }
  std::string summary;
  int kept = 0;
  size_t start = 0;
  while (start < text.size() && kept < max_lines) {
    size_t end = text.find('\n', start);
    std::string_view line = text.substr(start, end == std::string_view::npos ? end : end - start);
    if (line.find("error:") != std::string_view::npos ||
        line.find("LLVM ERROR") != std::string_view::npos ||
        line.find("fatal error") != std::string_view::npos) {
      summary += summary.empty() ? "" : "\n";
      summary += line;
      ++kept;
    }
    if (end == std::string_view::npos) {
      break;
    }
    start = end + 1;
  }
  if (!summary.empty()) {
    return summary;
  }
  // No error line: a signal (a CPU or memory limit, a crash) ended it. The pretty stack trace
  // ("1.\t<eof> parser at end of file") says what it was doing; the frames do not.
  size_t dump = text.find("Stack dump:");
  std::string_view trace = dump == std::string_view::npos ? text : text.substr(dump);
  std::string what = "compiler crashed";
  start = 0;
  for (int seen = 0; start < trace.size() && seen < 4;) {
    size_t end = trace.find('\n', start);
    std::string_view line = trace.substr(start, end == std::string_view::npos ? end : end - start);
    if (!line.empty() && line[0] >= '0' && line[0] <= '9' && line.find(".\t") != std::string_view::npos) {
      what += "; " + std::string(line.substr(0, 200));
      ++seen;
    }
    if (end == std::string_view::npos) {
      break;
    }
    start = end + 1;
  }
  return what;
}

Expected<std::vector<std::byte>> read_file_bytes(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(ErrorCode::io, path.string() + ": cannot open for reading");
  }
  std::vector<char> chars((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    return make_error(ErrorCode::io, path.string() + ": read failed");
  }
  std::vector<std::byte> bytes(chars.size());
  std::memcpy(bytes.data(), chars.data(), chars.size());
  return bytes;
}

Expected<void> write_file_bytes(const std::filesystem::path& path, std::span<const std::byte> bytes)
{
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(bytes.data()),
            static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) {
    return make_error(ErrorCode::io, path.string() + ": write failed");
  }
  return {};
}

std::string job_label(std::string_view backend, const CompileJob& job)
{
  return std::string(backend) + " backend: " + job.source.filename().string() + " for " +
         job.target;
}

Expected<void> prepare_work_dir(std::string_view backend, const CompileJob& job)
{
  if (job.work_dir.empty()) {
    return make_error(ErrorCode::invalid_argument, job_label(backend, job) + ": no work folder");
  }
  std::error_code ec;
  std::filesystem::create_directories(job.work_dir, ec);
  if (ec) {
    return make_error(ErrorCode::io, job_label(backend, job) + ": cannot create work folder " +
                                         job.work_dir.string() + ": " + ec.message());
  }
  return {};
}

} // namespace d4r::compiler

namespace d4r::compiler {

bool is_llvm_amdgcn_target(std::string_view target)
{
  return llvm::AMDGPU::parseArchAMDGCN(llvm::StringRef(target.data(), target.size())) !=
         llvm::AMDGPU::GK_NONE;
}

} // namespace d4r::compiler

namespace d4r::compiler {

bool has_optimisation_flag(const std::vector<std::string>& flags)
{
  for (const std::string& flag : flags) {
    if (flag.size() >= 2 && flag.compare(0, 2, "-O") == 0) {
      return true;
    }
  }
  return false;
}

} // namespace d4r::compiler
