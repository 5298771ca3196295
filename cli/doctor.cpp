#include "cli/doctor.hpp"

#include "cli/doctor_checks.hpp"
#include "cli/exit_code.hpp"
#include "cli/json_writer.hpp"

#include <algorithm>
#include <cstring>
#include <unistd.h>

extern char** environ;

namespace d4r::cli {

namespace doctor {

void Context::ok(const std::string& area, std::string what)
{
  results.push_back({CheckLevel::ok, area, std::move(what), ""});
}

void Context::warn(const std::string& area, std::string what, std::string todo)
{
  results.push_back({CheckLevel::warn, area, std::move(what), std::move(todo)});
}

void Context::fail(const std::string& area, std::string what, std::string todo)
{
  results.push_back({CheckLevel::fail, area, std::move(what), std::move(todo)});
}

std::optional<std::string> lookup(const std::vector<std::string>& environment,
                                  std::string_view name)
{
  for (const std::string& entry : environment) {
    if (entry.size() > name.size() && entry.starts_with(name) && entry[name.size()] == '=') {
      return entry.substr(name.size() + 1);
    }
  }
  return std::nullopt;
}

std::string permission_text(unsigned mode)
{
  std::string text = "rwxrwxrwx";
  for (int bit = 0; bit < 9; ++bit) {
    if ((mode & (1U << (8 - bit))) == 0) {
      text[static_cast<size_t>(bit)] = '-';
    }
  }
  return text;
}

namespace {

// The daemon's flags of the doctor's paths, so that parse_config reads them as the daemon would.
std::vector<std::string> daemon_flags(const DoctorCommand& command)
{
  std::vector<std::string> flags;
  auto add = [&flags](const char* flag, const std::string& value) {
    if (!value.empty()) {
      flags.insert(flags.end(), {flag, value});
    }
  };
  add("--cache-dir", command.cache_dir);
  add("--native-dir", command.native_dir);
  add("--kfd-topology", command.kfd_topology);
  add("--worker", command.worker);
  return flags;
}

// The environment without the switches parse_config may refuse (their check says why), and
// without the config file (its check says why): XDG_CONFIG_HOME comes first and names no file.
std::vector<std::string> without_switches(const std::vector<std::string>& environment)
{
  std::vector<std::string> kept = {"XDG_CONFIG_HOME=/dev/null/no-config"};
  for (const std::string& entry : environment) {
    if (!entry.starts_with("D4R_PREFER_ACCURACY=") &&
        !entry.starts_with("D4R_ZLUDA_WMMA_FP8_NATIVE=") &&
        !entry.starts_with("D4R_NATIVE_SWIN_ENCODERS=")) {
      kept.push_back(entry);
    }
  }
  return kept;
}

void load_config(doctor::Context& context)
{
  std::vector<std::string> flags = daemon_flags(context.inputs.command);
  Expected<daemon::ParsedConfig> parsed = daemon::parse_config(flags, context.inputs.environment);
  if (!parsed) {
    context.config_error = parsed.error().message;
    parsed = daemon::parse_config(flags, without_switches(context.inputs.environment));
  }
  if (parsed) {
    context.config = parsed->config;
  } else if (context.config_error.empty()) {
    context.config_error = parsed.error().message;
  }
}

} // namespace

} // namespace doctor

const char* to_string(CheckLevel level)
{
  switch (level) {
  case CheckLevel::ok:
    return "ok";
  case CheckLevel::warn:
    return "warn";
  case CheckLevel::fail:
    return "FAIL";
  }
  D4R_UNREACHABLE("every level is named");
}

DoctorInputs doctor_inputs_from_process(const GlobalOptions& global, const DoctorCommand& command)
{
  DoctorInputs inputs;
  inputs.command = command;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    inputs.environment.emplace_back(*entry);
  }
  inputs.socket = global.socket;
  inputs.cli_environment = environment_from_process();
  // --timeout-ms shortens (or lengthens) the one RPC; the default keeps the doctor quick.
  inputs.rpc_timeout_ms = global.timeout_given ? global.timeout_ms : k_doctor_rpc_timeout_ms;
  std::error_code ec;
  inputs.self_executable = std::filesystem::canonical("/proc/self/exe", ec);
  return inputs;
}

std::vector<CheckResult> run_doctor_checks(const DoctorInputs& inputs)
{
  doctor::Context context{inputs, {}, {}, std::nullopt, {}, {}};
  doctor::load_config(context);
  // The daemon first: what it reports (its target, native dir, cache) is what the others check.
  doctor::check_socket(context);
  doctor::check_daemon(context);
  doctor::check_gpu(context);
  doctor::check_toolchains(context);
  doctor::check_units(context);
  doctor::check_release(context);
  doctor::check_cache(context);
  doctor::check_environment(context);
  return std::move(context.results);
}

int run_doctor(const DoctorInputs& inputs, bool json, std::ostream& out)
{
  std::vector<CheckResult> results = run_doctor_checks(inputs);
  auto count = [&results](CheckLevel level) {
    return static_cast<int64_t>(std::count_if(results.begin(), results.end(),
                                              [level](const CheckResult& r) { return r.level == level; }));
  };
  const int64_t failed = count(CheckLevel::fail);
  const int code = failed == 0 ? to_int(ExitCode::success) : to_int(ExitCode::problems);
  if (!json) {
    for (const CheckResult& result : results) {
      std::string level = to_string(result.level);
      level.resize(4, ' ');
      out << level << "  " << result.area << ": " << result.what;
      if (!result.todo.empty()) {
        out << "  \u2014 " << result.todo;
      }
      out << "\n";
    }
    out << count(CheckLevel::ok) << " ok, " << count(CheckLevel::warn) << " warn, " << failed
        << " FAIL\n";
    return code;
  }
  JsonWriter doc;
  doc.begin_object().key("checks").begin_array();
  for (const CheckResult& result : results) {
    doc.begin_object().key("level").string(to_string(result.level));
    doc.key("area").string(result.area).key("what").string(result.what);
    doc.key("todo").string(result.todo).end_object();
  }
  doc.end_array();
  doc.key("ok").number(count(CheckLevel::ok)).key("warn").number(count(CheckLevel::warn));
  doc.key("fail").number(failed).key("exit_code").number(code).end_object();
  out << doc.text() << "\n";
  return code;
}

} // namespace d4r::cli
