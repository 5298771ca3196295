#pragma once
// `d4r-kernel metrics`: the daemon's Prometheus text-format scrape (the Metrics RPC, rendered by
// the daemon: daemon/metrics_text.hpp), printed as it came, for a node exporter's textfile
// collector or a scrape wrapper. --json wraps it in {"text": ...}.

#include "cli/commands.hpp"
#include "cli/options.hpp"

#include <string_view>

namespace d4r::cli {

[[nodiscard]] int run_metrics(const GlobalOptions& global, Io& io);

[[nodiscard]] std::string_view metrics_help();

} // namespace d4r::cli
