#pragma once
// What `d4r-kernel warm` reads from its files: every PTX module (PTX text, a fatbin, or a binary
// with fatbins inside, such as a DLL: compiler/ptx/container.hpp, the reader `ptx inspect` uses),
// with the entry names its hash may authorise after the RR/SR split of the file it came from.
// Module texts are not kept (a DLL holds dozens of MiB of PTX): an upload reads its file again.

#include "cli/warm_options.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::cli {

struct WarmModuleInput {
  uint64_t fnv1a64 = 0;
  Sha256 sha256{};
  std::vector<std::string> entries; // the names its hash may authorise, in order, once each
  int64_t split_out = 0;            // .entry names the RR/SR split left out
  int64_t bytes = 0;
  std::string file;                 // the first file it was found in
};

struct WarmInputs {
  std::vector<WarmModuleInput> modules; // distinct by hash, in the order first found
  int64_t files = 0;
  int64_t skipped_entries = 0; // cubins and other non-PTX fatbin entries
};

// Whether `name`, defined by a module of a file of `origin`, may be asked for with its hash.
[[nodiscard]] bool origin_authorises(WarmOrigin origin, std::string_view name);

[[nodiscard]] Expected<WarmInputs> read_warm_inputs(const WarmCommand& cmd);

// Calls `put` with the text of each module of `cmd`'s files whose hash is in `wanted`, once each.
[[nodiscard]] Expected<void>
for_each_wanted_module(const WarmCommand& cmd, const std::vector<uint64_t>& wanted,
                       const std::function<Expected<void>(const WarmModuleInput&, std::string_view)>& put);

} // namespace d4r::cli
