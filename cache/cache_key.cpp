#include "cache/cache_key.hpp"

#include "util/digest.hpp"

#include <optional>
#include <vector>

namespace d4r::cache {

namespace {

constexpr std::string_view k_variant_prefix = "variant=";

std::string escaped(std::string_view field)
{
  std::string out;
  out.reserve(field.size());
  for (char c : field) {
    if (c == '%') {
      out += "%25";
    } else if (c == '|') {
      out += "%7C";
    } else {
      out += c;
    }
  }
  return out;
}

Expected<std::string> unescaped(std::string_view field)
{
  std::string out;
  out.reserve(field.size());
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] != '%') {
      out += field[i];
      continue;
    }
    std::string_view code = field.substr(i + 1, 2);
    if (code == "25") {
      out += '%';
    } else if (code == "7C") {
      out += '|';
    } else {
      return make_error(ErrorCode::invalid_argument,
                        "cache key: bad escape in field '" + std::string(field) + "'");
    }
    i += 2;
  }
  return out;
}

std::vector<std::string_view> split(std::string_view text)
{
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (true) {
    size_t bar = text.find('|', start);
    parts.push_back(text.substr(start, bar == std::string_view::npos ? bar : bar - start));
    if (bar == std::string_view::npos) {
      return parts;
    }
    start = bar + 1;
  }
}

} // namespace

std::string CacheKey::to_text(Mode mode) const
{
  std::string text = std::string(d4r::to_string(mode)) + '|' + escaped(kernel) + '|' +
                     escaped(target) + '|' + escaped(toolchain) + '|' + escaped(recipe);
  if (module_hash != 0) {
    text += '|' + hash_to_hex(module_hash);
  }
  if (!variant.empty()) {
    text += '|' + std::string(k_variant_prefix) + escaped(variant);
  }
  return text;
}

CacheKey CacheKey::kernel_only() const
{
  return CacheKey{module_hash, kernel, target, "", "", ""};
}

std::string CacheKey::describe() const
{
  return "kernel " + kernel + " (ptx " + hash_to_hex(module_hash) + ")";
}

Expected<ParsedKey> parse_key_text(std::string_view text)
{
  std::vector<std::string_view> parts = split(text);
  auto bad = [&](std::string_view why) {
    return make_error(ErrorCode::invalid_argument,
                      "cache key '" + std::string(text) + "': " + std::string(why));
  };
  if (parts.size() < 5 || parts.size() > 7) {
    return bad("not MODE|KERNEL|TARGET|TOOLCHAIN|RECIPE[|HASH][|variant=V]");
  }
  ParsedKey parsed;
  Expected<Mode> mode = parse_mode(parts[0]);
  if (!mode) {
    return bad(mode.error().message);
  }
  parsed.mode = *mode;
  std::string* fields[] = {&parsed.key.kernel, &parsed.key.target, &parsed.key.toolchain,
                           &parsed.key.recipe};
  for (size_t i = 0; i < 4; ++i) {
    TRY_ASSIGN(*fields[i], unescaped(parts[i + 1]));
  }
  size_t next = 5;
  if (next < parts.size() && !parts[next].starts_with(k_variant_prefix)) {
    std::optional<uint64_t> hash = parse_hash_hex(parts[next]);
    if (!hash || *hash == 0 || parts[next] != hash_to_hex(*hash)) {
      return bad("module hash is not 16 lowercase hex digits other than 0");
    }
    parsed.key.module_hash = *hash;
    ++next;
  }
  if (next < parts.size()) {
    if (!parts[next].starts_with(k_variant_prefix) || parts[next] == k_variant_prefix) {
      return bad("expected a non-empty variant=");
    }
    TRY_ASSIGN(parsed.key.variant, unescaped(parts[next].substr(k_variant_prefix.size())));
    ++next;
  }
  if (next != parts.size()) {
    return bad("fields after the variant");
  }
  return parsed;
}

} // namespace d4r::cache
