#include "daemon/release/manifest.hpp"

#include "daemon/release/release_file.hpp"
#include "util/digest.hpp"

#include <algorithm>
#include <optional>

namespace d4r::release {

namespace {

// The bridge reads names with a 127-character field (sscanf "%127s"): a longer name never matched.
constexpr size_t k_max_manifest_name = 127;
constexpr int64_t k_max_manifest_bytes = int64_t{16} << 20;

bool is_blank(char c)
{
  return c == ' ' || c == '\t';
}

bool is_name_byte(char c)
{
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
         c == '$';
}

std::vector<std::string_view> split_fields(std::string_view line)
{
  std::vector<std::string_view> fields;
  size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && is_blank(line[i])) {
      ++i;
    }
    size_t start = i;
    while (i < line.size() && !is_blank(line[i])) {
      ++i;
    }
    if (i > start) {
      fields.push_back(line.substr(start, i - start));
    }
  }
  return fields;
}

std::optional<HashOrigin> parse_origin(std::string_view word)
{
  if (word == "sr") {
    return HashOrigin::super_resolution;
  }
  if (word == "rr") {
    return HashOrigin::ray_reconstruction;
  }
  return std::nullopt;
}

// Parses one non-comment line; on failure returns why, for the problem list.
std::expected<ManifestEntry, std::string> parse_line(std::string_view line, int number)
{
  std::vector<std::string_view> fields = split_fields(line);
  if (fields.empty()) {
    return std::unexpected(std::string("blank line"));
  }
  if (fields.size() < 2) {
    return std::unexpected(std::string("expected NAME HASH [sr|rr], got one field"));
  }
  if (fields.size() > 3) {
    return std::unexpected("expected NAME HASH [sr|rr], got " + std::to_string(fields.size()) +
                           " fields");
  }
  std::string_view name = fields[0];
  if (name.size() > k_max_manifest_name) {
    return std::unexpected("name is " + std::to_string(name.size()) + " characters (at most " +
                           std::to_string(k_max_manifest_name) + ")");
  }
  if (!std::all_of(name.begin(), name.end(), is_name_byte)) {
    // Named, so that a reader sees the trick ("../x", "/abs/x"); unprintable bytes as \xNN.
    std::string shown;
    for (char c : name.substr(0, 64)) {
      const auto byte = static_cast<unsigned char>(c);
      shown += byte >= 0x20 && byte < 0x7f ? std::string(1, c)
                                           : std::string("\\x") + "0123456789abcdef"[byte >> 4] +
                                                 "0123456789abcdef"[byte & 15];
    }
    return std::unexpected("name '" + shown + "' has a character outside [A-Za-z0-9_$]");
  }
  std::optional<uint64_t> hash = parse_hash_hex(fields[1]);
  if (!hash) {
    return std::unexpected("hash '" + std::string(fields[1].substr(0, 32)) +
                           "' is not 16 hex digits");
  }
  ManifestEntry entry{std::string(name), *hash, HashOrigin::unrecorded, number};
  if (fields.size() == 3) {
    std::optional<HashOrigin> origin = parse_origin(fields[2]);
    if (!origin) {
      return std::unexpected("origin '" + std::string(fields[2].substr(0, 32)) +
                             "' is neither sr nor rr");
    }
    entry.origin = *origin;
  }
  return entry;
}

} // namespace

Manifest parse_manifest(std::string_view text)
{
  Manifest manifest;
  int number = 0;
  size_t position = 0;
  while (position < text.size()) {
    size_t end = text.find('\n', position);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view line = text.substr(position, end - position);
    position = end + 1;
    ++number;
    if (line.ends_with('\r')) {
      line.remove_suffix(1);
    }
    size_t first = line.find_first_not_of(" \t");
    if (first != std::string_view::npos && line[first] == '#') {
      continue;
    }
    std::expected<ManifestEntry, std::string> entry = parse_line(line, number);
    if (!entry) {
      manifest.problems.push_back("line " + std::to_string(number) + ": " + entry.error());
      continue;
    }
    if (entry->origin != HashOrigin::unrecorded) {
      manifest.records_origin = true;
    }
    manifest.entries.push_back(std::move(*entry));
  }
  return manifest;
}

Expected<Manifest> read_manifest(const std::filesystem::path& path)
{
  TRY_ASSIGN(std::string text,
             read_regular_file<std::string>(path, k_max_manifest_bytes, path.string()));
  return parse_manifest(text);
}

} // namespace d4r::release
