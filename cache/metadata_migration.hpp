#pragma once
// Schema version 5: every row's launch metadata from version 1 (the RPC's protobuf message) to
// the cache's own encoding (launch_metadata.hpp), its row check written anew. Runs inside the
// migration step's transaction (schema.cpp).

#include "cache/db.hpp"
#include "util/error.hpp"

namespace d4r::cache {

// Rows with no metadata (the hook's own compiled modules) stay as they are. A row whose check
// does not match (damaged, or from before version 2) is left alone, so that lookup drops it as it
// always has instead of this step vouching for it. One whose metadata does not parse as version 1
// loses its check, so that its first lookup drops it quietly (store.cpp: an unchecked row) and
// it is built or imported again: nothing could serve it.
[[nodiscard]] Expected<void> convert_launch_metadata_v1(db::Database& database);

} // namespace d4r::cache
