#pragma once
// A d4rk_compiled_key read field by field (up to its struct_size), checked and in canonical form
// (util/compiled_key.hpp), and written into its protobuf form.

#include "client/d4r_kernel_client.h"
#include "util/compiled_key.hpp"
#include "util/error.hpp"

namespace d4r::kernel::v1 {
class CompiledKey;
}

namespace d4r::client {

// invalid_argument naming the field for a NULL key or string, a struct_size of 0, a digest that is
// not 64 hex digits, an unknown mode, or what make_compiled_key refuses. D4RK_MODE_FROM_ENVIRONMENT
// is `client_mode`.
[[nodiscard]] Expected<CompiledKey> read_compiled_key(const d4rk_compiled_key* key, Mode client_mode);

void fill_compiled_key(const CompiledKey& key, d4r::kernel::v1::CompiledKey& to);

} // namespace d4r::client
