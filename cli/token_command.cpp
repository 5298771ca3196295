#include "cli/token_command.hpp"

#include "cli/exit_code.hpp"
#include "cli/json_writer.hpp"
#include "util/environment.hpp"
#include "util/tokens.hpp"

#include <algorithm>
#include <ctime>

namespace d4r::cli {

namespace {

std::string utc_time(int64_t unix_seconds)
{
  std::time_t seconds = static_cast<std::time_t>(unix_seconds);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%d %H:%M:%S UTC", &parts);
  return text;
}

TokenClient* find_name(TokenFile& file, std::string_view name)
{
  auto found = std::find_if(file.clients.begin(), file.clients.end(),
                            [name](const TokenClient& client) { return client.name == name; });
  return found == file.clients.end() ? nullptr : &*found;
}

int fail(const Error& error, bool json, std::ostream& out, std::ostream& err)
{
  ExitCode code = error.code == ErrorCode::invalid_argument || error.code == ErrorCode::rejected
                      ? ExitCode::usage
                      : ExitCode::local_error;
  err << "d4r-kernel: token: " << error.message << '\n';
  if (json) {
    JsonWriter doc;
    doc.begin_object().key("error").string(error.message).end_object();
    out << doc.text() << '\n';
  }
  return to_int(code);
}

int run_add(const TokenCommand& command, const std::filesystem::path& path, int64_t now,
            bool json, std::ostream& out, std::ostream& err)
{
  Expected<std::string> token = generate_token();
  if (!token) {
    return fail(token.error(), json, out, err);
  }
  Expected<void> updated = update_token_file(path, [&](TokenFile& file) -> Expected<void> {
    TokenClient fresh{command.name, token_hash(*token), now, 0};
    TokenClient* existing = find_name(file, command.name);
    if (existing != nullptr && existing->revoked_unix == 0) {
      return make_error(ErrorCode::rejected, "client " + command.name +
                                                 " has a token already (revoke it first)");
    }
    if (existing != nullptr) {
      *existing = fresh; // a revoked name comes back with a new token
    } else {
      file.clients.push_back(fresh);
    }
    return {};
  });
  if (!updated) {
    return fail(updated.error(), json, out, err);
  }
  if (json) {
    JsonWriter doc;
    doc.begin_object().key("name").string(command.name).key("token").string(*token);
    doc.key("created_unix").number(now).key("token_file").string(path.string()).end_object();
    out << doc.text() << '\n';
    return to_int(ExitCode::success);
  }
  out << "client " << command.name << " added to " << path.string() << "\n"
      << "its token (shown this once; the file keeps only its SHA-256):\n"
      << *token << "\n";
  return to_int(ExitCode::success);
}

int run_list(const std::filesystem::path& path, bool json, std::ostream& out, std::ostream& err)
{
  Expected<TokenFile> file = read_token_file(path);
  if (!file) {
    return fail(file.error(), json, out, err);
  }
  if (json) {
    JsonWriter doc;
    doc.begin_object().key("token_file").string(path.string()).key("clients").begin_array();
    for (const TokenClient& client : file->clients) {
      doc.begin_object().key("name").string(client.name).key("created_unix").number(client.created_unix);
      doc.key("revoked").boolean(client.revoked_unix != 0);
      doc.key("revoked_unix").number(client.revoked_unix).end_object();
    }
    doc.end_array().end_object();
    out << doc.text() << '\n';
    return to_int(ExitCode::success);
  }
  out << "token file " << path.string() << ": " << file->clients.size() << " clients\n";
  for (const TokenClient& client : file->clients) {
    out << "  " << client.name << "  created " << utc_time(client.created_unix);
    if (client.revoked_unix != 0) {
      out << "  revoked " << utc_time(client.revoked_unix);
    }
    out << '\n';
  }
  return to_int(ExitCode::success);
}

int run_revoke(const TokenCommand& command, const std::filesystem::path& path, int64_t now,
               bool json, std::ostream& out, std::ostream& err)
{
  bool already = false;
  Expected<void> updated = update_token_file(path, [&](TokenFile& file) -> Expected<void> {
    TokenClient* existing = find_name(file, command.name);
    if (existing == nullptr) {
      return make_error(ErrorCode::rejected, "no client " + command.name + " in " + path.string());
    }
    already = existing->revoked_unix != 0;
    existing->revoked_unix = already ? existing->revoked_unix : now;
    return {};
  });
  if (!updated) {
    return fail(updated.error(), json, out, err);
  }
  if (json) {
    JsonWriter doc;
    doc.begin_object().key("name").string(command.name).key("revoked").boolean(true);
    doc.key("already_revoked").boolean(already).key("token_file").string(path.string()).end_object();
    out << doc.text() << '\n';
    return to_int(ExitCode::success);
  }
  out << "client " << command.name << (already ? " was revoked already" : " revoked")
      << "; the daemon refuses its token from its next request\n";
  return to_int(ExitCode::success);
}

} // namespace

std::string_view token_help()
{
  return R"(usage: d4r-kernel token add NAME [--token-file FILE]
       d4r-kernel token list [--token-file FILE]
       d4r-kernel token revoke NAME [--token-file FILE]

The named clients of a build server (d4r-kerneld --listen HOST:PORT). Each client sends its token
as "authorization: Bearer TOKEN" over TLS; the file keeps only the token's SHA-256 (0600, replaced
atomically), and the daemon reads it again when it changes, so add and revoke need no restart.

  add NAME     a new client with a new random token (32 bytes), printed once: keep it
  list         the clients, when each was added and revoked (never a token)
  revoke NAME  refuse NAME's token from now on (add NAME again gives it a new one)

NAME: 1 to 64 letters, digits, '.', '_' or '-'; it names the client in the daemon's log and
metrics.

options:
  --token-file FILE  the daemon's --token-file (default $XDG_STATE_HOME/d4r-kerneld/tokens,
                     else ~/.local/state/d4r-kerneld/tokens)
  --json             one JSON document (add: {"name", "token", ...})

exit status: 0 done, 2 usage error (a bad name, an existing or unknown client), 6 the file could
not be read or written
)";
}

Expected<TokenCommand>
parse_token_command(const std::vector<std::pair<std::string, std::string>>& options,
                    const std::vector<std::string>& positionals)
{
  TokenCommand command;
  for (const auto& [name, value] : options) {
    if (name == "--token-file") {
      command.token_file = value;
    }
  }
  if (positionals.empty()) {
    return make_error(ErrorCode::invalid_argument, "token: expected add NAME, list or revoke NAME");
  }
  const std::string& action = positionals.front();
  if (action == "list") {
    if (positionals.size() != 1) {
      return make_error(ErrorCode::invalid_argument, "token list takes no NAME");
    }
    command.action = TokenCommand::Action::list;
    return command;
  }
  if (action != "add" && action != "revoke") {
    return make_error(ErrorCode::invalid_argument,
                      "token: unknown action '" + action.substr(0, 64) + "' (add, list, revoke)");
  }
  if (positionals.size() != 2) {
    return make_error(ErrorCode::invalid_argument, "token " + action + " takes one NAME");
  }
  command.action = action == "add" ? TokenCommand::Action::add : TokenCommand::Action::revoke;
  command.name = positionals[1];
  TRY(validate_client_name(command.name));
  return command;
}

Expected<std::filesystem::path> token_file_of(const TokenCommand& command)
{
  if (!command.token_file.empty()) {
    std::error_code ec;
    return std::filesystem::absolute(command.token_file, ec);
  }
  return default_token_file(d4r::environment_from_process());
}

int run_token_command(const TokenCommand& command, bool json, std::ostream& out, std::ostream& err)
{
  Expected<std::filesystem::path> path = token_file_of(command);
  if (!path) {
    return fail(path.error(), json, out, err);
  }
  return run_token(command, *path, static_cast<int64_t>(std::time(nullptr)), json, out, err);
}

int run_token(const TokenCommand& command, const std::filesystem::path& token_file,
              int64_t now_unix, bool json, std::ostream& out, std::ostream& err)
{
  switch (command.action) {
  case TokenCommand::Action::add:
    return run_add(command, token_file, now_unix, json, out, err);
  case TokenCommand::Action::list:
    return run_list(token_file, json, out, err);
  case TokenCommand::Action::revoke:
    return run_revoke(command, token_file, now_unix, json, out, err);
  }
  D4R_UNREACHABLE("an action the switch covers");
}

} // namespace d4r::cli
