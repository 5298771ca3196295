#include "cli/config_options.hpp"

namespace d4r::cli {

std::string_view config_help()
{
  return R"(usage: d4r-kernel config [--mode fast|accuracy] [--no-fp8|--fp8]
                         [--no-swin-encoders|--swin-encoders] [--target gfxNNNN] [--json]

Prints every setting a game started from this shell would send, and a d4r-kerneld started here
would use, with its value and where it came from:
  flag     an option on this line (--socket, --mode, --[no-]fp8, --[no-]swin-encoders, --target;
           d4r-kerneld takes the same switch flags and reads them alike)
  env      an environment variable (D4R_PREFER_ACCURACY, D4R_ZLUDA_WMMA_FP8_NATIVE,
           D4R_NATIVE_SWIN_ENCODERS, D4R_GPU_ARCH, D4R_ZLUDA_NATIVE_DIR, D4R_KERNELD_SOCKET)
  file     the config file, $XDG_CONFIG_HOME/d4r-kerneld/config (else ~/.config/d4r-kerneld/config),
           in d4r.ini's syntax: [Kernels] with PreferAccuracy, NativeFp8, NativeSwinEncoders
  default  none of these
Flags win over the environment, which wins over the file. Switches take 1/true/on/yes or
0/false/off/no in any case; any other value is listed as a problem (a game ignores it and logs
it, d4r-kerneld refuses to start). The socket is --socket, else $D4R_KERNELD_SOCKET (only this
tool reads it), else the rule games and the daemon share: $XDG_RUNTIME_DIR/d4r-kerneld/socket,
else /run/user/UID/d4r-kerneld/socket. Nothing is sent to the daemon.

exit status: 0 every value understood, 1 a value or line was not understood, 2 usage error
)";
}

Expected<ConfigCommand>
parse_config_command(const std::vector<std::pair<std::string, std::string>>& options,
                     const std::vector<std::string>& positionals)
{
  if (!positionals.empty()) {
    return make_error(ErrorCode::invalid_argument,
                      "config takes no argument ('" + positionals.front().substr(0, 64) + "')");
  }
  ConfigCommand command;
  for (const auto& [name, value] : options) {
    if (name == "--mode") {
      Expected<Mode> mode = parse_mode(value);
      if (!mode) {
        return make_error(ErrorCode::invalid_argument,
                          "--mode " + value.substr(0, 64) + ": expected fast or accuracy");
      }
      command.mode = *mode;
      apply_mode_flag(*mode == Mode::accuracy, command.switches);
    } else if (apply_switch_flag(name, command.switches)) {
      // --no-fp8, --fp8, --no-swin-encoders, --swin-encoders
    } else if (name == "--target") {
      TRY_ASSIGN(command.target, validate_target(value));
    } else {
      return make_error(ErrorCode::invalid_argument, "config: unexpected option " + name);
    }
  }
  return command;
}

} // namespace d4r::cli
