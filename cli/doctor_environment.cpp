// The doctor's environment checks: the D4R_* variables a game started from this environment sends
// (as the client library reads them, client/client_options.hpp) against what d4r-kerneld reads
// from the same text (daemon/config.hpp), both through util/settings.hpp; misspelt names (the
// names of util/variables.hpp), the config file (~/.config/d4r-kerneld/config) and the daemon's
// own environment file (~/.config/d4r-kerneld/env, which its unit loads).

#include "cli/doctor_checks.hpp"

#include "client/client_options.hpp"
#include "util/boolean_spelling.hpp"
#include "util/kernel_identity.hpp"
#include "util/settings.hpp"
#include "util/variables.hpp"

#include <algorithm>
#include <cctype>
#include <fstream>

namespace d4r::cli::doctor {

namespace {

const std::string k_spellings(k_boolean_spellings);

size_t edit_distance(std::string_view a, std::string_view b)
{
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) {
    row[j] = j;
  }
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string upper(std::string_view text)
{
  std::string result(text);
  for (char& c : result) {
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return result;
}

// The known name closest to `name` when it is close enough to be a slip (a few letters).
std::optional<std::string_view> closest_known(std::string_view name)
{
  std::optional<std::string_view> best;
  size_t best_distance = 0;
  auto consider = [&](std::string_view known) {
    size_t distance = edit_distance(upper(name), known);
    if (!best || distance < best_distance) {
      best = known;
      best_distance = distance;
    }
  };
  for (const VariableInfo& known : k_variables) {
    consider(known.name);
  }
  for (std::string_view known : k_d4r_bridge_variables) {
    consider(known);
  }
  const size_t allowed = std::max<size_t>(2, name.size() / 6);
  return best && best_distance <= allowed ? best : std::nullopt;
}

// A D4R_* name that nothing reads: a slip of case or a few letters from a known one, or unknown.
void check_name(Context& context, const std::string& area, const std::string& name,
                const std::string& where)
{
  if (is_known_variable(name)) {
    return;
  }
  std::optional<std::string_view> known = closest_known(name);
  if (known && upper(name) == *known) {
    context.warn(area, name + where + ": names are case-sensitive, nothing reads this spelling",
                 "rename it " + std::string(*known));
  } else if (known) {
    context.warn(area, name + where + ": no d4r program reads it",
                 "did you mean " + std::string(*known) + "?");
  } else {
    context.warn(area, name + where + ": not a variable d4r or d4r-kerneld reads",
                 "remove it, or check its spelling");
  }
}

// How d4r-kerneld reads one switch: its own parser on that one variable.
Expected<daemon::DaemonConfig> daemon_reading(const std::string& entry)
{
  TRY_ASSIGN(daemon::ParsedConfig parsed, daemon::parse_config({}, {entry, "HOME=/"}));
  return parsed.config;
}

struct SwitchView {
  std::string_view name;
  bool game = false;
};

void check_switch(Context& context, const SwitchView& view, const std::string& value)
{
  const std::string entry = std::string(view.name) + "=" + value;
  auto reading = [&view](const daemon::DaemonConfig& config) {
    if (view.name == k_env_prefer_accuracy) {
      return config.default_mode == Mode::accuracy;
    }
    return view.name == k_env_native_fp8 ? config.fp8_native : config.native_swin_encoders;
  };
  auto word = [&view](bool on) {
    if (view.name == k_env_prefer_accuracy) {
      return std::string(on ? "accuracy" : "fast");
    }
    return std::string(on ? "on" : "off");
  };
  if (!parse_boolean(value)) {
    context.warn("env", entry + ": not a switch value; a game logs it and reads " +
                            word(view.game) + ", d4r-kerneld refuses to start with it",
                 "write " + k_spellings);
    return;
  }
  Expected<daemon::DaemonConfig> daemon = daemon_reading(entry);
  if (!daemon) {
    context.fail("env", entry + ": d4r-kerneld refuses it: " + daemon.error().message,
                 "report this: the daemon and the client read switches with one parser");
    return;
  }
  const bool daemon_on = reading(*daemon);
  if (daemon_on != view.game) {
    context.warn("env", entry + ": a game reads it as " + word(view.game) + ", d4r-kerneld as " +
                            word(daemon_on),
                 "report this: the daemon and the client read switches with one parser");
    return;
  }
  context.ok("env", entry + ": " + word(view.game) + " (game and daemon agree)");
}

void check_values(Context& context)
{
  // As a game's client reads them; what it would log about them is this check's to say.
  d4rk_options options;
  d4rk_options_init(&options);
  options.log_fn = [](void*, const char*) {};
  Expected<client::ClientOptions> game = client::read_options(&options);
  if (!game) {
    context.fail("env", game.error().message, "report this: the client's defaults are refused");
    return;
  }
  const client::Selection& selection = game->selection;
  const SwitchView switches[] = {
      {k_env_prefer_accuracy, selection.mode == Mode::accuracy},
      {k_env_native_fp8, selection.fp8_native},
      {k_env_native_swin_encoders, selection.native_swin_encoders},
  };
  for (const SwitchView& view : switches) {
    if (std::optional<std::string> value = lookup(context.inputs.environment, view.name)) {
      check_switch(context, view, *value);
    }
  }
  if (std::optional<std::string> arch = lookup(context.inputs.environment, "D4R_GPU_ARCH")) {
    if (!arch->starts_with("gfx")) {
      context.warn("env", "D4R_GPU_ARCH=" + *arch + ": ignored (read only when it starts with gfx)",
                   "write the target, e.g. gfx1101, or unset it");
    } else if (!is_known_target(*arch)) {
      context.warn("env", "D4R_GPU_ARCH=" + *arch + ": d4r has no kernels for that target",
                   "unset it, or name your GPU (gfx1100-gfx1103, gfx1200, gfx1201)");
    }
  }
  if (std::optional<std::string> dir = lookup(context.inputs.environment, "D4R_ZLUDA_NATIVE_DIR");
      dir && !dir->starts_with("/")) {
    context.warn("env", "D4R_ZLUDA_NATIVE_DIR=" + *dir + ": a relative path",
                 "write it absolute: the daemon runs in another folder");
  }
  context.ok("env", std::string("a game started here asks for mode ") + to_string(selection.mode) +
                        ", native FP8 " + (selection.fp8_native ? "on" : "off") +
                        ", native Swin encoders " +
                        (selection.native_swin_encoders ? "on" : "off") + ", target " +
                        (selection.target.empty() ? "the daemon's" : selection.target));
}

// $XDG_CONFIG_HOME/d4r-kerneld/config: d4r's [Kernels] switches for games and the daemon, read by
// the code both use (util/settings.hpp).
void check_config_file(Context& context)
{
  Settings settings = read_settings({}, environment_from_entries(context.inputs.environment));
  if (!settings.config_present) {
    return;
  }
  const std::string path = settings.config_path->string();
  for (const std::string& problem : settings.problems) {
    context.fail("config file", problem + ": d4r-kerneld refuses to start, a game ignores it",
                 "fix that line (switches take " + k_spellings + ")");
  }
  for (const std::string& note : settings.notes) {
    context.ok("config file", note);
  }
  if (settings.problems.empty()) {
    context.ok("config file", path + ": d4r-kerneld and games accept it (d4r-kernel config "
                                     "shows what each setting comes from)");
  }
}

// ~/.config/d4r-kerneld/env: the daemon's environment under systemd (EnvironmentFile=).
void check_env_file(Context& context)
{
  std::optional<std::string> home = lookup(context.inputs.environment, "HOME");
  if (!home) {
    return;
  }
  const std::filesystem::path file = std::filesystem::path(*home) / ".config/d4r-kerneld/env";
  std::ifstream stream(file);
  if (!stream) {
    return;
  }
  std::vector<std::string> entries = {"HOME=" + *home};
  std::string line;
  while (std::getline(stream, line)) {
    size_t equals = line.find('=');
    if (line.empty() || line.starts_with("#") || equals == std::string::npos) {
      continue;
    }
    std::string name = line.substr(0, equals);
    if (upper(name).starts_with("D4R_")) {
      check_name(context, "env file", name, " in " + file.string());
    }
    entries.push_back(line);
  }
  Expected<daemon::ParsedConfig> parsed = daemon::parse_config({}, entries);
  if (!parsed) {
    context.fail("env file", file.string() + ": d4r-kerneld refuses to start: " +
                                 parsed.error().message,
                 "fix that line (switches take " + k_spellings + ")");
    return;
  }
  context.ok("env file", file.string() + ": " + std::to_string(entries.size() - 1) +
                             " settings, d4r-kerneld accepts them");
}

} // namespace

void check_environment(Context& context)
{
  std::vector<std::string> names;
  for (const std::string& entry : context.inputs.environment) {
    std::string name = entry.substr(0, entry.find('='));
    if (upper(name).starts_with("D4R_")) {
      names.push_back(name);
    }
  }
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    check_name(context, "env", name, "");
  }
  check_values(context);
  check_config_file(context);
  check_env_file(context);
}

} // namespace d4r::cli::doctor
