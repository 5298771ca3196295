#pragma once
// `d4r-kernel status`'s line for the hook's own compiled modules (ZLUDA's compiles shared through
// the daemon, client/zluda_compiles.md): per mode their entries and bytes, and the cap they share
// with the replacements (each mode's store cap, LRU across both). Pure functions of the reply.

#include "cli/json_writer.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <string>

namespace d4r::cli {

// "zluda compiles: fast 3 entries, 1.5 MiB of 4.0 GiB; accuracy 0 entries, 0 B of 4.0 GiB ..."
[[nodiscard]] std::string compiled_store_text(const ::d4r::kernel::v1::StatusReply& reply);
// Writes the key "compiled_store" (an array, one object per mode) into the open object.
void compiled_store_json(JsonWriter& json, const ::d4r::kernel::v1::StatusReply& reply);

} // namespace d4r::cli
