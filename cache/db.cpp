#include "cache/db.hpp"

#include <sqlite3.h>

#include <chrono>
#include <thread>

namespace d4r::cache::db {

namespace {

// Another process may hold the write lock for longer than the busy timeout (a large purge); a
// few extra rounds keep a busy store from turning into an error at once.
constexpr int k_busy_retries = 3;
constexpr auto k_busy_retry_pause = std::chrono::milliseconds(20);

static constexpr char k_begin_immediate[] = "BEGIN IMMEDIATE";
static constexpr char k_commit[] = "COMMIT";
static constexpr char k_rollback[] = "ROLLBACK";
static constexpr char k_journal_mode_wal[] = "PRAGMA journal_mode=WAL";
static constexpr char k_synchronous_normal[] = "PRAGMA synchronous=NORMAL";

ErrorCode code_of(int rc)
{
  switch (rc & 0xff) {
  case SQLITE_CORRUPT:
  case SQLITE_NOTADB:
    return ErrorCode::corrupt;
  case SQLITE_FULL:
  case SQLITE_IOERR:
  case SQLITE_CANTOPEN:
  case SQLITE_READONLY:
  case SQLITE_PERM:
  case SQLITE_AUTH:
    return ErrorCode::io;
  case SQLITE_BUSY:
  case SQLITE_LOCKED:
    return ErrorCode::unavailable;
  case SQLITE_TOOBIG:
    return ErrorCode::resource_exhausted;
  }
  return ErrorCode::internal;
}

// A read-only connection to a WAL database creates its -wal and -shm files when they are not
// there. Without a -wal file (no writer has it open, the last one checkpointed it away) the main
// file holds everything, so it is opened immutable: no locks, no files made.
std::string read_only_uri(const std::filesystem::path& path)
{
  std::string uri = "file:";
  for (char c : path.string()) {
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char k_hex[] = "0123456789abcdef";
      uri += {'%', k_hex[(c >> 4) & 0xf], k_hex[c & 0xf]};
    } else {
      uri += c;
    }
  }
  std::error_code ec;
  const bool wal = std::filesystem::exists(path.string() + "-wal", ec);
  return uri + (wal ? "?mode=ro" : "?immutable=1");
}

bool is_busy(int rc)
{
  return (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
}

} // namespace

Statement::Statement(Database& database, sqlite3_stmt* statement, const char* sql)
    : m_database(database), m_statement(statement), m_sql(sql)
{
}

Statement::~Statement()
{
  sqlite3_finalize(m_statement);
}

void Statement::bind_int64(int index, int64_t value)
{
  sqlite3_bind_int64(m_statement, index, value);
}

void Statement::bind_text(int index, std::string_view value)
{
  sqlite3_bind_text(m_statement, index, value.data(), static_cast<int>(value.size()),
                    SQLITE_TRANSIENT);
}

void Statement::bind_blob(int index, std::span<const std::byte> value)
{
  // A zero-length blob with a null pointer would bind NULL and break NOT NULL columns.
  static constexpr std::byte k_empty{};
  const void* data = value.empty() ? &k_empty : static_cast<const void*>(value.data());
  sqlite3_bind_blob(m_statement, index, data, static_cast<int>(value.size()), SQLITE_TRANSIENT);
}

Expected<bool> Statement::step()
{
  const int rc = sqlite3_step(m_statement);
  if (rc == SQLITE_ROW) {
    return true;
  }
  if (rc == SQLITE_DONE) {
    return false;
  }
  Error error = m_database.error_from(rc, m_sql);
  sqlite3_reset(m_statement);
  return std::unexpected(std::move(error));
}

Expected<void> Statement::run()
{
  TRY_ASSIGN(const bool row, step());
  (void)row;
  reset();
  return {};
}

void Statement::reset()
{
  sqlite3_reset(m_statement);
  sqlite3_clear_bindings(m_statement);
}

int64_t Statement::column_int64(int index) const
{
  return sqlite3_column_int64(m_statement, index);
}

std::string Statement::column_text(int index) const
{
  const unsigned char* text = sqlite3_column_text(m_statement, index);
  const int size = sqlite3_column_bytes(m_statement, index);
  if (text == nullptr) {
    return {};
  }
  return std::string(reinterpret_cast<const char*>(text), static_cast<size_t>(size));
}

std::span<const std::byte> Statement::column_blob(int index) const
{
  const void* data = sqlite3_column_blob(m_statement, index);
  const int size = sqlite3_column_bytes(m_statement, index);
  if (data == nullptr) {
    return {};
  }
  return {static_cast<const std::byte*>(data), static_cast<size_t>(size)};
}

Database::Database(sqlite3* handle, std::filesystem::path path)
    : m_handle(handle), m_path(std::move(path))
{
}

Database::~Database()
{
  m_statements.clear(); // statements are finalized before the connection closes
  sqlite3_close(m_handle);
}

Expected<std::unique_ptr<Database>> Database::open(const DatabaseOptions& options)
{
  sqlite3* handle = nullptr;
  std::error_code exists_error;
  if (options.read_only && !std::filesystem::exists(options.path, exists_error)) {
    return make_error(ErrorCode::not_found, "cache: " + options.path.string() + ": no such file");
  }
  const int flags = options.read_only
                        ? SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
                        : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX;
  const std::string name = options.read_only ? read_only_uri(options.path) : options.path.string();
  const int rc = sqlite3_open_v2(name.c_str(), &handle, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string reason = handle != nullptr ? sqlite3_errmsg(handle) : sqlite3_errstr(rc);
    sqlite3_close(handle);
    return make_error(code_of(rc),
                      "cache: cannot open " + options.path.string() + ": " + reason);
  }
  std::unique_ptr<Database> database(new Database(handle, options.path));
  if (options.read_only) {
    sqlite3_extended_result_codes(handle, 1);
    database->set_busy_timeout(options.busy_timeout_ms);
    return database;
  }
  TRY(database->configure(options.busy_timeout_ms));
  return database;
}

void Database::set_busy_timeout(int milliseconds)
{
  m_busy_timeout_ms = milliseconds;
  sqlite3_busy_timeout(m_handle, milliseconds);
}

Expected<void> Database::configure(int busy_timeout_ms)
{
  sqlite3_extended_result_codes(m_handle, 1);
  set_busy_timeout(busy_timeout_ms);
  // Switching to WAL needs a moment of exclusive access, which concurrent openers may contend.
  for (int attempt = 0;; ++attempt) {
    sqlite3_stmt* statement = nullptr;
    int rc = sqlite3_prepare_v2(m_handle, k_journal_mode_wal, -1, &statement, nullptr);
    std::string mode;
    if (rc == SQLITE_OK) {
      rc = sqlite3_step(statement);
      if (rc == SQLITE_ROW) {
        const unsigned char* text = sqlite3_column_text(statement, 0);
        mode = text != nullptr ? reinterpret_cast<const char*>(text) : "";
        rc = SQLITE_OK;
      }
    }
    sqlite3_finalize(statement);
    if (rc == SQLITE_OK && mode != "wal") {
      return make_error(ErrorCode::io, "cache: " + m_path.string() +
                                           ": cannot switch to WAL journal (got '" + mode + "')");
    }
    if (rc == SQLITE_OK) {
      break;
    }
    if (!is_busy(rc) || attempt >= k_busy_retries) {
      return std::unexpected(error_from(rc, k_journal_mode_wal));
    }
    std::this_thread::sleep_for(k_busy_retry_pause);
  }
  return execute(k_synchronous_normal);
}

Expected<Statement*> Database::cached(const char* sql)
{
  auto found = m_statements.find(sql);
  if (found != m_statements.end()) {
    found->second->reset();
    return found->second.get();
  }
  sqlite3_stmt* statement = nullptr;
  const int rc = sqlite3_prepare_v3(m_handle, sql, -1, SQLITE_PREPARE_PERSISTENT, &statement,
                                    nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(statement);
    return std::unexpected(error_from(rc, sql));
  }
  auto owned = std::make_unique<Statement>(*this, statement, sql);
  Statement* raw = owned.get();
  m_statements.emplace(sql, std::move(owned));
  return raw;
}

Expected<void> Database::execute(const char* sql)
{
  const int rc = sqlite3_exec(m_handle, sql, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) {
    return std::unexpected(error_from(rc, sql));
  }
  return {};
}

Expected<void> Database::check_integrity()
{
  static constexpr char k_quick_check[] = "PRAGMA quick_check(1)";
  TRY_ASSIGN(Statement * check, cached(k_quick_check));
  TRY_ASSIGN(bool row, check->step());
  std::string verdict = row ? check->column_text(0) : "no answer";
  check->reset();
  if (verdict != "ok") {
    m_damaged = true;
    m_damage = "cache: " + m_path.string() + ": damaged (" + verdict + ")";
    return make_error(ErrorCode::corrupt, m_damage);
  }
  return {};
}

int64_t Database::changes() const
{
  return sqlite3_changes64(m_handle);
}

Error Database::error_from(int rc, std::string_view what) const
{
  const char* reason = sqlite3_errmsg(m_handle);
  if (reason == nullptr || (sqlite3_errcode(m_handle) & 0xff) != (rc & 0xff)) {
    reason = sqlite3_errstr(rc);
  }
  // The statement text helps a bug report; the first words are enough.
  std::string_view head = what.substr(0, 48);
  Error error{code_of(rc), "cache: " + m_path.string() + ": " + reason + " (in '" +
                               std::string(head) + (what.size() > head.size() ? "...')" : "')")};
  if (error.code == ErrorCode::corrupt && !m_damaged) {
    m_damaged = true;
    m_damage = error.message;
  }
  return error;
}

Transaction::~Transaction()
{
  if (m_active) {
    (void)m_database.execute(k_rollback);
  }
}

Expected<void> Transaction::begin()
{
  for (int attempt = 0;; ++attempt) {
    Expected<void> begun = m_database.execute(k_begin_immediate);
    if (begun) {
      m_active = true;
      return {};
    }
    if (begun.error().code != ErrorCode::unavailable || attempt >= k_busy_retries) {
      return begun;
    }
    std::this_thread::sleep_for(k_busy_retry_pause);
  }
}

Expected<void> Transaction::try_begin()
{
  const int waited = m_database.busy_timeout();
  m_database.set_busy_timeout(0);
  Expected<void> begun = m_database.execute(k_begin_immediate);
  m_database.set_busy_timeout(waited);
  if (begun) {
    m_active = true;
  }
  return begun;
}

Expected<void> Transaction::commit()
{
  assert(m_active && "commit without a begun transaction");
  TRY(m_database.execute(k_commit));
  m_active = false;
  return {};
}

} // namespace d4r::cache::db
