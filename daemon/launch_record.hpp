#pragma once
// The launch metadata a build or a release object yields (compiler/launch_meta.hpp), as the cache
// keeps it (cache/launch_metadata.hpp): one conversion, for every path that inserts an object.

#include "cache/launch_metadata.hpp"
#include "compiler/launch_meta.hpp"

#include <string>

namespace d4r::daemon {

[[nodiscard]] cache::LaunchMetadata launch_record_of(const compiler::LaunchMeta& meta);
// launch_record_of, encoded as the cache stores it.
[[nodiscard]] std::string encoded_launch_record(const compiler::LaunchMeta& meta);

} // namespace d4r::daemon
