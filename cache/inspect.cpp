#include "cache/inspect.hpp"

#include "cache/db.hpp"
#include "cache/schema.hpp"

namespace d4r::cache {

namespace {

static constexpr char k_count_entries[] = "SELECT COUNT(id) FROM entries";
static constexpr char k_object_bytes[] = "SELECT COALESCE(SUM(size), 0) FROM objects";
static constexpr char k_trash_bytes[] = "SELECT COALESCE(SUM(size), 0) FROM trash";

Expected<int64_t> single_number(db::Database& database, const char* sql)
{
  TRY_ASSIGN(db::Statement * statement, database.cached(sql));
  TRY_ASSIGN(const bool row, statement->step());
  const int64_t value = row ? statement->column_int64(0) : 0;
  statement->reset();
  return value;
}

// Counts regular files below `folder` (and their bytes); a missing folder counts nothing.
void count_files(const std::filesystem::path& folder, int64_t& files, int64_t* bytes)
{
  std::error_code ec;
  std::filesystem::recursive_directory_iterator it(folder, ec);
  for (; !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    std::error_code entry_error;
    if (!it->is_regular_file(entry_error)) {
      continue;
    }
    ++files;
    if (bytes != nullptr) {
      uintmax_t size = it->file_size(entry_error);
      *bytes += entry_error ? 0 : static_cast<int64_t>(size);
    }
  }
}

Expected<void> read_index(const std::filesystem::path& path, StoreInspection& report)
{
  db::DatabaseOptions options;
  options.path = path;
  options.busy_timeout_ms = 1000;
  options.read_only = true;
  TRY_ASSIGN(std::unique_ptr<db::Database> database, db::Database::open(options));
  TRY(database->check_integrity());
  TRY_ASSIGN(report.schema_version, read_schema_version(*database));
  if (report.schema_version > k_schema_version) {
    return make_error(ErrorCode::rejected, "cache: " + path.string() + ": schema version " +
                                               std::to_string(report.schema_version) +
                                               " is newer than this build supports (" +
                                               std::to_string(k_schema_version) + ")");
  }
  TRY_ASSIGN(report.entries, single_number(*database, k_count_entries));
  TRY_ASSIGN(report.object_bytes, single_number(*database, k_object_bytes));
  if (report.schema_version >= 3) {
    TRY_ASSIGN(report.trash_bytes, single_number(*database, k_trash_bytes));
  }
  return {};
}

} // namespace

Expected<StoreInspection> inspect_store(const std::filesystem::path& root)
{
  StoreInspection report;
  count_files(root / "objects", report.files, &report.file_bytes);
  count_files(root / "quarantine", report.quarantined_files, nullptr);
  count_files(root / "damaged", report.damaged_indexes, nullptr);
  std::error_code ec;
  const std::filesystem::path index = root / "index.sqlite";
  report.index_present = std::filesystem::exists(index, ec);
  if (!report.index_present) {
    return report;
  }
  TRY(read_index(index, report));
  return report;
}

} // namespace d4r::cache
