#include "daemon/compiled_wire.hpp"

#include "daemon/wire.hpp"

namespace d4r::daemon::wire {

Expected<CompiledKey> to_compiled_key(const pb::CompiledKey& key, Mode default_mode)
{
  TRY_ASSIGN(const Sha256 module_sha256, to_sha256(key.module_sha256()));
  TRY_ASSIGN(const std::optional<Mode> mode, to_mode(key.mode()));
  std::vector<std::string> options(key.options().begin(), key.options().end());
  return make_compiled_key(module_sha256, key.compiler_identity(), key.target(),
                           std::move(options), mode.value_or(default_mode));
}

void fill_lookup_compiled_reply(CompiledLookup answer, pb::LookupCompiledReply& reply)
{
  reply.set_found(answer.found);
  if (!answer.found) {
    reply.set_reason(answer.reason);
    return;
  }
  reply.set_mode(to_proto(answer.mode));
  pb::CodeObject& object = *reply.mutable_object();
  object.set_sha256(answer.digest.data(), answer.digest.size());
  object.set_size(answer.size);
  if (!answer.object_path.empty()) {
    object.set_path(answer.object_path.string());
  } else {
    object.set_data(answer.object_bytes.data(), answer.object_bytes.size());
  }
}

void fill_compiled_stats(CompiledStore& store, pb::StatusReply& reply)
{
  for (pb::StoreStats& out : *reply.mutable_stores()) {
    Expected<std::optional<Mode>> mode = to_mode(out.mode());
    if (!mode || !*mode) {
      continue;
    }
    if (Expected<CompiledStats> stats = store.stats(**mode)) {
      out.set_compiled_entries(stats->entries);
      out.set_compiled_bytes(stats->bytes);
    }
  }
}

} // namespace d4r::daemon::wire
