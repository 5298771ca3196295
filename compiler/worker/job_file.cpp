#include "compiler/worker/job_file.hpp"

#include <array>
#include <cstdint>
#include <fstream>
#include <optional>
#include <span>
#include <sstream>
#include <tuple>
#include <utility>

namespace d4r::compiler {
namespace {

constexpr std::array<std::pair<SourceLanguage, std::string_view>, 4> k_languages = {{
    {SourceLanguage::hip, "hip"},
    {SourceLanguage::llvm_ir, "llvm_ir"},
    {SourceLanguage::llvm_bitcode, "llvm_bitcode"},
    {SourceLanguage::ptx, "ptx"},
}};

// The last five try what the sandbox refuses (compiler/worker/worker_sandbox.hpp).
constexpr std::array<std::string_view, 10> k_faults = {
    "",       "crash", "hang", "sleep", "memory", "socket", "ptrace", "exec", "write_outside",
    "read_outside"};

std::string_view language_name(SourceLanguage language)
{
  for (const auto& [value, name] : k_languages) {
    if (value == language) {
      return name;
    }
  }
  D4R_UNREACHABLE("every SourceLanguage has a name");
}

std::optional<SourceLanguage> language_from_name(std::string_view name)
{
  for (const auto& [value, known] : k_languages) {
    if (known == name) {
      return value;
    }
  }
  return std::nullopt;
}

bool is_known_fault(std::string_view fault)
{
  for (std::string_view known : k_faults) {
    if (known == fault) {
      return true;
    }
  }
  return false;
}

// What a parse has seen, so that a missing or repeated single key is caught.
struct SeenKeys {
  bool backend = false;
  bool source = false;
  bool language = false;
  bool target = false;
  bool wave64 = false;
  bool work_dir = false;
  bool output = false;
  bool fault = false;
  bool clang = false;
  bool entry = false;
  bool mode = false;
};

Expected<void> set_once(bool& seen, std::string_view key)
{
  if (seen) {
    return make_error(ErrorCode::invalid_argument, "key '" + std::string(key) + "' repeated");
  }
  seen = true;
  return {};
}

// Sets a single-valued field when `key` names it.
template <typename Field>
Expected<bool> apply_field(std::string_view key, std::string_view value,
                           std::span<const std::tuple<std::string_view, bool*, Field*>> fields)
{
  for (const auto& [name, seen, field] : fields) {
    if (name == key) {
      TRY(set_once(*seen, key));
      *field = value;
      return true;
    }
  }
  return false;
}

// The keys whose value is taken as it is: false when `key` is none of them.
Expected<bool> apply_plain_key(WorkerJob& job, SeenKeys& seen, std::string_view key,
                               std::string_view value)
{
  using StringField = std::tuple<std::string_view, bool*, std::string*>;
  using PathField = std::tuple<std::string_view, bool*, std::filesystem::path*>;
  const std::array<StringField, 3> strings = {{
      {"backend", &seen.backend, &job.backend},
      {"target", &seen.target, &job.compile.target},
      {"entry", &seen.entry, &job.compile.entry},
  }};
  const std::array<PathField, 4> paths = {{
      {"source", &seen.source, &job.compile.source},
      {"work_dir", &seen.work_dir, &job.compile.work_dir},
      {"output", &seen.output, &job.output},
      {"clang", &seen.clang, &job.clang},
  }};
  TRY_ASSIGN(bool is_string, apply_field<std::string>(key, value, strings));
  if (is_string) {
    return true;
  }
  return apply_field<std::filesystem::path>(key, value, paths);
}

// "pass_param=NAME.KEY=VALUE": one parameter of a pass (the value may hold '=' and spaces).
Expected<void> apply_pass_parameter(WorkerJob& job, std::string_view value)
{
  size_t dot = value.find('.');
  size_t equals = value.find('=');
  if (dot == std::string_view::npos || equals == std::string_view::npos || dot == 0 ||
      equals < dot + 2) {
    return make_error(ErrorCode::invalid_argument,
                      "pass_param must be NAME.KEY=VALUE, not '" + std::string(value) + "'");
  }
  std::string pass(value.substr(0, dot));
  std::string key(value.substr(dot + 1, equals - dot - 1));
  job.compile.pass_parameters[pass][key] = std::string(value.substr(equals + 1));
  return {};
}

Expected<void> apply_key(WorkerJob& job, SeenKeys& seen, std::string_view key,
                         std::string_view value)
{
  TRY_ASSIGN(bool plain, apply_plain_key(job, seen, key, value));
  if (plain) {
    return {};
  }
  if (key == "flag") {
    job.compile.flags.emplace_back(value);
    return {};
  }
  if (key == "pass") {
    job.compile.passes.emplace_back(value);
    return {};
  }
  if (key == "pass_param") {
    return apply_pass_parameter(job, value);
  }
  if (key == "language") {
    TRY(set_once(seen.language, key));
    std::optional<SourceLanguage> language = language_from_name(value);
    if (!language) {
      return make_error(ErrorCode::invalid_argument, "unknown language '" + std::string(value) +
                                                         "' (hip, llvm_ir, llvm_bitcode or ptx)");
    }
    job.compile.language = *language;
    return {};
  }
  if (key == "wave64") {
    TRY(set_once(seen.wave64, key));
    if (value != "0" && value != "1") {
      return make_error(ErrorCode::invalid_argument,
                        "wave64 must be 0 or 1, not '" + std::string(value) + "'");
    }
    job.compile.wave64 = value == "1";
    return {};
  }
  if (key == "mode") {
    TRY(set_once(seen.mode, key));
    TRY_ASSIGN(job.compile.mode, parse_mode(value));
    return {};
  }
  if (key == "fault") {
    TRY(set_once(seen.fault, key));
    if (!is_known_fault(value)) {
      return make_error(ErrorCode::invalid_argument, "unknown fault '" + std::string(value) + "'");
    }
    job.fault = value;
    return {};
  }
  return make_error(ErrorCode::invalid_argument, "unknown key '" + std::string(key) + "'");
}

Expected<void> check_complete(const WorkerJob& job)
{
  const std::array<std::pair<std::string_view, bool>, 5> required = {{
      {"backend", !job.backend.empty()},
      {"source", !job.compile.source.empty()},
      {"target", !job.compile.target.empty()},
      {"work_dir", !job.compile.work_dir.empty()},
      {"output", !job.output.empty()},
  }};
  for (const auto& [key, present] : required) {
    if (!present) {
      return make_error(ErrorCode::invalid_argument, "missing '" + std::string(key) + "'");
    }
  }
  return {};
}

Expected<void> append_line(std::string& text, std::string_view key, std::string_view value)
{
  if (value.find_first_of("\r\n") != std::string_view::npos) {
    return make_error(ErrorCode::invalid_argument,
                      "job file: " + std::string(key) + " contains a line break");
  }
  text.append(key).append("=").append(value).append("\n");
  return {};
}

} // namespace

Expected<std::string> format_worker_job(const WorkerJob& job)
{
  if (Expected<void> complete = check_complete(job); !complete) {
    return make_error(ErrorCode::invalid_argument, "job file: " + complete.error().message);
  }
  std::string text = "# d4r-kernel-worker job\n";
  TRY(append_line(text, "backend", job.backend));
  TRY(append_line(text, "source", job.compile.source.native()));
  TRY(append_line(text, "language", language_name(job.compile.language)));
  TRY(append_line(text, "target", job.compile.target));
  TRY(append_line(text, "wave64", job.compile.wave64 ? "1" : "0"));
  for (const std::string& flag : job.compile.flags) {
    TRY(append_line(text, "flag", flag));
  }
  if (!job.compile.entry.empty()) {
    TRY(append_line(text, "entry", job.compile.entry));
  }
  for (const std::string& pass : job.compile.passes) {
    TRY(append_line(text, "pass", pass));
  }
  for (const auto& [pass, parameters] : job.compile.pass_parameters) {
    for (const auto& [key, value] : parameters) {
      TRY(append_line(text, "pass_param", pass + "." + key + "=" + value));
    }
  }
  TRY(append_line(text, "mode", to_string(job.compile.mode)));
  TRY(append_line(text, "work_dir", job.compile.work_dir.native()));
  TRY(append_line(text, "output", job.output.native()));
  if (!job.clang.empty()) {
    TRY(append_line(text, "clang", job.clang.native()));
  }
  if (!job.fault.empty()) {
    TRY(append_line(text, "fault", job.fault));
  }
  return text;
}

Expected<WorkerJob> parse_worker_job(std::string_view text)
{
  WorkerJob job;
  SeenKeys seen;
  int64_t line_number = 0;
  while (!text.empty()) {
    size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    text = end == std::string_view::npos ? std::string_view() : text.substr(end + 1);
    ++line_number;
    if (line.empty() || line.front() == '#') {
      continue;
    }
    size_t equals = line.find('=');
    if (equals == std::string_view::npos) {
      return make_error(ErrorCode::invalid_argument,
                        "line " + std::to_string(line_number) + ": expected key=value");
    }
    Expected<void> applied = apply_key(job, seen, line.substr(0, equals), line.substr(equals + 1));
    if (!applied) {
      return make_error(ErrorCode::invalid_argument,
                        "line " + std::to_string(line_number) + ": " + applied.error().message);
    }
  }
  TRY(check_complete(job));
  return job;
}

Expected<WorkerJob> read_worker_job(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(ErrorCode::io, "job file " + path.string() + ": cannot open");
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return make_error(ErrorCode::io, "job file " + path.string() + ": read failed");
  }
  Expected<WorkerJob> job = parse_worker_job(text.str());
  if (!job) {
    return make_error(job.error().code, "job file " + path.string() + ": " + job.error().message);
  }
  return job;
}

} // namespace d4r::compiler
