// The exported C functions: argument checks, then one call into Client. This is the one place
// that catches exceptions (gRPC, protobuf and the standard library may throw bad_alloc): each
// export turns one into its fail-open answer, so nothing escapes into the game.

#include "client/d4r_kernel_client.h"

#include "client/client.hpp"
#include "client/compiled_key_input.hpp"

#include <cstring>
#include <new>
#include <string>

struct d4rk_client {
  explicit d4rk_client(d4r::client::ClientOptions options) : client(std::move(options)) {}
  d4r::client::Client client;
};

namespace {

// A handed-out kernel: a copy of the answer's C view plus a share of the answer that keeps the
// mapping and the strings alive. Deriving from the C struct lets d4rk_kernel_free get the handle
// back with a checked static_cast instead of pointer arithmetic.
struct KernelHandle : d4rk_kernel {
  explicit KernelHandle(std::shared_ptr<const d4r::client::KernelAnswer> from)
      : d4rk_kernel(from->view()), owner(std::move(from))
  {
  }
  std::shared_ptr<const d4r::client::KernelAnswer> owner;
};

thread_local std::string g_last_reason;

void set_reason(const char* reason) noexcept
{
  try {
    g_last_reason = reason;
  } catch (...) {
    g_last_reason.clear();
  }
}

int resolve_guarded(d4rk_client* client, uint64_t module_hash, const char* kernel_name,
                    d4rk_kernel** out)
{
  d4r::client::ResolveResult result = client->client.resolve(module_hash, kernel_name);
  if (result.outcome == D4RK_READY) {
    *out = new KernelHandle(std::move(result.answer));
  }
  g_last_reason = result.reason;
  return result.outcome;
}

int lookup_compiled_guarded(d4rk_client* client, const d4rk_compiled_key* key, d4rk_compiled** out)
{
  d4r::Expected<d4r::CompiledKey> read =
      d4r::client::read_compiled_key(key, client->client.selection_mode());
  if (!read) {
    g_last_reason = read.error().message;
    return D4RK_ERROR_INVALID_ARGUMENT;
  }
  d4r::client::CompiledLookupResult result = client->client.lookup_compiled(*read);
  g_last_reason = result.reason;
  if (result.outcome == D4RK_READY) {
    *out = result.answer.release();
  }
  return result.outcome;
}

int store_compiled_guarded(d4rk_client* client, const d4rk_compiled_key* key, const void* object,
                           size_t size, uint32_t flags)
{
  d4r::Expected<d4r::CompiledKey> read =
      d4r::client::read_compiled_key(key, client->client.selection_mode());
  if (!read) {
    g_last_reason = read.error().message;
    return D4RK_ERROR_INVALID_ARGUMENT;
  }
  if (size > D4RK_MAX_COMPILED_BYTES) {
    g_last_reason = "compiled module: object of " + std::to_string(size) +
                    " bytes is larger than the cap of " + std::to_string(D4RK_MAX_COMPILED_BYTES) +
                    " bytes; not stored";
    return D4RK_ERROR_TOO_LARGE;
  }
  d4r::client::CompiledStoreResult result = client->client.store_compiled(
      *read, std::span<const std::byte>(static_cast<const std::byte*>(object), size),
      (flags & D4RK_STORE_WAIT) != 0);
  g_last_reason = result.reason;
  return result.outcome;
}

} // namespace

extern "C" {

D4RK_EXPORT void d4rk_options_init(d4rk_options* options) noexcept
{
  if (!options) {
    return;
  }
  *options = d4rk_options{};
  options->struct_size = sizeof(d4rk_options);
}

D4RK_EXPORT int d4rk_client_create(const d4rk_options* options, d4rk_client** out) noexcept
{
  if (!out) {
    return D4RK_ERROR_INVALID_ARGUMENT;
  }
  *out = nullptr;
  try {
    d4r::Expected<d4r::client::ClientOptions> read = d4r::client::read_options(options);
    if (!read) {
      return D4RK_ERROR_INVALID_ARGUMENT;
    }
    *out = new d4rk_client(std::move(*read));
    return D4RK_OK;
  } catch (const std::bad_alloc&) {
    return D4RK_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    return D4RK_ERROR_INTERNAL;
  }
}

D4RK_EXPORT void d4rk_client_destroy(d4rk_client* client) noexcept
{
  try {
    delete client;
  } catch (...) {
    // A destructor that throws has already left the client half gone; nothing more can be done.
  }
}

D4RK_EXPORT int d4rk_prepare_module(d4rk_client* client, const void* image, size_t size,
                                    d4rk_module_info* out_optional) noexcept
{
  if (!client || !image || size == 0) {
    return D4RK_ERROR_INVALID_ARGUMENT;
  }
  d4r::client::ModuleIdentity module;
  std::string sha256_hex;
  try {
    module = d4r::client::Client::identify(
        std::span<const std::byte>(static_cast<const std::byte*>(image), size));
    sha256_hex = d4r::to_hex(module.sha256);
  } catch (...) {
    return D4RK_ERROR_OUT_OF_MEMORY;
  }
  if (out_optional) {
    out_optional->module_hash = module.hash;
    std::memcpy(out_optional->sha256_hex, sha256_hex.c_str(), sizeof(out_optional->sha256_hex));
    out_optional->entry_count = static_cast<uint32_t>(module.entries.size());
  }
  try {
    client->client.prepare(module);
  } catch (...) {
    // Preparing is advisory: the identity is what the hook needs.
  }
  return D4RK_OK;
}

D4RK_EXPORT int d4rk_resolve(d4rk_client* client, uint64_t module_hash, const char* kernel_name,
                             d4rk_kernel** out) noexcept
{
  if (!out) {
    return D4RK_ERROR_INVALID_ARGUMENT;
  }
  *out = nullptr;
  if (!client || !kernel_name) {
    set_reason("invalid argument");
    return D4RK_ERROR_INVALID_ARGUMENT;
  }
  try {
    return resolve_guarded(client, module_hash, kernel_name, out);
  } catch (...) {
    d4rk_kernel_free(*out);
    *out = nullptr;
    set_reason("client: internal error, not served");
    return D4RK_NOT_FOUND;
  }
}

D4RK_EXPORT int d4rk_lookup_compiled(d4rk_client* client, const d4rk_compiled_key* key,
                                     d4rk_compiled** out) noexcept
{
  if (!out) {
    return D4RK_ERROR_INVALID_ARGUMENT;
  }
  *out = nullptr;
  if (!client) {
    set_reason("invalid argument");
    return D4RK_ERROR_INVALID_ARGUMENT;
  }
  try {
    return lookup_compiled_guarded(client, key, out);
  } catch (...) {
    d4rk_compiled_free(*out);
    *out = nullptr;
    set_reason("client: internal error, not found");
    return D4RK_NOT_FOUND;
  }
}

D4RK_EXPORT int d4rk_store_compiled(d4rk_client* client, const d4rk_compiled_key* key,
                                    const void* object, size_t size, uint32_t flags) noexcept
{
  if (!client || !object || size == 0) {
    set_reason("invalid argument");
    return D4RK_ERROR_INVALID_ARGUMENT;
  }
  try {
    return store_compiled_guarded(client, key, object, size, flags);
  } catch (const std::bad_alloc&) {
    set_reason("client: out of memory, not stored");
    return D4RK_ERROR_OUT_OF_MEMORY;
  } catch (...) {
    set_reason("client: internal error, not stored");
    return D4RK_NOT_STORED;
  }
}

D4RK_EXPORT void d4rk_compiled_free(d4rk_compiled* compiled) noexcept
{
  delete static_cast<d4r::client::CompiledAnswer*>(compiled);
}

D4RK_EXPORT void d4rk_kernel_free(d4rk_kernel* kernel) noexcept
{
  delete static_cast<KernelHandle*>(kernel);
}

D4RK_EXPORT const char* d4rk_last_reason(void) noexcept
{
  return g_last_reason.c_str();
}

} // extern "C"
