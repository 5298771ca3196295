#include "cli/key_command.hpp"

#include "cli/exit_code.hpp"
#include "cli/json_writer.hpp"
#include "trust/key_file.hpp"
#include "trust/key_location.hpp"
#include "util/environment.hpp"

namespace d4r::cli {

namespace {

int fail(const std::string& message, bool json, std::ostream& out, std::ostream& err)
{
  err << "d4r-kernel: key: " << message << '\n';
  if (json) {
    JsonWriter doc;
    doc.begin_object().key("error").string(message).end_object();
    out << doc.text() << '\n';
  }
  return to_int(ExitCode::local_error);
}

} // namespace

std::string_view key_help()
{
  return R"(usage: d4r-kernel key show [--key-file FILE] [--json]

Prints the public key this machine's d4r-kerneld signs the code objects it builds for other
machines with, as the text their daemons pin (ed25519:BASE64). Every result a build server sends
is signed over the object, its cache key and its launch metadata; a client refuses one that is
unsigned or signed by any other key.

The private key is $XDG_STATE_HOME/d4r-kerneld/signing.key (else
~/.local/state/d4r-kerneld/signing.key), mode 0600, or the daemon's --signing-key FILE: pass
the same FILE here. When there is no key yet, it is made now, as the daemon makes it on first use.
A key file that others could read is made 0600 with a warning; remove the file to make a new key
(every client must then pin the new one).

exit status: 0 shown, 2 usage error, 6 the key file could not be read, made or trusted
)";
}

Expected<KeyCommand>
parse_key_command(const std::vector<std::pair<std::string, std::string>>& options,
                  const std::vector<std::string>& positionals)
{
  if (positionals.size() != 1 || positionals.front() != "show") {
    return make_error(ErrorCode::invalid_argument,
                      "key: expected 'key show' (see d4r-kernel help key)");
  }
  KeyCommand command;
  for (const auto& [name, value] : options) {
    if (name != "--key-file") {
      return make_error(ErrorCode::invalid_argument, "key: unexpected option " + name);
    }
    if (value.empty()) {
      return make_error(ErrorCode::invalid_argument, "--key-file: the path is empty");
    }
    command.key_file = value;
  }
  return command;
}

int run_key(const std::filesystem::path& key_file, bool json, std::ostream& out,
            std::ostream& err)
{
  Expected<trust::LoadedKey> loaded = trust::load_or_create_key_file(key_file);
  if (!loaded) {
    return fail(loaded.error().message, json, out, err);
  }
  for (const std::string& warning : loaded->warnings) {
    err << "d4r-kernel: key: warning: " << warning << '\n';
  }
  std::string public_key = trust::to_text(loaded->key.public_key());
  if (json) {
    JsonWriter doc;
    doc.begin_object().key("public_key").string(public_key);
    doc.key("key_file").string(key_file.string()).key("created").boolean(loaded->created);
    doc.key("warnings").begin_array();
    for (const std::string& warning : loaded->warnings) {
      doc.string(warning);
    }
    doc.end_array().end_object();
    out << doc.text() << '\n';
    return to_int(ExitCode::success);
  }
  out << public_key << '\n';
  err << (loaded->created ? "created " : "from ") << key_file.string() << '\n';
  return to_int(ExitCode::success);
}

int run_key_command(const KeyCommand& command, bool json, std::ostream& out, std::ostream& err)
{
  std::optional<std::filesystem::path> path =
      command.key_file.empty() ? trust::default_signing_key_path(environment_from_process())
                               : std::optional<std::filesystem::path>(command.key_file);
  if (!path) {
    return fail("no key file: set --key-file, XDG_STATE_HOME or HOME", json, out, err);
  }
  return run_key(*path, json, out, err);
}

} // namespace d4r::cli
