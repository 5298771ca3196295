#include "cache/metadata_migration.hpp"

#include "cache/launch_metadata.hpp"
#include "cache/row_check.hpp"

#include <bit>
#include <cstring>
#include <span>
#include <string>
#include <vector>

namespace d4r::cache {

namespace {

static constexpr char k_select_rows[] =
    "SELECT id, module_hash, kernel, target, variant, toolchain, recipe, digest, size, metadata, "
    "source, row_check FROM entries WHERE length(metadata) > 0 ORDER BY id";
static constexpr char k_update_row[] = "UPDATE entries SET metadata = ?, row_check = ? WHERE id = ?";

struct Row {
  int64_t id = 0;
  CacheKey key;
  Sha256 digest{};
  bool digest_ok = false;
  int64_t size = 0;
  std::string metadata;
  std::string source;
  std::string check;
};

std::string text_of(std::span<const std::byte> blob)
{
  return std::string(reinterpret_cast<const char*>(blob.data()), blob.size());
}

std::span<const std::byte> bytes_of(const std::string& text)
{
  return std::as_bytes(std::span<const char>(text.data(), text.size()));
}

Expected<std::vector<Row>> read_rows(db::Database& database)
{
  TRY_ASSIGN(db::Statement* select, database.cached(k_select_rows));
  std::vector<Row> rows;
  while (true) {
    TRY_ASSIGN(const bool more, select->step());
    if (!more) {
      break;
    }
    Row& row = rows.emplace_back();
    row.id = select->column_int64(0);
    row.key = CacheKey{std::bit_cast<uint64_t>(select->column_int64(1)), select->column_text(2),
                       select->column_text(3), select->column_text(4), select->column_text(5),
                       select->column_text(6)};
    std::span<const std::byte> digest = select->column_blob(7);
    row.digest_ok = digest.size() == row.digest.size();
    if (row.digest_ok) {
      std::memcpy(row.digest.data(), digest.data(), digest.size());
    }
    row.size = select->column_int64(8);
    row.metadata = text_of(select->column_blob(9));
    row.source = select->column_text(10);
    row.check = text_of(select->column_blob(11));
  }
  select->reset();
  return rows;
}

} // namespace

Expected<void> convert_launch_metadata_v1(db::Database& database)
{
  // Read first, then write: no update runs under the open read of the same table.
  TRY_ASSIGN(std::vector<Row> rows, read_rows(database));
  for (const Row& row : rows) {
    if (!row.digest_ok || row.check.empty() ||
        row.check != row_check_of(row.key, row.digest, row.size, row.metadata, row.source)) {
      continue;
    }
    Expected<LaunchMetadata> meta = decode_launch_metadata_v1(row.metadata);
    std::string metadata = row.metadata;
    std::string check; // unchecked: dropped at its first lookup
    if (meta) {
      metadata = encode_launch_metadata(*meta);
      check = row_check_of(row.key, row.digest, row.size, metadata, row.source);
    }
    TRY_ASSIGN(db::Statement* update, database.cached(k_update_row));
    update->bind_blob(1, bytes_of(metadata));
    update->bind_blob(2, bytes_of(check));
    update->bind_int64(3, row.id);
    TRY(update->run());
  }
  return {};
}

} // namespace d4r::cache
