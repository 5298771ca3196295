#include "cli/commands.hpp"

#include "cli/code_object_file.hpp"
#include "cli/config_command.hpp"
#include "cli/daemon_client.hpp"
#include "cli/doctor.hpp"
#include "cli/exit_code.hpp"
#include "cli/help.hpp"
#include "cli/metrics.hpp"
#include "cli/output.hpp"
#include "cli/ptx_rewrite.hpp"
#include "cli/ptx_translate.hpp"
#include "cli/release_commands.hpp"
#include "cli/warm_command.hpp"
#include "compiler/ptx/container.hpp"

#include <algorithm>
#include <cstddef>
#include <filesystem>
#include <type_traits>
#include <vector>

namespace d4r::cli {

namespace {

int fail(Io& io, bool json, ExitCode code, const std::string& message)
{
  io.err << "d4r-kernel: " << message << "\n";
  if (json) {
    JsonWriter doc;
    doc.begin_object().key("error").begin_object();
    doc.key("message").string(message).key("exit_code").number(to_int(code));
    doc.end_object().end_object();
    io.out << doc.text() << "\n";
  }
  return to_int(code);
}

pb::Mode to_proto(std::optional<Mode> mode)
{
  if (!mode) {
    return pb::MODE_UNSPECIFIED;
  }
  switch (*mode) {
  case Mode::fast:
    return pb::MODE_FAST;
  case Mode::accuracy:
    return pb::MODE_ACCURACY;
  }
  D4R_UNREACHABLE("every mode is handled");
}

// Prints a reply as a table or as one JSON document.
template <typename TextFn, typename JsonFn>
int print(Io& io, bool json, TextFn&& text, JsonFn&& fill_json)
{
  if (!json) {
    io.out << text();
    return to_int(ExitCode::success);
  }
  JsonWriter doc;
  fill_json(doc);
  io.out << doc.text() << "\n";
  return to_int(ExitCode::success);
}

int run_status(const GlobalOptions& global, Io& io)
{
  DaemonClient client(global.socket, global.timeout_ms);
  Expected<pb::StatusReply> reply = client.status();
  if (!reply) {
    return fail(io, global.json, ExitCode::daemon, reply.error().message);
  }
  return print(
      io, global.json, [&] { return status_text(*reply, global.socket); },
      [&](JsonWriter& doc) { status_json(doc, *reply, global.socket); });
}

pb::ResolveRequest resolve_request(const ResolveCommand& cmd)
{
  pb::ResolveRequest request;
  request.set_module_hash(cmd.module_hash);
  request.set_kernel(cmd.kernel);
  pb::Selection* selection = request.mutable_selection();
  selection->set_target(cmd.target);
  selection->set_mode(to_proto(cmd.mode));
  // Unset means "on" to the daemon; only an explicit --no-... is sent.
  if (!cmd.fp8_native) {
    selection->set_fp8_native(false);
  }
  if (!cmd.native_swin_encoders) {
    selection->set_native_swin_encoders(false);
  }
  request.set_wait_budget_ms(static_cast<uint32_t>(cmd.wait_ms));
  request.set_accept_path(false);
  return request;
}

// The code object bytes of a READY reply, checked against its sha256 and size.
Expected<std::string> verified_object(const pb::CodeObject& object)
{
  std::string bytes;
  switch (object.location_case()) {
  case pb::CodeObject::kData:
    bytes = object.data();
    break;
  case pb::CodeObject::kPath: {
    TRY_ASSIGN(bytes, read_whole_file(object.path()));
    break;
  }
  case pb::CodeObject::LOCATION_NOT_SET:
    return make_error(ErrorCode::corrupt, "the READY reply carries no code object");
  }
  TRY(verify_code_object(bytes, object.sha256(), object.size()));
  return bytes;
}

// Checks a READY reply's object and saves it for --out (`written_to` says where); returns the exit
// status when either step fails.
std::optional<int> check_and_save(const pb::ResolveReply& reply, const std::string& out_path,
                                  Io& io, bool json, std::string& written_to)
{
  Expected<std::string> bytes = verified_object(reply.object());
  if (!bytes) {
    return fail(io, json, ExitCode::daemon,
                "resolve: " + bytes.error().message + "; nothing written");
  }
  if (out_path.empty()) {
    return std::nullopt;
  }
  Expected<void> written = write_file_atomically(out_path, *bytes);
  if (!written) {
    return fail(io, json, ExitCode::local_error, "resolve: " + written.error().message);
  }
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(out_path, ec);
  written_to = ec ? out_path : absolute.string();
  return std::nullopt;
}

pb::BuildRequest build_request(const ResolveCommand& cmd)
{
  pb::ResolveRequest resolve = resolve_request(cmd);
  pb::BuildRequest request;
  request.set_kernel(resolve.kernel());
  *request.mutable_selection() = resolve.selection();
  request.set_wait_budget_ms(resolve.wait_budget_ms());
  request.set_accept_path(false);
  return request;
}

int run_resolve(const GlobalOptions& global, const ResolveCommand& cmd, Io& io)
{
  DaemonClient client(global.socket, global.timeout_ms);
  Expected<pb::ResolveReply> reply =
      cmd.build ? client.build(build_request(cmd)) : client.resolve(resolve_request(cmd));
  if (!reply) {
    return fail(io, global.json, ExitCode::daemon, reply.error().message);
  }
  ExitCode code = exit_code_for(reply->outcome());
  if (code == ExitCode::daemon) {
    return fail(io, global.json, code,
                "resolve: the daemon answered with outcome " + outcome_name(reply->outcome()));
  }
  std::string written_to;
  if (code == ExitCode::success) {
    std::optional<int> failed = check_and_save(*reply, cmd.out_path, io, global.json, written_to);
    if (failed) {
      return *failed;
    }
  }
  (void)print(
      io, global.json, [&] { return resolve_text(*reply, written_to); },
      [&](JsonWriter& doc) { resolve_json(doc, *reply, written_to); });
  return to_int(code);
}

int run_import(const GlobalOptions& global, const ImportCommand& cmd, Io& io)
{
  DaemonClient client(global.socket,
                      global.timeout_given ? global.timeout_ms : k_import_timeout_ms);
  pb::ImportRequest request;
  request.set_directory(cmd.directory);
  Expected<pb::ImportReply> reply = client.import(request);
  if (!reply) {
    return fail(io, global.json, ExitCode::daemon, reply.error().message);
  }
  return print(
      io, global.json, [&] { return import_text(*reply, cmd.directory); },
      [&](JsonWriter& doc) { import_json(doc, *reply, cmd.directory); });
}

int run_list(const GlobalOptions& global, const ListCommand& cmd, Io& io)
{
  DaemonClient client(global.socket, global.timeout_ms);
  pb::ListRequest request;
  request.set_mode(to_proto(cmd.mode));
  Expected<pb::ListReply> reply = client.list(request);
  if (!reply) {
    return fail(io, global.json, ExitCode::daemon, reply.error().message);
  }
  return print(
      io, global.json, [&] { return list_text(*reply); },
      [&](JsonWriter& doc) { list_json(doc, *reply); });
}

// Asks on the terminal; only "y" or "yes" goes ahead.
bool confirmed(const GlobalOptions& global, const PurgeCommand& cmd, Io& io)
{
  std::string what = cmd.mode ? std::string(to_string(*cmd.mode)) + "-mode" : "every";
  io.err << "purge " << what << " cached kernel of d4r-kerneld at " << global.socket << "? [y/N] "
         << std::flush;
  std::optional<std::string> answer = io.read_line ? io.read_line() : std::nullopt;
  return answer && (*answer == "y" || *answer == "Y" || *answer == "yes");
}

int run_purge(const GlobalOptions& global, const PurgeCommand& cmd, Io& io)
{
  if (!cmd.yes && !io.stdin_is_tty) {
    return fail(io, global.json, ExitCode::usage,
                "purge: stdin is not a terminal, so there is no one to confirm; pass --yes");
  }
  if (!cmd.yes && !confirmed(global, cmd, io)) {
    return print(
        io, global.json, [] { return std::string("purge cancelled, nothing removed\n"); },
        [](JsonWriter& doc) { doc.begin_object().key("cancelled").boolean(true).end_object(); });
  }
  DaemonClient client(global.socket, global.timeout_ms);
  pb::PurgeRequest request;
  request.set_mode(to_proto(cmd.mode));
  request.set_older_than_ms(cmd.older_than_ms);
  request.set_force(cmd.force);
  Expected<pb::PurgeReply> reply = client.purge(request);
  if (!reply) {
    return fail(io, global.json, ExitCode::daemon, reply.error().message);
  }
  return print(
      io, global.json, [&] { return purge_text(*reply); },
      [&](JsonWriter& doc) { purge_json(doc, *reply); });
}

// Local only: reads FILE (PTX text, a fatbin, or a binary such as a DLL) and lists its modules and
// the entries it skipped. Modules are kept without their text, so that one decompressed entry at a
// time is held, whatever the file holds.
int run_ptx_inspect(const GlobalOptions& global, const PtxInspectCommand& cmd, Io& io)
{
  Expected<std::string> bytes = read_whole_file(cmd.path);
  if (!bytes) {
    return fail(io, global.json, ExitCode::local_error, "ptx inspect: " + bytes.error().message);
  }
  ptx::ContainerLimits limits;
  if (cmd.max_decompressed) {
    limits.max_total_bytes = *cmd.max_decompressed;
    limits.max_entry_bytes = std::min(limits.max_entry_bytes, *cmd.max_decompressed);
  }
  std::vector<ptx::PtxModule> modules;
  std::vector<ptx::FatbinEntry> skipped;
  ptx::ContainerVisitor visitor{[&modules](ptx::PtxModule&& module) -> Expected<void> {
                                  // Moved out, so that its buffer goes now (assigning an empty
                                  // string would keep the capacity).
                                  std::string dropped = std::move(module.text);
                                  modules.push_back(std::move(module));
                                  return {};
                                },
                                [&skipped](const ptx::FatbinEntry& entry) {
                                  skipped.push_back(entry);
                                }};
  Expected<void> read = ptx::visit_ptx_modules(
      {reinterpret_cast<const std::byte*>(bytes->data()), bytes->size()}, visitor, limits);
  if (!read) {
    std::string hint = read.error().code == ErrorCode::resource_exhausted
                           ? " (--max-decompressed SIZE raises the limit in all)"
                           : "";
    return fail(io, global.json, ExitCode::local_error,
                "ptx inspect: " + cmd.path + ": " + read.error().message + hint);
  }
  return print(
      io, global.json, [&] { return ptx_inspect_text(modules, skipped, cmd.path); },
      [&](JsonWriter& doc) { ptx_inspect_json(doc, modules, skipped, cmd.path); });
}

// Local only: the recipe's passes over one module of FILE; counts on stderr, PTX on stdout or -o.
int run_ptx_rewrite(const GlobalOptions& global, const PtxRewriteCommand& cmd, Io& io)
{
  Expected<std::string> text = rewrite_ptx(cmd, io.err);
  if (!text) {
    return fail(io, global.json, ExitCode::local_error, "ptx rewrite: " + text.error().message);
  }
  if (cmd.out_path.empty()) {
    io.out << *text;
    return to_int(ExitCode::success);
  }
  if (Expected<void> written = write_file_atomically(cmd.out_path, *text); !written) {
    return fail(io, global.json, ExitCode::local_error, "ptx rewrite: " + written.error().message);
  }
  return to_int(ExitCode::success);
}

// Local only: the "rewrite, then translate" build of one module; a code object to -o, or IR.
int run_ptx_translate(const GlobalOptions& global, const PtxTranslateCommand& cmd, Io& io)
{
  Expected<TranslateOutput> output = translate_ptx_file(cmd, io.err);
  if (!output) {
    return fail(io, global.json, ExitCode::local_error, "ptx translate: " + output.error().message);
  }
  std::string bytes = cmd.emit_llvm ? output->llvm_ir
                                    : std::string(reinterpret_cast<const char*>(output->code_object.data()),
                                                  output->code_object.size());
  if (cmd.out_path.empty()) {
    io.out << bytes;
    return to_int(ExitCode::success);
  }
  if (Expected<void> written = write_file_atomically(cmd.out_path, bytes); !written) {
    return fail(io, global.json, ExitCode::local_error, "ptx translate: " + written.error().message);
  }
  return to_int(ExitCode::success);
}

// Local only: one kernel on the CPU executor; outputs compared with the expected files.
int run_ptx_run(const GlobalOptions& global, const PtxRunCommand& cmd, Io& io)
{
  Expected<RunReport> report = run_ptx_file(cmd);
  if (!report) {
    return fail(io, global.json, ExitCode::local_error, "ptx run: " + report.error().message);
  }
  (void)print(
      io, global.json, [&] { return report->summary; },
      [&](JsonWriter& doc) {
        doc.begin_object().key("kernel").string(cmd.kernel);
        doc.key("compared").number(report->compared).key("mismatches").number(report->mismatches);
        doc.key("summary").string(report->summary).end_object();
      });
  return to_int(report->mismatches == 0 ? ExitCode::success : ExitCode::not_found);
}

int run_version(bool json, Io& io)
{
  return print(
      io, json, [] { return version_text(); },
      [](JsonWriter& doc) { doc.begin_object().key("version").string(D4R_VERSION).end_object(); });
}

} // namespace

int report_usage_error(const Error& error, bool json, Io& io)
{
  int code = fail(io, json, ExitCode::usage, error.message);
  io.err << "Try 'd4r-kernel --help'.\n";
  return code;
}

int run_command(const ParsedCommand& parsed, Io& io)
{
  const GlobalOptions& global = parsed.global;
  return std::visit(
      [&](const auto& cmd) -> int {
        using T = std::decay_t<decltype(cmd)>;
        if constexpr (std::is_same_v<T, HelpCommand>) {
          io.out << help_text(cmd.topic);
          return to_int(ExitCode::success);
        } else if constexpr (std::is_same_v<T, VersionCommand>) {
          return run_version(global.json, io);
        } else if constexpr (std::is_same_v<T, StatusCommand>) {
          return run_status(global, io);
        } else if constexpr (std::is_same_v<T, ResolveCommand>) {
          return run_resolve(global, cmd, io);
        } else if constexpr (std::is_same_v<T, ImportCommand>) {
          return run_import(global, cmd, io);
        } else if constexpr (std::is_same_v<T, ListCommand>) {
          return run_list(global, cmd, io);
        } else if constexpr (std::is_same_v<T, PtxInspectCommand>) {
          return run_ptx_inspect(global, cmd, io);
        } else if constexpr (std::is_same_v<T, PtxRewriteCommand>) {
          return run_ptx_rewrite(global, cmd, io);
        } else if constexpr (std::is_same_v<T, PtxTranslateCommand>) {
          return run_ptx_translate(global, cmd, io);
        } else if constexpr (std::is_same_v<T, PtxRunCommand>) {
          return run_ptx_run(global, cmd, io);
        } else if constexpr (std::is_same_v<T, ExportCommand>) {
          return run_export(global, cmd, io);
        } else if constexpr (std::is_same_v<T, PinCommand>) {
          return run_pin(global, cmd, io);
        } else if constexpr (std::is_same_v<T, WarmCommand>) {
          return run_warm(global, cmd, io);
        } else if constexpr (std::is_same_v<T, MetricsCommand>) {
          return run_metrics(global, io);
        } else if constexpr (std::is_same_v<T, ConfigCommand>) {
          return run_config(config_inputs_from_process(global, cmd), global.json, io.out);
        } else if constexpr (std::is_same_v<T, DoctorCommand>) {
          return run_doctor(doctor_inputs_from_process(global, cmd), global.json, io.out);
        } else if constexpr (std::is_same_v<T, TokenCommand>) {
          return run_token_command(cmd, global.json, io.out, io.err);
        } else if constexpr (std::is_same_v<T, KeyCommand>) {
          return run_key_command(cmd, global.json, io.out, io.err);
        } else {
          static_assert(std::is_same_v<T, PurgeCommand>, "every command is handled");
          return run_purge(global, cmd, io);
        }
      },
      parsed.command);
}

} // namespace d4r::cli
