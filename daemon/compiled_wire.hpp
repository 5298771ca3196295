#pragma once
// Protobuf <-> core conversions for the hook's own compiled modules (compiled_store.hpp), beside
// wire.hpp's for the rest.

#include "daemon/compiled_store.hpp"
#include "util/compiled_key.hpp"
#include "util/error.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

namespace d4r::daemon::wire {

// The key checked and in canonical form (make_compiled_key); MODE_UNSPECIFIED: `default_mode`.
[[nodiscard]] Expected<CompiledKey> to_compiled_key(const ::d4r::kernel::v1::CompiledKey& key,
                                                    Mode default_mode);
void fill_lookup_compiled_reply(CompiledLookup answer,
                                ::d4r::kernel::v1::LookupCompiledReply& reply);
// Each store of `reply` gets its compiled_entries and compiled_bytes (a store the count fails for
// keeps 0: Status still answers).
void fill_compiled_stats(CompiledStore& store, ::d4r::kernel::v1::StatusReply& reply);

} // namespace d4r::daemon::wire
