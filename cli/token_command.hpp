#pragma once
// `d4r-kernel token add|list|revoke [NAME] [--token-file FILE]`: the named clients of a build
// server (d4r-kerneld --listen), kept in its token file (util/tokens.hpp) as hashes only. `add`
// prints the new token once: it cannot be shown again. Local: the file is written here, and the
// daemon reads it again on its next TCP request, so no restart is needed.

#include "util/error.hpp"

#include <filesystem>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace d4r::cli {

struct TokenCommand {
  enum class Action { add, list, revoke };
  Action action = Action::list;
  std::string name;       // add, revoke
  std::string token_file; // --token-file; empty: the daemon's default
};

[[nodiscard]] std::string_view token_help();

[[nodiscard]] Expected<TokenCommand>
parse_token_command(const std::vector<std::pair<std::string, std::string>>& options,
                    const std::vector<std::string>& positionals);

// `token_file` resolved (the command's, else the default from `environment`); `now_unix` for
// the created and revoked times. The exit status: 0 done, 2 usage, 6 the file could not be
// read or written.
[[nodiscard]] int run_token(const TokenCommand& command, const std::filesystem::path& token_file,
                            int64_t now_unix, bool json, std::ostream& out, std::ostream& err);

// run_token with the file of token_file_of and the clock's time.
[[nodiscard]] int run_token_command(const TokenCommand& command, bool json, std::ostream& out,
                                    std::ostream& err);

// The command's file, else $XDG_STATE_HOME/d4r-kerneld/tokens as the daemon finds it.
[[nodiscard]] Expected<std::filesystem::path> token_file_of(const TokenCommand& command);

} // namespace d4r::cli
