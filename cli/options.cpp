#include "cli/options.hpp"

#include "util/digest.hpp"
#include "util/environment.hpp"
#include "util/socket_path.hpp"
#include "util/variables.hpp"

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <unistd.h>
#include <utility>
#include <vector>

namespace d4r::cli {

namespace {

struct OptionSpec {
  std::string_view name;
  bool takes_value = false;
};

constexpr OptionSpec k_global_options[] = {
    {"--socket", true}, {"--json", false}, {"--timeout-ms", true},
    {"--help", false},  {"-h", false},     {"--version", false},
};
constexpr OptionSpec k_resolve_options[] = {
    {"--module-hash", true}, {"--kernel", true},  {"--mode", true},
    {"--target", true},      {"--no-fp8", false}, {"--no-swin-encoders", false},
    {"--wait-ms", true},     {"--out", true},
};
constexpr OptionSpec k_build_options[] = {
    {"--kernel", true}, {"--mode", true}, {"--target", true}, {"--no-fp8", false},
    {"--wait-ms", true}, {"--out", true},
};
constexpr OptionSpec k_mode_options[] = {{"--mode", true}};
constexpr OptionSpec k_purge_options[] = {
    {"--mode", true}, {"--yes", false}, {"--older-than", true}, {"--force", false}};
constexpr OptionSpec k_export_options[] = {{"--target", true}, {"--mode", true}};
constexpr OptionSpec k_pin_options[] = {
    {"--kernel", true}, {"--module-hash", true}, {"--mode", true}, {"--label", true}};
// Every ptx subcommand's; each subcommand refuses the ones that are not its own.
constexpr OptionSpec k_ptx_options[] = {
    {"--recipe", true}, {"--module", true},     {"--target", true},     {"-o", true},
    {"--out", true},    {"--kernel", true},     {"--inputs", true},     {"--emit-llvm", false},
    {"--max-decompressed", true}, {"--mode", true},
};

constexpr OptionSpec k_doctor_options[] = {
    {"--cache-dir", true}, {"--native-dir", true}, {"--kfd-topology", true},
    {"--kfd-device", true}, {"--worker", true},
};

constexpr OptionSpec k_warm_options[] = {
    {"--rr-dll", true}, {"--targets", true}, {"--mode", true}, {"--no-fp8", false},
    {"--no-swin-encoders", false}, {"--max-decompressed", true},
};

constexpr OptionSpec k_token_options[] = {{"--token-file", true}};
constexpr OptionSpec k_key_options[] = {{"--key-file", true}};

constexpr OptionSpec k_config_options[] = {
    {"--mode", true}, {"--no-fp8", false}, {"--no-swin-encoders", false}, {"--target", true},
    {"--fp8", false}, {"--swin-encoders", false},
};

constexpr std::string_view k_commands[] = {"help", "status", "resolve", "build", "import",
                                           "list", "purge",  "ptx",     "doctor",  "config",
                                           "metrics", "warm",    "export",  "pin",
                                           "unpin", "token", "key"};

std::span<const OptionSpec> options_of(std::string_view command)
{
  if (command == "resolve") {
    return k_resolve_options;
  }
  if (command == "build") {
    return k_build_options;
  }
  if (command == "list") {
    return k_mode_options;
  }
  if (command == "purge") {
    return k_purge_options;
  }
  if (command == "ptx") {
    return k_ptx_options;
  }
  if (command == "config") {
    return k_config_options;
  }
  if (command == "doctor") {
    return k_doctor_options;
  }
  if (command == "export") {
    return k_export_options;
  }
  if (command == "pin" || command == "unpin") {
    return k_pin_options;
  }
  if (command == "warm") {
    return k_warm_options;
  }
  if (command == "token") {
    return k_token_options;
  }
  if (command == "key") {
    return k_key_options;
  }
  return {};
}

const OptionSpec* find_option(std::span<const OptionSpec> specs, std::string_view name)
{
  auto it = std::find_if(specs.begin(), specs.end(),
                         [name](const OptionSpec& spec) { return spec.name == name; });
  return it == specs.end() ? nullptr : &*it;
}

bool is_command(std::string_view name)
{
  return std::find(std::begin(k_commands), std::end(k_commands), name) != std::end(k_commands);
}

// The arguments sorted out: global options applied, command options kept in order.
struct RawArgs {
  std::string command;
  std::vector<std::pair<std::string, std::string>> options; // name, value ("" for a flag)
  std::vector<std::string> positionals;
  bool help = false;
  bool version = false;
  std::optional<std::string> socket;
  std::optional<std::string> timeout_ms;
  bool json = false;
};

Expected<void> add_positional(RawArgs& raw, const std::string& arg)
{
  if (!raw.command.empty()) {
    raw.positionals.push_back(arg);
    return {};
  }
  if (!is_command(arg)) {
    return make_error(ErrorCode::invalid_argument,
                      "unknown command '" + arg.substr(0, 64) +
                          "' (expected status, resolve, build, import, list, purge, export, pin, unpin, ptx, doctor, metrics or help)");
  }
  raw.command = arg;
  return {};
}

void apply_global(RawArgs& raw, std::string_view name, std::string value)
{
  if (name == "--socket") {
    raw.socket = std::move(value);
  } else if (name == "--timeout-ms") {
    raw.timeout_ms = std::move(value);
  } else if (name == "--json") {
    raw.json = true;
  } else if (name == "--version") {
    raw.version = true;
  } else {
    raw.help = true;
  }
}

// Takes one option (and its value) starting at args[i]; advances i past a separate value.
Expected<void> take_option(RawArgs& raw, std::span<const std::string> args, size_t& i)
{
  const std::string& arg = args[i];
  size_t equals = arg.starts_with("--") ? arg.find('=') : std::string::npos;
  std::string name = arg.substr(0, equals);
  std::optional<std::string> inline_value;
  if (equals != std::string::npos) {
    inline_value = arg.substr(equals + 1);
  }
  const OptionSpec* spec = find_option(k_global_options, name);
  bool global = spec != nullptr;
  if (!global) {
    spec = find_option(options_of(raw.command), name);
  }
  if (spec == nullptr) {
    std::string where = raw.command.empty() ? "" : " for command '" + raw.command + "'";
    return make_error(ErrorCode::invalid_argument,
                      "unknown option '" + name.substr(0, 64) + "'" + where);
  }
  std::string value;
  if (spec->takes_value) {
    if (inline_value) {
      value = *inline_value;
    } else if (i + 1 < args.size()) {
      value = args[++i];
    } else {
      return make_error(ErrorCode::invalid_argument, "option '" + name + "' needs a value");
    }
  } else if (inline_value) {
    return make_error(ErrorCode::invalid_argument, "option '" + name + "' takes no value");
  }
  if (global) {
    apply_global(raw, name, std::move(value));
  } else {
    raw.options.emplace_back(std::move(name), std::move(value));
  }
  return {};
}

Expected<RawArgs> sort_arguments(std::span<const std::string> args)
{
  RawArgs raw;
  bool options_ended = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (!options_ended && arg == "--") {
      options_ended = true;
      continue;
    }
    if (options_ended || !arg.starts_with("-") || arg == "-") {
      TRY(add_positional(raw, arg));
      continue;
    }
    TRY(take_option(raw, args, i));
  }
  return raw;
}

Expected<int64_t> parse_number(std::string_view option, std::string_view text, int64_t min,
                               int64_t max)
{
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end || value < min || value > max) {
    return make_error(ErrorCode::invalid_argument,
                      std::string(option) + ": '" + std::string(text.substr(0, 32)) +
                          "' is not a whole number from " + std::to_string(min) + " to " +
                          std::to_string(max));
  }
  return value;
}

Expected<Mode> parse_mode_option(std::string_view text)
{
  Expected<Mode> mode = parse_mode(text);
  if (!mode) {
    return make_error(ErrorCode::invalid_argument, "--mode: " + mode.error().message);
  }
  return *mode;
}

Expected<void> expect_positionals(const RawArgs& raw, size_t at_most)
{
  if (raw.positionals.size() > at_most) {
    return make_error(ErrorCode::invalid_argument, raw.command + ": unexpected argument '" +
                                                       raw.positionals[at_most].substr(0, 64) +
                                                       "'");
  }
  return {};
}

Expected<void> apply_resolve_option(ResolveCommand& cmd, const std::string& name,
                                    const std::string& value)
{
  if (name == "--module-hash") {
    std::optional<uint64_t> hash = parse_hash_hex(value);
    if (!hash) {
      return make_error(ErrorCode::invalid_argument,
                        "--module-hash: '" + value.substr(0, 32) +
                            "' is not 16 hex digits (the FNV-1a 64 of the PTX module, as "
                            "d4r-kernels.txt lists it)");
    }
    cmd.module_hash = *hash;
  } else if (name == "--kernel") {
    Expected<void> valid = validate_kernel_name(value);
    if (!valid) {
      return make_error(ErrorCode::invalid_argument, "--kernel: " + valid.error().message);
    }
    cmd.kernel = value;
  } else if (name == "--mode") {
    TRY_ASSIGN(cmd.mode, parse_mode_option(value));
  } else if (name == "--target") {
    Expected<std::string> target = validate_target(value);
    if (!target) {
      return make_error(ErrorCode::invalid_argument, "--target: " + target.error().message);
    }
    cmd.target = *target;
  } else if (name == "--no-fp8") {
    cmd.fp8_native = false;
  } else if (name == "--no-swin-encoders") {
    cmd.native_swin_encoders = false;
  } else if (name == "--wait-ms") {
    TRY_ASSIGN(cmd.wait_ms, parse_number(name, value, 0, k_max_wait_ms));
  } else if (name == "--out") {
    if (value.empty()) {
      return make_error(ErrorCode::invalid_argument, "--out: the file name is empty");
    }
    cmd.out_path = value;
  }
  return {};
}

Expected<Command> build_resolve(const RawArgs& raw)
{
  TRY(expect_positionals(raw, 0));
  ResolveCommand cmd;
  bool have_hash = false;
  for (const auto& [name, value] : raw.options) {
    TRY(apply_resolve_option(cmd, name, value));
    have_hash = have_hash || name == "--module-hash";
  }
  if (!have_hash) {
    return make_error(ErrorCode::invalid_argument, "resolve: --module-hash is required");
  }
  if (cmd.kernel.empty()) {
    return make_error(ErrorCode::invalid_argument, "resolve: --kernel is required");
  }
  return cmd;
}

// `build --kernel NAME [--target T] [--mode M] [--wait-ms N] [--out FILE]`: a resolve without a
// module, which the daemon answers from the kernel's recipe.
Expected<Command> build_build(const RawArgs& raw)
{
  TRY(expect_positionals(raw, 0));
  ResolveCommand cmd;
  cmd.build = true;
  cmd.wait_ms = k_default_build_wait_ms;
  for (const auto& [name, value] : raw.options) {
    TRY(apply_resolve_option(cmd, name, value));
  }
  if (cmd.kernel.empty()) {
    return make_error(ErrorCode::invalid_argument, "build: --kernel is required");
  }
  return cmd;
}

Expected<Command> build_import(const RawArgs& raw)
{
  TRY(expect_positionals(raw, 1));
  ImportCommand cmd;
  if (raw.positionals.empty()) {
    return cmd;
  }
  const std::string& dir = raw.positionals.front();
  if (dir.empty()) {
    return make_error(ErrorCode::invalid_argument, "import: the directory name is empty");
  }
  // The daemon runs elsewhere (another working directory): a relative path means nothing there.
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(dir, ec);
  if (ec) {
    return make_error(ErrorCode::invalid_argument,
                      "import: cannot make '" + dir + "' absolute: " + ec.message());
  }
  cmd.directory = absolute.lexically_normal().string();
  return cmd;
}

Expected<Command> build_list_or_purge(const RawArgs& raw)
{
  TRY(expect_positionals(raw, 0));
  PurgeCommand purge;
  for (const auto& [name, value] : raw.options) {
    if (name == "--mode") {
      TRY_ASSIGN(purge.mode, parse_mode_option(value));
    } else if (name == "--older-than") {
      TRY_ASSIGN(purge.older_than_ms, parse_duration_ms(name, value));
    } else if (name == "--force") {
      purge.force = true;
    } else {
      purge.yes = true;
    }
  }
  if (raw.command == "list") {
    return ListCommand{purge.mode};
  }
  return purge;
}

Expected<uint64_t> parse_module_option(const std::string& value)
{
  std::optional<uint64_t> hash = parse_hash_hex(value);
  if (!hash) {
    return make_error(ErrorCode::invalid_argument,
                      "--module: '" + value.substr(0, 32) + "' is not 16 hex digits");
  }
  return *hash;
}

// "1073741824", "512K", "256M", "1G" (also "KiB", "MiB", "GiB"): a positive size in bytes.
Expected<int64_t> parse_byte_size(std::string_view option, std::string_view text)
{
  int64_t number = 0;
  std::from_chars_result parsed = std::from_chars(text.data(), text.data() + text.size(), number);
  std::string_view unit = text.substr(static_cast<size_t>(parsed.ptr - text.data()));
  int shift = -1;
  if (unit.empty()) {
    shift = 0;
  } else if (unit == "K" || unit == "KiB") {
    shift = 10;
  } else if (unit == "M" || unit == "MiB") {
    shift = 20;
  } else if (unit == "G" || unit == "GiB") {
    shift = 30;
  }
  if (parsed.ec != std::errc() || parsed.ptr == text.data() || shift < 0 || number <= 0 ||
      number > (INT64_MAX >> shift)) {
    return make_error(ErrorCode::invalid_argument,
                      std::string(option) + ": '" + std::string(text.substr(0, 32)) +
                          "' is not a size (a positive number of bytes, or with K, M or G)");
  }
  return number << shift;
}

// The FILE of `ptx SUB FILE`, and a refusal of the ptx options SUB does not take.
Expected<std::string> ptx_file_and_options(const RawArgs& raw, std::string_view sub,
                                           std::initializer_list<std::string_view> allowed)
{
  TRY(expect_positionals(raw, 2));
  if (raw.positionals.size() < 2 || raw.positionals[1].empty()) {
    return make_error(ErrorCode::invalid_argument, "ptx " + std::string(sub) + ": a FILE is required");
  }
  for (const auto& [name, value] : raw.options) {
    if (std::find(allowed.begin(), allowed.end(), name) == allowed.end()) {
      return make_error(ErrorCode::invalid_argument,
                        "unknown option '" + name + "' for 'ptx " + std::string(sub) + "'");
    }
  }
  return raw.positionals[1];
}

// `ptx rewrite --recipe R FILE [--module HASH] [--target T] [-o OUT]`.
Expected<Command> build_ptx_rewrite(const RawArgs& raw)
{
  PtxRewriteCommand cmd;
  TRY_ASSIGN(cmd.path, ptx_file_and_options(raw, "rewrite",
                                            {"--recipe", "--module", "--target", "-o", "--out"}));
  for (const auto& [name, value] : raw.options) {
    if (name == "--recipe") {
      cmd.recipe_path = value;
    } else if (name == "--module") {
      TRY_ASSIGN(cmd.module_hash, parse_module_option(value));
    } else if (name == "--target") {
      TRY_ASSIGN(cmd.target, validate_target(value));
    } else {
      cmd.out_path = value;
    }
  }
  if (cmd.recipe_path.empty()) {
    return make_error(ErrorCode::invalid_argument, "ptx rewrite: --recipe R is required");
  }
  return cmd;
}

// `ptx translate FILE --target T [--kernel NAME] [--recipe R] [--module HASH] [--mode M]
// [--emit-llvm] [-o OUT]`.
Expected<Command> build_ptx_translate(const RawArgs& raw)
{
  PtxTranslateCommand cmd;
  TRY_ASSIGN(cmd.path, ptx_file_and_options(raw, "translate",
                                            {"--target", "--kernel", "--recipe", "--module",
                                             "--emit-llvm", "--mode", "-o", "--out"}));
  for (const auto& [name, value] : raw.options) {
    if (name == "--target") {
      if (value == "host") {
        cmd.target = value;
      } else {
        TRY_ASSIGN(cmd.target, validate_target(value));
      }
    } else if (name == "--kernel") {
      TRY(validate_kernel_name(value));
      cmd.kernel = value;
    } else if (name == "--recipe") {
      cmd.recipe_path = value;
    } else if (name == "--module") {
      TRY_ASSIGN(cmd.module_hash, parse_module_option(value));
    } else if (name == "--emit-llvm") {
      cmd.emit_llvm = true;
    } else if (name == "--mode") {
      TRY_ASSIGN(cmd.mode, parse_mode_option(value));
    } else {
      cmd.out_path = value;
    }
  }
  if (cmd.target.empty()) {
    return make_error(ErrorCode::invalid_argument, "ptx translate: --target T is required");
  }
  if (cmd.target == "host" && !cmd.emit_llvm) {
    return make_error(ErrorCode::invalid_argument,
                      "ptx translate: --target host makes no code object; add --emit-llvm");
  }
  if (!cmd.emit_llvm && cmd.out_path.empty()) {
    return make_error(ErrorCode::invalid_argument, "ptx translate: -o OUT is required for a code object");
  }
  return cmd;
}

// `ptx run FILE --kernel NAME --inputs DIR|CASE [--out DIR] [--module HASH] [--mode M]`.
Expected<Command> build_ptx_run(const RawArgs& raw)
{
  PtxRunCommand cmd;
  TRY_ASSIGN(cmd.path, ptx_file_and_options(raw, "run",
                                            {"--kernel", "--inputs", "--module", "--mode", "-o", "--out"}));
  for (const auto& [name, value] : raw.options) {
    if (name == "--kernel") {
      TRY(validate_kernel_name(value));
      cmd.kernel = value;
    } else if (name == "--inputs") {
      cmd.inputs = value;
    } else if (name == "--module") {
      TRY_ASSIGN(cmd.module_hash, parse_module_option(value));
    } else if (name == "--mode") {
      TRY_ASSIGN(cmd.mode, parse_mode_option(value));
    } else {
      cmd.out_dir = value;
    }
  }
  if (cmd.kernel.empty() || cmd.inputs.empty()) {
    return make_error(ErrorCode::invalid_argument, "ptx run: --kernel NAME and --inputs DIR are required");
  }
  return cmd;
}

// `ptx inspect FILE` or `ptx rewrite ...`: the subcommand is the first positional.
Expected<Command> build_ptx(const RawArgs& raw)
{
  if (raw.positionals.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "ptx: a subcommand is required (inspect, rewrite, translate or run)");
  }
  const std::string& sub = raw.positionals.front();
  if (sub == "rewrite") {
    return build_ptx_rewrite(raw);
  }
  if (sub == "translate") {
    return build_ptx_translate(raw);
  }
  if (sub == "run") {
    return build_ptx_run(raw);
  }
  if (sub != "inspect") {
    return make_error(ErrorCode::invalid_argument,
                      "ptx: unknown subcommand '" + sub.substr(0, 64) +
                          "' (expected inspect, rewrite, translate or run)");
  }
  PtxInspectCommand cmd;
  TRY_ASSIGN(cmd.path, ptx_file_and_options(raw, "inspect", {"--max-decompressed"}));
  for (const auto& [name, value] : raw.options) {
    TRY_ASSIGN(cmd.max_decompressed, parse_byte_size(name, value));
  }
  return cmd;
}

// `doctor` with the daemon's path flags; each value must name something.
Expected<Command> build_doctor(const RawArgs& raw)
{
  TRY(expect_positionals(raw, 0));
  DoctorCommand cmd;
  for (const auto& [name, value] : raw.options) {
    if (value.empty()) {
      return make_error(ErrorCode::invalid_argument, name + ": the path is empty");
    }
    std::string& field = name == "--cache-dir"      ? cmd.cache_dir
                         : name == "--native-dir"   ? cmd.native_dir
                         : name == "--kfd-topology" ? cmd.kfd_topology
                         : name == "--kfd-device"   ? cmd.kfd_device
                                                    : cmd.worker;
    field = value;
  }
  return cmd;
}

Expected<Command> build_command(const RawArgs& raw)
{
  if (raw.command == "help") {
    TRY(expect_positionals(raw, 1));
    std::string topic = raw.positionals.empty() ? "" : raw.positionals.front();
    if (!topic.empty() && (!is_command(topic) || topic == "help")) {
      return make_error(ErrorCode::invalid_argument,
                        "help: unknown command '" + topic.substr(0, 64) + "'");
    }
    return HelpCommand{topic};
  }
  if (raw.help) {
    return HelpCommand{raw.command};
  }
  if (raw.version) {
    return VersionCommand{};
  }
  if (raw.command.empty()) {
    return make_error(ErrorCode::invalid_argument, "no command given");
  }
  if (raw.command == "status") {
    TRY(expect_positionals(raw, 0));
    return StatusCommand{};
  }
  if (raw.command == "metrics") {
    TRY(expect_positionals(raw, 0));
    return MetricsCommand{};
  }
  if (raw.command == "resolve") {
    return build_resolve(raw);
  }
  if (raw.command == "build") {
    return build_build(raw);
  }
  if (raw.command == "import") {
    return build_import(raw);
  }
  if (raw.command == "ptx") {
    return build_ptx(raw);
  }
  if (raw.command == "config") {
    TRY_ASSIGN(ConfigCommand config, parse_config_command(raw.options, raw.positionals));
    return config;
  }
  if (raw.command == "doctor") {
    return build_doctor(raw);
  }
  if (raw.command == "export") {
    TRY_ASSIGN(ExportCommand exported, parse_export_command(raw.options, raw.positionals));
    return exported;
  }
  if (raw.command == "pin" || raw.command == "unpin") {
    TRY_ASSIGN(PinCommand pin,
               parse_pin_command(raw.command == "unpin", raw.options, raw.positionals));
    return pin;
  }
  if (raw.command == "warm") {
    TRY_ASSIGN(WarmCommand warm, parse_warm_command(raw.options, raw.positionals));
    return warm;
  }
  if (raw.command == "token") {
    TRY_ASSIGN(TokenCommand token, parse_token_command(raw.options, raw.positionals));
    return token;
  }
  if (raw.command == "key") {
    TRY_ASSIGN(KeyCommand key, parse_key_command(raw.options, raw.positionals));
    return key;
  }
  return build_list_or_purge(raw);
}

} // namespace

Environment environment_from_process()
{
  const EnvironmentMap process = d4r::environment_from_process();
  Environment env;
  env.kerneld_socket = environment_value(process, k_env_kerneld_socket).value_or("");
  env.xdg_runtime_dir = environment_value(process, "XDG_RUNTIME_DIR").value_or("");
  env.uid = static_cast<uint32_t>(getuid());
  return env;
}

std::string default_socket_path(const Environment& env)
{
  EnvironmentMap map;
  map.emplace("XDG_RUNTIME_DIR", env.xdg_runtime_dir);
  return d4r::default_socket_path(map, env.uid);
}

Expected<ParsedCommand> parse_command_line(std::span<const std::string> args,
                                           const Environment& env)
{
  TRY_ASSIGN(RawArgs raw, sort_arguments(args));
  ParsedCommand parsed;
  parsed.global.json = raw.json;
  if (raw.timeout_ms) {
    parsed.global.timeout_given = true;
    TRY_ASSIGN(parsed.global.timeout_ms,
               parse_number("--timeout-ms", *raw.timeout_ms, 1, k_max_timeout_ms));
  }
  if (raw.socket && raw.socket->empty()) {
    return make_error(ErrorCode::invalid_argument, "--socket: the path is empty");
  }
  if (raw.socket) {
    parsed.global.socket_given = true;
    parsed.global.socket = *raw.socket;
  } else if (!env.kerneld_socket.empty()) {
    parsed.global.socket = env.kerneld_socket;
  } else {
    parsed.global.socket = default_socket_path(env);
  }
  TRY_ASSIGN(parsed.command, build_command(raw));
  return parsed;
}

} // namespace d4r::cli
