#include "cli/output.hpp"

#include "cli/status_compiled.hpp"
#include "cli/status_servers.hpp"
#include "cli/telemetry_output.hpp"
#include "util/digest.hpp"

#include <algorithm>
#include <cassert>
#include <cinttypes>
#include <cstdio>
#include <ctime>
#include <map>
#include <span>

namespace d4r::cli {

namespace {

std::string pad(const std::string& cell, size_t width, Table::Align align)
{
  std::string blanks(width > cell.size() ? width - cell.size() : 0, ' ');
  return align == Table::Align::left ? cell + blanks : blanks + cell;
}

std::string two_digits(int64_t value)
{
  return (value < 10 ? "0" : "") + std::to_string(value);
}

// A two-column table of names and values, for one reply's fields.
std::string fields_text(const std::vector<std::pair<std::string, std::string>>& fields)
{
  Table table({}, {Table::Align::left, Table::Align::left});
  for (const auto& [name, value] : fields) {
    table.add_row({name, value});
  }
  return table.render();
}

std::string resources_text(const pb::KernelResources& r)
{
  return r.name() + ": kernarg " + std::to_string(r.kernarg_size()) + " B (align " +
         std::to_string(r.kernarg_align()) + "), wave " + std::to_string(r.wave_size()) +
         ", sgpr " + std::to_string(r.sgpr_count()) + ", vgpr " + std::to_string(r.vgpr_count()) +
         ", lds " + std::to_string(r.lds_bytes()) + " B, scratch " +
         std::to_string(r.scratch_bytes()) + " B, max workgroup " +
         std::to_string(r.max_workgroup_size());
}

std::string post_text(const pb::PostKernel& post)
{
  return post.name() + ": grid " + std::to_string(post.grid_x()) + "x" +
         std::to_string(post.grid_y()) + ", block " + std::to_string(post.block_x()) + "x" +
         std::to_string(post.block_y()) + "x" + std::to_string(post.block_z()) +
         " (0: the contract's default)";
}

void metadata_fields(const pb::LaunchMetadata& meta,
                     std::vector<std::pair<std::string, std::string>>& fields)
{
  fields.emplace_back("amdhsa target", meta.amdhsa_target());
  fields.emplace_back("main", resources_text(meta.main()));
  if (meta.has_prep()) {
    fields.emplace_back("prep", resources_text(meta.prep()));
    fields.emplace_back("prep blocks", std::to_string(meta.prep_blocks()));
    fields.emplace_back("prep key", "offset " + std::to_string(meta.prep_key_offset()) +
                                        ", key_at " + std::to_string(meta.prep_key_at()) +
                                        ", slots " + std::to_string(meta.prep_key_slots()) +
                                        ", identity_at " + std::to_string(meta.prep_identity_at()));
  }
  fields.emplace_back("block_z", std::to_string(meta.block_z()));
  fields.emplace_back("grid_x", std::to_string(meta.grid_x()));
  for (int i = 0; i < meta.posts_size(); ++i) {
    fields.emplace_back("post" + std::to_string(i + 1), post_text(meta.posts(i)));
  }
}

void resources_json(JsonWriter& json, const pb::KernelResources& r)
{
  json.begin_object();
  json.key("name").string(r.name());
  json.key("kernarg_size").number(r.kernarg_size());
  json.key("kernarg_align").number(r.kernarg_align());
  json.key("wave_size").number(r.wave_size());
  json.key("sgpr_count").number(r.sgpr_count());
  json.key("vgpr_count").number(r.vgpr_count());
  json.key("lds_bytes").number(r.lds_bytes());
  json.key("scratch_bytes").number(r.scratch_bytes());
  json.key("max_workgroup_size").number(r.max_workgroup_size());
  json.end_object();
}

void post_json(JsonWriter& json, const pb::PostKernel& post)
{
  json.begin_object();
  json.key("name").string(post.name());
  json.key("grid_x").number(post.grid_x());
  json.key("grid_y").number(post.grid_y());
  json.key("block_x").number(post.block_x());
  json.key("block_y").number(post.block_y());
  json.key("block_z").number(post.block_z());
  json.end_object();
}

void metadata_json(JsonWriter& json, const pb::LaunchMetadata& meta)
{
  json.begin_object();
  json.key("amdhsa_target").string(meta.amdhsa_target());
  json.key("main");
  resources_json(json, meta.main());
  json.key("prep");
  if (meta.has_prep()) {
    resources_json(json, meta.prep());
  } else {
    json.null();
  }
  json.key("prep_blocks").number(meta.prep_blocks());
  json.key("prep_key_offset").number(meta.prep_key_offset());
  json.key("prep_key_at").number(meta.prep_key_at());
  json.key("prep_key_slots").number(meta.prep_key_slots());
  json.key("prep_identity_at").number(meta.prep_identity_at());
  json.key("block_z").number(meta.block_z());
  json.key("grid_x").number(meta.grid_x());
  json.key("posts").begin_array();
  for (const pb::PostKernel& post : meta.posts()) {
    post_json(json, post);
  }
  json.end_array();
  json.end_object();
}

std::string store_cell(int64_t value)
{
  return std::to_string(value);
}

// The counters map arrives in hash order: sort it so that output is stable.
std::map<std::string, int64_t> sorted_counters(const pb::StatusReply& reply)
{
  return {reply.counters().begin(), reply.counters().end()};
}

} // namespace

Table::Table(std::vector<std::string> headers, std::vector<Align> aligns)
    : m_headers(std::move(headers)), m_aligns(std::move(aligns))
{
  assert((m_headers.empty() || m_headers.size() == m_aligns.size()) && "one header per column");
}

void Table::add_row(std::vector<std::string> cells)
{
  assert(cells.size() == m_aligns.size() && "one cell per column");
  m_rows.push_back(std::move(cells));
}

std::string Table::render() const
{
  std::vector<size_t> widths(m_aligns.size(), 0);
  auto measure = [&widths](const std::vector<std::string>& row) {
    for (size_t c = 0; c < row.size(); ++c) {
      widths[c] = std::max(widths[c], row[c].size());
    }
  };
  measure(m_headers);
  std::for_each(m_rows.begin(), m_rows.end(), measure);
  std::string out;
  auto emit = [&](const std::vector<std::string>& row) {
    std::string line;
    for (size_t c = 0; c < row.size(); ++c) {
      line += (c == 0 ? "" : "  ") + pad(row[c], widths[c], m_aligns[c]);
    }
    line.erase(line.find_last_not_of(' ') + 1);
    out += line + "\n";
  };
  if (!m_headers.empty()) {
    emit(m_headers);
  }
  std::for_each(m_rows.begin(), m_rows.end(), emit);
  return out;
}

std::string format_bytes(int64_t bytes)
{
  if (bytes < 1024) {
    return std::to_string(bytes) + " B";
  }
  constexpr const char* k_units[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(k_units)) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.1f %s", value, k_units[unit]);
  return text;
}

std::string format_duration_ms(int64_t ms)
{
  if (ms < 1000) {
    return std::to_string(std::max<int64_t>(ms, 0)) + " ms";
  }
  int64_t seconds = ms / 1000;
  int64_t days = seconds / 86400;
  int64_t hours = seconds / 3600 % 24;
  int64_t minutes = seconds / 60 % 60;
  int64_t secs = seconds % 60;
  if (days > 0) {
    return std::to_string(days) + "d " + two_digits(hours) + "h " + two_digits(minutes) + "m";
  }
  if (hours > 0) {
    return std::to_string(hours) + "h " + two_digits(minutes) + "m " + two_digits(secs) + "s";
  }
  if (minutes > 0) {
    return std::to_string(minutes) + "m " + two_digits(secs) + "s";
  }
  return std::to_string(secs) + "s";
}

std::string format_unix_ms(int64_t ms)
{
  if (ms <= 0) {
    return "never";
  }
  std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  if (gmtime_r(&seconds, &utc) == nullptr) {
    return std::to_string(ms) + " ms";
  }
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M:%SZ", &utc);
  return text;
}

std::string sha256_hex(std::string_view digest)
{
  if (digest.empty()) {
    return "";
  }
  if (digest.size() != 32) {
    return "<" + std::to_string(digest.size()) + " bytes, not a sha256>";
  }
  return to_hex(std::span(reinterpret_cast<const uint8_t*>(digest.data()), digest.size()));
}

std::string mode_name(pb::Mode mode)
{
  switch (mode) {
  case pb::MODE_FAST:
    return "fast";
  case pb::MODE_ACCURACY:
    return "accuracy";
  case pb::MODE_UNSPECIFIED:
    return "default";
  case pb::Mode_INT_MIN_SENTINEL_DO_NOT_USE_:
  case pb::Mode_INT_MAX_SENTINEL_DO_NOT_USE_:
    break;
  }
  return "mode(" + std::to_string(static_cast<int>(mode)) + ")";
}

std::string outcome_name(pb::ResolveReply::Outcome outcome)
{
  const std::string& name = pb::ResolveReply::Outcome_Name(outcome);
  return name.empty() ? "OUTCOME(" + std::to_string(static_cast<int>(outcome)) + ")" : name;
}

namespace {

// On-demand builds: the totals, then the recent builds (running first) with their reasons.
std::string builds_text(const pb::BuildStats& builds)
{
  std::string out = "\nbuilds: " + std::to_string(builds.queued()) + " queued, " +
                    std::to_string(builds.running()) + " running, " +
                    std::to_string(builds.done()) + " done" +
                    (builds.elsewhere() > 0
                         ? " (" + std::to_string(builds.elsewhere()) + " by other machines)"
                         : std::string()) +
                    ", " + std::to_string(builds.failed()) +
                    " failed (" + std::to_string(builds.negative_hits()) +
                    " answered from the failure cache); " + std::to_string(builds.recipes_size()) +
                    " recipes\n";
  if (builds.recent().empty()) {
    return out;
  }
  using A = Table::Align;
  Table table({"state", "kernel", "target", "mode", "backend", "ms", "reason"},
              {A::left, A::left, A::left, A::left, A::left, A::right, A::left});
  for (const pb::BuildRecord& r : builds.recent()) {
    table.add_row({r.state(), r.kernel(), r.target(), mode_name(r.mode()), r.backend(),
                   std::to_string(r.elapsed_ms()), r.reason().substr(0, 120)});
  }
  return out + table.render();
}

void builds_json(JsonWriter& json, const pb::BuildStats& builds)
{
  json.key("builds").begin_object();
  json.key("queued").number(builds.queued());
  json.key("running").number(builds.running());
  json.key("done").number(builds.done());
  json.key("elsewhere").number(builds.elsewhere());
  json.key("failed").number(builds.failed());
  json.key("negative_hits").number(builds.negative_hits());
  json.key("recipes").begin_array();
  for (const std::string& recipe : builds.recipes()) {
    json.string(recipe);
  }
  json.end_array();
  json.key("toolchains").begin_object();
  std::map<std::string, std::string> toolchains(builds.toolchains().begin(), builds.toolchains().end());
  for (const auto& [target, toolchain] : toolchains) {
    json.key(target).string(toolchain);
  }
  json.end_object();
  json.key("recent").begin_array();
  for (const pb::BuildRecord& r : builds.recent()) {
    json.begin_object();
    json.key("state").string(r.state());
    json.key("recipe").string(r.recipe());
    json.key("kernel").string(r.kernel());
    json.key("target").string(r.target());
    json.key("mode").string(mode_name(r.mode()));
    json.key("backend").string(r.backend());
    json.key("elapsed_ms").number(r.elapsed_ms());
    json.key("reason").string(r.reason());
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

} // namespace

std::string status_text(const pb::StatusReply& reply, std::string_view socket)
{
  std::string out = "d4r-kerneld " + reply.version() + " (pid " + std::to_string(reply.pid()) +
                    "), up " + format_duration_ms(reply.uptime_ms()) + "\n";
  out += fields_text({{"socket", std::string(socket)},
                      {"detected target", reply.detected_target()},
                      {"native dir", reply.native_dir().empty() ? "(none)" : reply.native_dir()}});
  using A = Table::Align;
  Table stores({"mode", "entries", "bytes", "max", "hits", "misses", "evictions", "quarantined"},
               {A::left, A::right, A::right, A::right, A::right, A::right, A::right, A::right});
  for (const pb::StoreStats& s : reply.stores()) {
    stores.add_row({mode_name(s.mode()), store_cell(s.entries()), format_bytes(s.bytes()),
                    s.max_bytes() > 0 ? format_bytes(s.max_bytes()) : "unlimited",
                    store_cell(s.hits()), store_cell(s.misses()), store_cell(s.evictions()),
                    store_cell(s.quarantined())});
  }
  out += "\n" + stores.render() + compiled_store_text(reply);
  Table counters({"counter", "value"}, {A::left, A::right});
  for (const auto& [name, value] : sorted_counters(reply)) {
    counters.add_row({name, std::to_string(value)});
  }
  out += "\n" + (reply.counters().empty() ? std::string("no counters yet\n") : counters.render());
  out += builds_text(reply.builds());
  out += telemetry_text(reply);
  out += tiers_text(reply) + remote_text(reply);
  return out;
}

void status_json(JsonWriter& json, const pb::StatusReply& reply, std::string_view socket)
{
  json.begin_object();
  json.key("socket").string(socket);
  json.key("version").string(reply.version());
  json.key("pid").number(reply.pid());
  json.key("uptime_ms").number(reply.uptime_ms());
  json.key("detected_target").string(reply.detected_target());
  json.key("native_dir").string(reply.native_dir());
  json.key("stores").begin_array();
  for (const pb::StoreStats& s : reply.stores()) {
    json.begin_object();
    json.key("mode").string(mode_name(s.mode()));
    json.key("path").string(s.path());
    json.key("entries").number(s.entries());
    json.key("bytes").number(s.bytes());
    json.key("max_bytes").number(s.max_bytes());
    json.key("hits").number(s.hits());
    json.key("misses").number(s.misses());
    json.key("evictions").number(s.evictions());
    json.key("quarantined").number(s.quarantined());
    json.key("inserts").number(s.inserts());
    json.end_object();
  }
  json.end_array();
  compiled_store_json(json, reply);
  json.key("counters").begin_object();
  for (const auto& [name, value] : sorted_counters(reply)) {
    json.key(name).number(value);
  }
  json.end_object();
  builds_json(json, reply.builds());
  telemetry_json(json, reply);
  tiers_json(json, reply);
  remote_json(json, reply);
  json.end_object();
}

std::string resolve_text(const pb::ResolveReply& reply, std::string_view written_to)
{
  std::vector<std::pair<std::string, std::string>> fields;
  fields.emplace_back("outcome", outcome_name(reply.outcome()));
  if (!reply.reason().empty()) {
    fields.emplace_back("reason", reply.reason());
  }
  fields.emplace_back("target", reply.target());
  fields.emplace_back("mode", mode_name(reply.mode()));
  if (reply.outcome() == pb::ResolveReply::READY) {
    fields.emplace_back("sha256", sha256_hex(reply.object().sha256()));
    fields.emplace_back("size", format_bytes(reply.object().size()) + " (" +
                                    std::to_string(reply.object().size()) + " bytes)");
    if (!written_to.empty()) {
      fields.emplace_back("written to", std::string(written_to));
    }
    metadata_fields(reply.metadata(), fields);
  }
  return fields_text(fields);
}

void resolve_json(JsonWriter& json, const pb::ResolveReply& reply, std::string_view written_to)
{
  bool ready = reply.outcome() == pb::ResolveReply::READY;
  json.begin_object();
  json.key("outcome").string(outcome_name(reply.outcome()));
  json.key("reason").string(reply.reason());
  json.key("target").string(reply.target());
  json.key("mode").string(mode_name(reply.mode()));
  json.key("object");
  if (ready) {
    json.begin_object();
    json.key("sha256").string(sha256_hex(reply.object().sha256()));
    json.key("size").number(reply.object().size());
    json.key("written_to");
    if (written_to.empty()) {
      json.null();
    } else {
      json.string(written_to);
    }
    json.end_object();
  } else {
    json.null();
  }
  json.key("metadata");
  if (ready) {
    metadata_json(json, reply.metadata());
  } else {
    json.null();
  }
  json.end_object();
}

std::string import_text(const pb::ImportReply& reply, std::string_view directory)
{
  std::string out = fields_text(
      {{"directory", directory.empty() ? "(the daemon's native dir)" : std::string(directory)},
       {"imported", std::to_string(reply.imported())},
       {"already present", std::to_string(reply.already_present())},
       {"problems", std::to_string(reply.problems_size())}});
  for (const std::string& problem : reply.problems()) {
    out += "  " + problem + "\n";
  }
  return out;
}

void import_json(JsonWriter& json, const pb::ImportReply& reply, std::string_view directory)
{
  json.begin_object();
  json.key("directory").string(directory);
  json.key("imported").number(reply.imported());
  json.key("already_present").number(reply.already_present());
  json.key("problems").begin_array();
  for (const std::string& problem : reply.problems()) {
    json.string(problem);
  }
  json.end_array();
  json.end_object();
}

std::string list_text(const pb::ListReply& reply)
{
  if (reply.entries().empty()) {
    return "no cached kernels\n";
  }
  using A = Table::Align;
  Table table({"kernel", "module hash", "target", "mode", "size", "sha256", "source", "last used",
               "pinned"},
              {A::left, A::left, A::left, A::left, A::right, A::left, A::left, A::left, A::left});
  for (const pb::CacheEntry& e : reply.entries()) {
    table.add_row({e.kernel(), hash_to_hex(e.module_hash()), e.target(), mode_name(e.mode()),
                   format_bytes(e.size()), sha256_hex(e.sha256()).substr(0, 12), e.source(),
                   format_unix_ms(e.last_used_unix_ms()), e.pinned() ? "pinned" : ""});
  }
  return table.render();
}

void list_json(JsonWriter& json, const pb::ListReply& reply)
{
  json.begin_object();
  json.key("entries").begin_array();
  for (const pb::CacheEntry& e : reply.entries()) {
    json.begin_object();
    json.key("kernel").string(e.kernel());
    json.key("module_hash").string(hash_to_hex(e.module_hash()));
    json.key("target").string(e.target());
    json.key("mode").string(mode_name(e.mode()));
    json.key("size").number(e.size());
    json.key("sha256").string(sha256_hex(e.sha256()));
    json.key("source").string(e.source());
    json.key("last_used_unix_ms").number(e.last_used_unix_ms());
    json.key("pinned").boolean(e.pinned());
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

std::string purge_text(const pb::PurgeReply& reply)
{
  std::string kept = reply.kept_pinned() > 0
                         ? ", kept " + std::to_string(reply.kept_pinned()) +
                               " pinned (--force removes them too)"
                         : "";
  return "removed " + std::to_string(reply.removed_entries()) + " entries (" +
         format_bytes(reply.removed_bytes()) + ")" + kept + "\n";
}

void purge_json(JsonWriter& json, const pb::PurgeReply& reply)
{
  json.begin_object();
  json.key("removed_entries").number(reply.removed_entries());
  json.key("removed_bytes").number(reply.removed_bytes());
  json.key("kept_pinned").number(reply.kept_pinned());
  json.end_object();
}

namespace {

// "1017", or "-" for a module that is not in a fatbin.
std::string offset_cell(int64_t offset)
{
  return offset < 0 ? "-" : std::to_string(offset);
}

void json_offset(JsonWriter& json, int64_t offset)
{
  if (offset < 0) {
    json.null();
  } else {
    json.number(offset);
  }
}

// "sm_86" (PTX for compute_86 says 86 as well); "-" for plain text.
std::string arch_cell(uint32_t arch)
{
  return arch == 0 ? "-" : "sm_" + std::to_string(arch);
}

void json_arch(JsonWriter& json, uint32_t arch)
{
  if (arch == 0) {
    json.null();
  } else {
    json.string(arch_cell(arch));
  }
}

std::string compression_cell(ptx::FatbinCompression compression)
{
  if (compression == ptx::FatbinCompression::none) {
    return "no";
  }
  return std::string("yes (") + ptx::to_string(compression) + ")";
}

} // namespace

std::string ptx_inspect_text(std::span<const ptx::PtxModule> modules,
                             std::span<const ptx::FatbinEntry> skipped, std::string_view path)
{
  std::string text = std::string(path) + ": " + std::to_string(modules.size()) + " PTX module" +
                     (modules.size() == 1 ? "" : "s");
  if (!skipped.empty()) {
    text += ", " + std::to_string(skipped.size()) + " other entr" +
            (skipped.size() == 1 ? "y" : "ies") + " skipped";
  }
  text += "\n";
  for (size_t i = 0; i < modules.size(); ++i) {
    const ptx::PtxModule& module = modules[i];
    std::vector<std::pair<std::string, std::string>> fields;
    fields.emplace_back("fatbin offset", offset_cell(module.fatbin_offset));
    fields.emplace_back("entry offset", offset_cell(module.container_offset));
    fields.emplace_back("arch", arch_cell(module.arch));
    fields.emplace_back("size", std::to_string(module.size) + " B");
    fields.emplace_back("compressed", compression_cell(module.compression));
    fields.emplace_back("fnv1a64", hash_to_hex(module.fnv1a64));
    fields.emplace_back("sha256", to_hex(module.sha256));
    fields.emplace_back("entries", std::to_string(module.entries.size()));
    text += "\nmodule " + std::to_string(i + 1) + "\n" + fields_text(fields);
    for (const std::string& entry : module.entries) {
      text += "  " + entry + "\n";
    }
  }
  if (!skipped.empty()) {
    text += "\nskipped (not PTX, never decompressed)\n";
    for (const ptx::FatbinEntry& entry : skipped) {
      text += "  entry offset " + std::to_string(entry.offset) + ": " + ptx::kind_name(entry.kind) +
              " (kind " + std::to_string(entry.kind) + ") " + arch_cell(entry.arch) + ", " +
              std::to_string(entry.payload_size) + " B, " +
              (entry.compression == ptx::FatbinCompression::none
                   ? std::string("stored")
                   : std::string(ptx::to_string(entry.compression))) +
              "\n";
    }
  }
  return text;
}

void ptx_inspect_json(JsonWriter& json, std::span<const ptx::PtxModule> modules,
                      std::span<const ptx::FatbinEntry> skipped, std::string_view path)
{
  json.begin_object();
  json.key("file").string(path);
  json.key("modules").begin_array();
  for (const ptx::PtxModule& module : modules) {
    json.begin_object();
    json.key("fatbin_offset");
    json_offset(json, module.fatbin_offset);
    json.key("entry_offset");
    json_offset(json, module.container_offset);
    json.key("arch");
    json_arch(json, module.arch);
    json.key("size").number(module.size);
    json.key("compressed").boolean(module.compression != ptx::FatbinCompression::none);
    json.key("compression").string(ptx::to_string(module.compression));
    json.key("fnv1a64").string(hash_to_hex(module.fnv1a64));
    json.key("sha256").string(to_hex(module.sha256));
    json.key("entries").begin_array();
    for (const std::string& entry : module.entries) {
      json.string(entry);
    }
    json.end_array();
    json.end_object();
  }
  json.end_array();
  json.key("skipped").begin_array();
  for (const ptx::FatbinEntry& entry : skipped) {
    json.begin_object();
    json.key("fatbin_offset").number(entry.fatbin_offset);
    json.key("entry_offset").number(entry.offset);
    json.key("kind").string(ptx::kind_name(entry.kind));
    json.key("kind_number").number(static_cast<int64_t>(entry.kind));
    json.key("arch");
    json_arch(json, entry.arch);
    json.key("size").number(entry.payload_size);
    json.key("compression").string(ptx::to_string(entry.compression));
    json.end_object();
  }
  json.end_array();
  json.end_object();
}

} // namespace d4r::cli
