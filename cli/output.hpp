#pragma once
// How d4r-kernel shows replies: aligned tables for people, one JSON document for scripts. Every
// renderer is a pure function of the reply so that tests check the output without a daemon.

#include "cli/json_writer.hpp"
#include "compiler/ptx/container.hpp"

#include "d4r/kernel/v1/kernel.pb.h"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::cli {

namespace pb = d4r::kernel::v1;
namespace ptx = d4r::compiler::ptx;

// Columns separated by two blanks, padded to the widest cell, no trailing blanks.
class Table {
public:
  enum class Align { left, right };

  // One alignment per column; a header row is printed when `headers` is not empty.
  Table(std::vector<std::string> headers, std::vector<Align> aligns);

  void add_row(std::vector<std::string> cells);
  [[nodiscard]] std::string render() const;

private:
  std::vector<std::string> m_headers;
  std::vector<Align> m_aligns;
  std::vector<std::vector<std::string>> m_rows;
};

// "0 B", "512 B", "1.5 KiB", "3.4 MiB", "2.0 GiB".
[[nodiscard]] std::string format_bytes(int64_t bytes);
// "850 ms", "42s", "3m 07s", "2h 03m 04s", "5d 02h 03m".
[[nodiscard]] std::string format_duration_ms(int64_t ms);
// UTC "2024-11-29 14:41:00Z" so that output does not depend on the time zone; "never" for 0.
[[nodiscard]] std::string format_unix_ms(int64_t ms);
// Hex of a 32-byte digest; "" when absent; "<N bytes, not a sha256>" when malformed.
[[nodiscard]] std::string sha256_hex(std::string_view digest);

[[nodiscard]] std::string mode_name(pb::Mode mode);
[[nodiscard]] std::string outcome_name(pb::ResolveReply::Outcome outcome);

[[nodiscard]] std::string status_text(const pb::StatusReply& reply, std::string_view socket);
void status_json(JsonWriter& json, const pb::StatusReply& reply, std::string_view socket);

// `written_to`: where --out stored the code object ("" when not asked).
[[nodiscard]] std::string resolve_text(const pb::ResolveReply& reply, std::string_view written_to);
void resolve_json(JsonWriter& json, const pb::ResolveReply& reply, std::string_view written_to);

[[nodiscard]] std::string import_text(const pb::ImportReply& reply, std::string_view directory);
void import_json(JsonWriter& json, const pb::ImportReply& reply, std::string_view directory);

[[nodiscard]] std::string list_text(const pb::ListReply& reply);
void list_json(JsonWriter& json, const pb::ListReply& reply);

[[nodiscard]] std::string purge_text(const pb::PurgeReply& reply);
void purge_json(JsonWriter& json, const pb::PurgeReply& reply);

// `ptx inspect FILE`: per PTX module its place in FILE, architecture, size, compression, FNV-1a
// 64, SHA-256 and entries (the modules' text is not needed); then the entries that were skipped
// (cubins) with their kind, architecture, size and compression.
[[nodiscard]] std::string ptx_inspect_text(std::span<const ptx::PtxModule> modules,
                                           std::span<const ptx::FatbinEntry> skipped,
                                           std::string_view path);
void ptx_inspect_json(JsonWriter& json, std::span<const ptx::PtxModule> modules,
                      std::span<const ptx::FatbinEntry> skipped, std::string_view path);

} // namespace d4r::cli
