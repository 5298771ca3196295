#include "cli/release_commands.hpp"

#include "cli/daemon_client.hpp"
#include "cli/exit_code.hpp"
#include "cli/json_writer.hpp"
#include "cli/output.hpp"
#include "util/digest.hpp"

#include <grpcpp/grpcpp.h>

#include <chrono>

namespace d4r::cli {

namespace {

pb::Mode to_proto(std::optional<Mode> mode)
{
  if (!mode) {
    return pb::MODE_UNSPECIFIED;
  }
  return *mode == Mode::accuracy ? pb::MODE_ACCURACY : pb::MODE_FAST;
}

const char* mode_name(pb::Mode mode)
{
  return mode == pb::MODE_ACCURACY ? "accuracy" : mode == pb::MODE_FAST ? "fast" : "both";
}

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

std::unique_ptr<pb::KernelService::Stub> stub_for(const std::string& socket)
{
  return pb::KernelService::NewStub(
      grpc::CreateChannel("unix:" + socket, grpc::InsecureChannelCredentials()));
}

void set_deadline(grpc::ClientContext& context, int64_t timeout_ms)
{
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(timeout_ms));
}

std::string export_text(const pb::ExportReply& reply)
{
  std::string text = "exported " + std::to_string(reply.objects()) + " objects (" +
                     std::to_string(reply.manifest_lines()) + " manifest lines) to " +
                     reply.directory() + "\n";
  for (const std::string& folder : reply.folders()) {
    text += "  " + folder + "\n";
  }
  for (const std::string& problem : reply.problems()) {
    text += "left out: " + problem + "\n";
  }
  return text;
}

void export_json(JsonWriter& doc, const pb::ExportReply& reply)
{
  doc.begin_object();
  doc.key("directory").string(reply.directory());
  doc.key("objects").number(reply.objects());
  doc.key("manifest_lines").number(reply.manifest_lines());
  doc.key("folders").begin_array();
  for (const std::string& folder : reply.folders()) {
    doc.string(folder);
  }
  doc.end_array().key("problems").begin_array();
  for (const std::string& problem : reply.problems()) {
    doc.string(problem);
  }
  doc.end_array().end_object();
}

std::string pin_text(const PinCommand& cmd, const pb::PinReply& reply)
{
  std::string text;
  if (cmd.unpin) {
    text = reply.removed() ? "unpinned\n" : "no such pin\n";
  } else if (!cmd.lists()) {
    text = "pinned: " + std::to_string(reply.matched_entries()) + " cached entries match now\n";
  }
  if (reply.pins().empty()) {
    return text + "no pins\n";
  }
  using A = Table::Align;
  Table table({"mode", "kernel", "module hash", "label", "since"},
              {A::left, A::left, A::left, A::left, A::left});
  for (const pb::Pin& pin : reply.pins()) {
    table.add_row({mode_name(pin.mode()), pin.kernel().empty() ? "*" : pin.kernel(),
                   pin.has_module_hash() ? hash_to_hex(pin.module_hash()) : "*", pin.label(),
                   format_unix_ms(pin.created_unix_ms())});
  }
  return text + table.render();
}

void pin_json(JsonWriter& doc, const pb::PinReply& reply)
{
  doc.begin_object();
  doc.key("matched_entries").number(reply.matched_entries());
  doc.key("removed").boolean(reply.removed());
  doc.key("pins").begin_array();
  for (const pb::Pin& pin : reply.pins()) {
    doc.begin_object();
    doc.key("mode").string(mode_name(pin.mode()));
    doc.key("kernel").string(pin.kernel());
    if (pin.has_module_hash()) {
      doc.key("module_hash").string(hash_to_hex(pin.module_hash()));
    } else {
      doc.key("module_hash").null();
    }
    doc.key("label").string(pin.label());
    doc.key("created_unix_ms").number(pin.created_unix_ms());
    doc.end_object();
  }
  doc.end_array().end_object();
}

} // namespace

int run_export(const GlobalOptions& global, const ExportCommand& cmd, Io& io)
{
  pb::ExportRequest request;
  request.set_directory(cmd.directory);
  for (const std::string& target : cmd.targets) {
    request.add_targets(target);
  }
  request.set_mode(to_proto(cmd.mode));
  // Writing every object takes as long as an import does.
  const int64_t timeout_ms = global.timeout_given ? global.timeout_ms : k_import_timeout_ms;
  grpc::ClientContext context;
  set_deadline(context, timeout_ms);
  pb::ExportReply reply;
  grpc::Status status = stub_for(global.socket)->Export(&context, request, &reply);
  if (!status.ok()) {
    return fail(io, global.json, ExitCode::daemon,
                rpc_error(status, global.socket, "Export", timeout_ms).message);
  }
  if (global.json) {
    JsonWriter doc;
    export_json(doc, reply);
    io.out << doc.text() << "\n";
  } else {
    io.out << export_text(reply);
  }
  return to_int(ExitCode::success);
}

int run_pin(const GlobalOptions& global, const PinCommand& cmd, Io& io)
{
  pb::PinRequest request;
  request.set_mode(to_proto(cmd.mode));
  request.set_kernel(cmd.kernel);
  request.set_has_module_hash(cmd.module_hash.has_value());
  request.set_module_hash(cmd.module_hash.value_or(0));
  request.set_label(cmd.label);
  request.set_unpin(cmd.unpin);
  grpc::ClientContext context;
  set_deadline(context, global.timeout_ms);
  pb::PinReply reply;
  grpc::Status status = stub_for(global.socket)->Pin(&context, request, &reply);
  if (!status.ok()) {
    return fail(io, global.json, ExitCode::daemon,
                rpc_error(status, global.socket, cmd.unpin ? "Unpin" : "Pin", global.timeout_ms)
                    .message);
  }
  if (global.json) {
    JsonWriter doc;
    pin_json(doc, reply);
    io.out << doc.text() << "\n";
  } else {
    io.out << pin_text(cmd, reply);
  }
  return to_int(ExitCode::success);
}

} // namespace d4r::cli
