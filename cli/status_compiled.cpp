#include "cli/status_compiled.hpp"

#include "cli/output.hpp"

namespace d4r::cli {

namespace {

std::string cap_text(int64_t max_bytes)
{
  return max_bytes > 0 ? format_bytes(max_bytes) : "unlimited";
}

} // namespace

std::string compiled_store_text(const pb::StatusReply& reply)
{
  if (reply.stores().empty()) {
    return {};
  }
  std::string out = "zluda compiles:";
  const char* separator = " ";
  for (const pb::StoreStats& s : reply.stores()) {
    out += separator + mode_name(s.mode()) + " " + std::to_string(s.compiled_entries()) +
           (s.compiled_entries() == 1 ? " entry, " : " entries, ") +
           format_bytes(s.compiled_bytes()) + " of " + cap_text(s.max_bytes());
    separator = "; ";
  }
  // Why "of": they are rows of the same store, so the store's cap and its eviction bound them.
  return out + " (in the stores above, sharing their cap)\n";
}

void compiled_store_json(JsonWriter& json, const pb::StatusReply& reply)
{
  json.key("compiled_store").begin_array();
  for (const pb::StoreStats& s : reply.stores()) {
    json.begin_object();
    json.key("mode").string(mode_name(s.mode()));
    json.key("entries").number(s.compiled_entries());
    json.key("bytes").number(s.compiled_bytes());
    json.key("max_bytes").number(s.max_bytes());
    json.end_object();
  }
  json.end_array();
}

} // namespace d4r::cli
