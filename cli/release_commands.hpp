#pragma once
// `d4r-kernel export` and `pin` / `unpin` (release_options.hpp): one RPC each to the daemon, which
// owns the cache; the reply as text or JSON.

#include "cli/commands.hpp"
#include "cli/release_options.hpp"

namespace d4r::cli {

[[nodiscard]] int run_export(const GlobalOptions& global, const ExportCommand& cmd, Io& io);
[[nodiscard]] int run_pin(const GlobalOptions& global, const PinCommand& cmd, Io& io);

} // namespace d4r::cli
