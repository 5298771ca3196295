#pragma once
// `d4r-kernel key show [--key-file FILE] [--json]`: the public half of the key this machine's
// d4r-kerneld signs remote results with (trust/key_file.hpp), as the text a client pins
// ("ed25519:" + base64). Local: the key file is read here, from where the daemon keeps it
// ($XDG_STATE_HOME/d4r-kerneld/signing.key unless --key-file names the daemon's --signing-key);
// when there is none yet it is made, as the daemon would on first use, so that it can be pinned
// before the server first starts.

#include "util/error.hpp"

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace d4r::cli {

struct KeyCommand {
  std::string key_file; // --key-file; empty: the daemon's default
};

[[nodiscard]] std::string_view key_help();

[[nodiscard]] Expected<KeyCommand>
parse_key_command(const std::vector<std::pair<std::string, std::string>>& options,
                  const std::vector<std::string>& positionals);

// The public key on stdout (the one line a script takes), what happened to the file on stderr.
// Exit status: 0 shown, 6 the key file could not be read, made or trusted.
[[nodiscard]] int run_key(const std::filesystem::path& key_file, bool json, std::ostream& out,
                          std::ostream& err);

// run_key with the command's file, else the default from the process's environment.
[[nodiscard]] int run_key_command(const KeyCommand& command, bool json, std::ostream& out,
                                  std::ostream& err);

} // namespace d4r::cli
