#pragma once
// A small RAII wrapper over SQLite, the only code that includes sqlite3.h (STYLE.md, rule 12).
// Database fixes the connection's settings at open (WAL, synchronous=NORMAL, an explicit busy
// timeout) and caches prepared statements by the address of their static SQL text, as Chromium's
// GetCachedStatement does. One thread per connection: the Cache facade serialises access.

#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>

struct sqlite3;
struct sqlite3_stmt;

namespace d4r::cache::db {

class Database;

// A prepared statement. Cached ones are reset (bindings cleared) each time they are handed out.
class Statement {
public:
  Statement(Database& database, sqlite3_stmt* statement, const char* sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Placeholders count from 1, as in SQLite.
  void bind_int64(int index, int64_t value);
  void bind_text(int index, std::string_view value);
  void bind_blob(int index, std::span<const std::byte> value);

  // True while a row is available; false when done.
  [[nodiscard]] Expected<bool> step();
  // Runs a statement that returns no rows.
  [[nodiscard]] Expected<void> run();
  void reset();

  [[nodiscard]] int64_t column_int64(int index) const;
  [[nodiscard]] std::string column_text(int index) const;
  [[nodiscard]] std::span<const std::byte> column_blob(int index) const;

private:
  Database& m_database;
  sqlite3_stmt* m_statement;
  const char* m_sql;
};

struct DatabaseOptions {
  std::filesystem::path path;
  int busy_timeout_ms = 5000;
  // Opens an existing file for reading only and leaves its journal mode alone (d4r-kernel doctor
  // looks at a store without writing to it); not_found when there is no file.
  bool read_only = false;
};

class Database {
public:
  // Opens (creating if needed) and applies WAL, synchronous=NORMAL and the busy timeout. A file
  // that is not a database gives ErrorCode::corrupt naming the path.
  [[nodiscard]] static Expected<std::unique_ptr<Database>> open(const DatabaseOptions& options);
  ~Database();
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;

  // A statement prepared once per connection; `sql` must be a static string (its address is the
  // cache key). The statement is reset before it is returned.
  [[nodiscard]] Expected<Statement*> cached(const char* sql);
  // Runs one statement without caching it (schema changes, transaction control).
  [[nodiscard]] Expected<void> execute(const char* sql);
  // PRAGMA quick_check: corrupt, with SQLite's first finding, when a page or an index is damaged.
  [[nodiscard]] Expected<void> check_integrity();
  [[nodiscard]] int64_t changes() const;
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }
  // sqlite3_busy_timeout: how long a statement waits for another connection's lock.
  void set_busy_timeout(int milliseconds);
  [[nodiscard]] int busy_timeout() const { return m_busy_timeout_ms; }

  // The error for SQLite result `rc`, its code mapped to ours and the message naming the file.
  // SQLITE_CORRUPT and SQLITE_NOTADB also mark the connection damaged (below).
  [[nodiscard]] Error error_from(int rc, std::string_view what) const;
  // True once SQLite has said the file is damaged, whoever then looked at (or dropped) the error:
  // the store replaces such an index instead of failing on it until the next start.
  [[nodiscard]] bool damaged() const { return m_damaged; }
  // SQLite's first word on the damage, for the log ("database disk image is malformed (in ...)").
  [[nodiscard]] const std::string& damage() const { return m_damage; }

private:
  explicit Database(sqlite3* handle, std::filesystem::path path);
  [[nodiscard]] Expected<void> configure(int busy_timeout_ms);

  sqlite3* m_handle;
  std::filesystem::path m_path;
  int m_busy_timeout_ms = 0;
  mutable bool m_damaged = false; // set by error_from, which every failing call goes through
  mutable std::string m_damage;
  std::unordered_map<const char*, std::unique_ptr<Statement>> m_statements;
};

// BEGIN IMMEDIATE (so that a writer never has to upgrade a read lock), rolled back on destruction
// unless committed. Cannot be copied.
class Transaction {
public:
  explicit Transaction(Database& database) : m_database(database) {}
  ~Transaction();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

  // Retries a few times when another process holds the write lock past the busy timeout.
  [[nodiscard]] Expected<void> begin();
  // One attempt that waits for nobody: unavailable at once when another connection writes.
  [[nodiscard]] Expected<void> try_begin();
  [[nodiscard]] Expected<void> commit();

private:
  Database& m_database;
  bool m_active = false;
};

} // namespace d4r::cache::db
