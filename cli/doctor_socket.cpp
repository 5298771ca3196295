// The doctor's daemon checks: the socket (the CLI's path rule, default_socket_path), its kind,
// owner and mode; a Status RPC with a short deadline; and the systemd user units, read from the
// unit folders (no systemctl: it may not run, and a user manager may not be there to ask).

#include "cli/doctor_checks.hpp"

#include "cli/daemon_client.hpp"
#include "cli/output.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

namespace d4r::cli::doctor {

namespace {

constexpr const char* k_socket_unit = "d4r-kerneld.socket";
constexpr const char* k_service_unit = "d4r-kerneld.service";

std::string kind_of(mode_t mode)
{
  if (S_ISREG(mode)) {
    return "regular file";
  }
  if (S_ISDIR(mode)) {
    return "directory";
  }
  if (S_ISLNK(mode)) {
    return "symbolic link";
  }
  if (S_ISFIFO(mode)) {
    return "fifo";
  }
  return "special file";
}

bool is_socket(const std::string& path)
{
  struct stat info {};
  return ::lstat(path.c_str(), &info) == 0 && S_ISSOCK(info.st_mode);
}

void check_socket_rule(Context& context)
{
  const std::string& path = context.inputs.socket;
  const std::string rule = default_socket_path(context.inputs.cli_environment);
  if (path == rule) {
    context.ok("socket", path + " (the default: $XDG_RUNTIME_DIR/d4r-kerneld/socket)");
    return;
  }
  const bool from_env = context.inputs.cli_environment.kerneld_socket == path;
  context.warn("socket",
               path + " (from " + (from_env ? "D4R_KERNELD_SOCKET" : "--socket") +
                   ") is not where games connect: " + rule,
               "games' hooks use the default path (only the CLI reads D4R_KERNELD_SOCKET); run the "
               "daemon there (d4r-kerneld.socket does)");
}

} // namespace

void check_socket(Context& context)
{
  check_socket_rule(context);
  const std::string& path = context.inputs.socket;
  struct stat info {};
  if (::lstat(path.c_str(), &info) != 0) {
    context.fail("socket", path + ": missing (no daemon listens)",
                 "systemctl --user enable --now d4r-kerneld.socket (or run d4r-kerneld)");
    return;
  }
  if (!S_ISSOCK(info.st_mode)) {
    context.fail("socket", path + ": a " + kind_of(info.st_mode) + ", not a socket",
                 "remove it (rm " + path + "), then systemctl --user restart d4r-kerneld.socket");
    return;
  }
  if (info.st_uid != ::getuid()) {
    context.fail("socket",
                 path + ": owned by uid " + std::to_string(info.st_uid) + ", not by you (uid " +
                     std::to_string(::getuid()) + ")",
                 "another user's daemon, or one started with sudo: stop it, then start yours "
                 "with systemctl --user start d4r-kerneld.socket");
    return;
  }
  if ((info.st_mode & 0077) != 0) {
    context.warn("socket", path + ": mode " + permission_text(info.st_mode) +
                               ", other users may connect",
                 "SocketMode=0600 in d4r-kerneld.socket (the shipped unit has it); restart it");
    return;
  }
  context.ok("socket", path + ": a socket, yours, mode " + permission_text(info.st_mode));
}

void check_daemon(Context& context)
{
  const std::string& path = context.inputs.socket;
  if (!is_socket(path)) {
    return; // the socket line says what to do
  }
  DaemonClient client(path, context.inputs.rpc_timeout_ms);
  Expected<pb::StatusReply> reply = client.status();
  if (!reply) {
    context.fail("daemon", reply.error().message,
                 "journalctl --user -u d4r-kerneld.service -n 50 says why; then systemctl --user "
                 "restart d4r-kerneld.socket");
    return;
  }
  context.status = *reply;
  context.ok("daemon", "d4r-kerneld " + reply->version() + " answers (pid " +
                           std::to_string(reply->pid()) + ", up " +
                           format_duration_ms(reply->uptime_ms()) + ")");
  if (reply->version() != D4R_VERSION) {
    context.warn("daemon",
                 "the daemon is version " + reply->version() + ", this d4r-kernel " D4R_VERSION,
                 "restart the daemon after an upgrade (systemctl --user restart "
                 "d4r-kerneld.service)");
  }
}

namespace {

std::filesystem::path home_folder(const Context& context, const char* variable,
                                  const char* fallback)
{
  std::optional<std::string> value = lookup(context.inputs.environment, variable);
  if (value && value->starts_with("/")) {
    return *value;
  }
  std::optional<std::string> home = lookup(context.inputs.environment, "HOME");
  return home ? std::filesystem::path(*home) / fallback : std::filesystem::path();
}

// The unit folders in the order the doctor looks (the first holding a unit is the one used).
std::vector<std::filesystem::path> unit_folders(const Context& context)
{
  std::vector<std::filesystem::path> folders;
  std::filesystem::path config = home_folder(context, "XDG_CONFIG_HOME", ".config");
  std::filesystem::path data = home_folder(context, "XDG_DATA_HOME", ".local/share");
  if (!config.empty()) {
    folders.push_back(config / "systemd" / "user");
  }
  if (!data.empty()) {
    folders.push_back(data / "systemd" / "user");
  }
  for (const std::filesystem::path& folder : context.inputs.system_unit_dirs) {
    folders.push_back(folder);
  }
  return folders;
}

// The value of the first `KEY=` line of a unit file; "" when it has none.
std::string unit_setting(const std::filesystem::path& unit, std::string_view key)
{
  std::ifstream file(unit);
  std::string line;
  while (std::getline(file, line)) {
    if (line.starts_with(key) && line.size() > key.size() && line[key.size()] == '=') {
      return line.substr(key.size() + 1);
    }
  }
  return "";
}

void check_exec_start(Context& context, const std::filesystem::path& service)
{
  std::string exec = unit_setting(service, "ExecStart");
  size_t start = exec.find_first_not_of("-@:+!");
  exec = start == std::string::npos ? "" : exec.substr(start);
  exec = exec.substr(0, exec.find(' '));
  if (exec.empty()) {
    context.fail("units", service.string() + ": no ExecStart", "reinstall d4r-kerneld's units");
  } else if (::access(exec.c_str(), X_OK) != 0) {
    context.fail("units", service.string() + ": ExecStart=" + exec + " is not an executable",
                 "reinstall d4r-kerneld, or fix the path: systemctl --user edit --full "
                 "d4r-kerneld.service");
  }
}

void check_listen_stream(Context& context, const std::filesystem::path& socket_unit)
{
  std::string listen = unit_setting(socket_unit, "ListenStream");
  std::optional<std::string> runtime = lookup(context.inputs.environment, "XDG_RUNTIME_DIR");
  std::string expanded = listen;
  if (expanded.starts_with("%t")) {
    expanded = (runtime && runtime->starts_with("/") ? *runtime
                                                     : "/run/user/" + std::to_string(::getuid())) +
               expanded.substr(2);
  }
  std::string rule = default_socket_path(context.inputs.cli_environment);
  if (expanded != rule) {
    context.warn("units", socket_unit.string() + ": ListenStream=" + listen + " is not " + rule,
                 "games connect to " + rule + "; use ListenStream=%t/d4r-kerneld/socket");
  }
}

void check_enabled(Context& context, const std::vector<std::filesystem::path>& folders)
{
  // `systemctl --user enable` links the socket into sockets.target.wants of the user's config;
  // `systemctl --global enable` into /etc/systemd/user's.
  std::vector<std::filesystem::path> links;
  if (!folders.empty()) {
    links.push_back(folders.front() / "sockets.target.wants" / k_socket_unit);
  }
  links.push_back(std::filesystem::path("/etc/systemd/user/sockets.target.wants") / k_socket_unit);
  for (const std::filesystem::path& link : links) {
    std::error_code ec;
    if (!std::filesystem::is_symlink(link, ec) && !std::filesystem::exists(link, ec)) {
      continue;
    }
    if (!std::filesystem::exists(link, ec)) {
      context.fail("units", link.string() + ": points to a unit that is gone",
                   "systemctl --user reenable d4r-kerneld.socket");
      return;
    }
    context.ok("units", std::string(k_socket_unit) + " enabled (" + link.string() + ")");
    return;
  }
  context.warn("units", std::string(k_socket_unit) + " is not enabled: the daemon will not start "
                                                     "on a game's first request",
               "systemctl --user enable --now d4r-kerneld.socket");
}

} // namespace

void check_units(Context& context)
{
  std::vector<std::filesystem::path> folders = unit_folders(context);
  std::string looked;
  for (const std::filesystem::path& folder : folders) {
    looked += (looked.empty() ? "" : ", ") + folder.string();
  }
  bool all_found = true;
  for (const char* unit : {k_socket_unit, k_service_unit}) {
    std::optional<std::filesystem::path> found;
    for (const std::filesystem::path& folder : folders) {
      std::error_code ec;
      if (std::filesystem::is_regular_file(folder / unit, ec)) {
        found = folder / unit;
        break;
      }
    }
    if (!found) {
      all_found = false;
      context.warn("units", std::string(unit) + ": not installed (looked in " + looked + ")",
                   "cmake --install build, or copy build/systemd/" + std::string(unit) +
                       " to ~/.config/systemd/user/; then systemctl --user daemon-reload");
      continue;
    }
    context.ok("units", std::string(unit) + " installed: " + found->string());
    if (unit == std::string_view(k_service_unit)) {
      check_exec_start(context, *found);
    } else {
      check_listen_stream(context, *found);
    }
  }
  if (all_found) {
    check_enabled(context, folders);
  }
}

} // namespace d4r::cli::doctor
