// Store: one accuracy mode's SQLite index plus its content-addressed objects.
//
// Ordering rules that keep the index and the files consistent across processes and crashes:
// - an object file is written, fsynced and renamed into place before any row names it, and the
//   inserting transaction checks again, under the write lock, that the file is still there;
// - files are unlinked only inside a write transaction, after the rows naming them are gone, so
//   an insert that reuses an existing file cannot lose it between its check and its commit;
// - a file whose last row goes is not unlinked then but put in `trash` (its file stays where it
//   was): the daemon may have named it to a client a moment ago, and the client opens it after
//   the answer. collect_garbage removes it once StoreOptions::trash_grace has passed; an insert of
//   the same bytes takes it back; over the size cap the oldest trash goes first, early;
// - a crash can therefore leave only files that no row names (collect_garbage removes them) or,
//   after a power loss with synchronous=NORMAL, rows whose file is gone (lookup drops them).
//
// A warm lookup writes nothing: its use (last_used, the LRU order) and the hit/miss counters wait
// in memory and are written in one transaction at most once a second, by the next write of this
// store, before stats() and list(), and when the store closes. Each write of the index costs a
// dozen system calls (locks on the shared WAL index, WAL frames), which on its own would be most
// of a lookup's time.

#include "cache/cache.hpp"

#include "cache/db.hpp"
#include "cache/file_ops.hpp"
#include "cache/pins.hpp"
#include "cache/row_check.hpp"
#include "cache/schema.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <system_error>
#include <unordered_set>
#include <sys/stat.h>
#include <unistd.h>

namespace d4r::cache {

namespace {

constexpr int k_insert_attempts = 3;
constexpr auto k_use_flush_interval = std::chrono::seconds(1);
constexpr size_t k_use_flush_batch = 512;
constexpr size_t k_max_pending_uses = 8 * k_use_flush_batch;
// Eviction keeps this share of max_bytes for the trash: the files of the objects it evicts wait
// there for clients just told of them. Without it they would be over the cap the moment they
// were evicted (the bytes they held are what put the store over) and go at once.
constexpr int64_t k_trash_reserve_divisor = 16;

// Key columns bind at ?1..?6 in this order in every statement that names an entry by its key.
static constexpr char k_select_hit[] =
    "SELECT id, digest, size, metadata, source, row_check FROM entries "
    "WHERE module_hash = ? AND kernel = ? AND target = ? AND variant = ? AND toolchain = ? "
    "AND recipe = ?";
static constexpr char k_select_key_digest[] =
    "SELECT digest FROM entries "
    "WHERE module_hash = ? AND kernel = ? AND target = ? AND variant = ? AND toolchain = ? "
    "AND recipe = ?";
static constexpr char k_upsert_entry[] =
    "INSERT INTO entries (module_hash, kernel, target, variant, toolchain, recipe, digest, size, "
    "metadata, source, created_ms, last_used_ms, row_check, use_seq) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, "
    "(SELECT COALESCE(MAX(use_seq), 0) + 1 FROM entries)) "
    "ON CONFLICT (module_hash, kernel, target, variant, toolchain, recipe) DO UPDATE SET "
    "digest = excluded.digest, size = excluded.size, metadata = excluded.metadata, "
    "source = excluded.source, created_ms = excluded.created_ms, "
    "last_used_ms = excluded.last_used_ms, row_check = excluded.row_check, "
    "use_seq = excluded.use_seq "
    "RETURNING id";
static constexpr char k_touch_entry[] =
    "UPDATE entries SET last_used_ms = ?, "
    "use_seq = (SELECT COALESCE(MAX(use_seq), 0) + 1 FROM entries) WHERE id = ?";
static constexpr char k_add_counter[] = "UPDATE counters SET value = value + ? WHERE name = ?";
static constexpr char k_insert_object[] =
    "INSERT INTO objects (digest, size) VALUES (?, ?) ON CONFLICT (digest) DO NOTHING";
static constexpr char k_count_digest_entries[] =
    "SELECT COUNT(id) FROM entries WHERE digest = ?";
static constexpr char k_count_objects_named[] = "SELECT COUNT(size) FROM objects WHERE digest = ?";
static constexpr char k_delete_entries_named[] = "DELETE FROM entries WHERE digest = ?";
static constexpr char k_delete_object[] = "DELETE FROM objects WHERE digest = ?";
static constexpr char k_total_bytes[] = "SELECT COALESCE(SUM(size), 0) FROM objects";
// Pinned entries are never evicted: past the cap with only pinned ones left, the store stays over.
static constexpr char k_select_least_recent[] =
    "SELECT id, digest FROM entries WHERE id != ? AND digest != ? AND NOT " D4R_CACHE_ENTRY_PINNED
    " ORDER BY use_seq ASC, id ASC LIMIT 1";
static constexpr char k_delete_entry[] = "DELETE FROM entries WHERE id = ?";
static constexpr char k_count_entries[] = "SELECT COUNT(id) FROM entries";
static constexpr char k_select_counters[] = "SELECT name, value FROM counters ORDER BY name";
static constexpr char k_select_all_entries[] =
    "SELECT module_hash, kernel, target, variant, toolchain, recipe, digest, size, source, "
    "created_ms, last_used_ms, " D4R_CACHE_ENTRY_PINNED " FROM entries "
    "ORDER BY kernel, target, module_hash, variant, toolchain, recipe";
// A filtered purge (purge_where): ?1 the last-use bound, ?2 whether pinned entries go too.
static constexpr char k_select_purgeable[] =
    "SELECT id, digest FROM entries WHERE last_used_ms < ?1 AND (?2 = 1 OR NOT "
    D4R_CACHE_ENTRY_PINNED ") ORDER BY id";
static constexpr char k_count_pinned[] =
    "SELECT COUNT(id) FROM entries WHERE " D4R_CACHE_ENTRY_PINNED;
static constexpr char k_delete_all_entries[] = "DELETE FROM entries";
static constexpr char k_delete_all_objects[] = "DELETE FROM objects";
static constexpr char k_select_object_size[] = "SELECT size FROM objects WHERE digest = ?";
static constexpr char k_trash_object[] =
    "INSERT INTO trash (digest, size, removed_ms) VALUES (?, ?, ?) "
    "ON CONFLICT (digest) DO UPDATE SET removed_ms = excluded.removed_ms";
// `WHERE true` tells SQLite's parser that ON CONFLICT is no join constraint.
static constexpr char k_trash_all_objects[] =
    "INSERT INTO trash (digest, size, removed_ms) SELECT digest, size, ? FROM objects WHERE true "
    "ON CONFLICT (digest) DO UPDATE SET removed_ms = excluded.removed_ms";
static constexpr char k_untrash[] = "DELETE FROM trash WHERE digest = ?";
// Changes when another connection commits (not with this one's own commits): no table is read.
static constexpr char k_data_version[] = "PRAGMA data_version";
static constexpr char k_count_trash_named[] = "SELECT COUNT(size) FROM trash WHERE digest = ?";
static constexpr char k_trash_bytes[] = "SELECT COALESCE(SUM(size), 0) FROM trash";
static constexpr char k_trash_count[] = "SELECT COUNT(size) FROM trash";
static constexpr char k_count_trash_due[] = "SELECT COUNT(size) FROM trash WHERE removed_ms <= ?";
static constexpr char k_select_trash_due[] =
    "SELECT digest FROM trash WHERE removed_ms <= ? ORDER BY removed_ms ASC LIMIT 1";
static constexpr char k_select_oldest_trash[] =
    "SELECT digest FROM trash ORDER BY removed_ms ASC LIMIT 1";

static constexpr char k_hits[] = "hits";
static constexpr char k_misses[] = "misses";
static constexpr char k_inserts[] = "inserts";
static constexpr char k_evictions[] = "evictions";
static constexpr char k_quarantined[] = "quarantined";
static constexpr char k_damaged_rows[] = "damaged_rows";
static constexpr char k_trash_cut_short[] = "trash_cut_short";

int64_t now_unix_ms()
{
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void bind_key(db::Statement& statement, const CacheKey& key)
{
  statement.bind_int64(1, std::bit_cast<int64_t>(key.module_hash));
  statement.bind_text(2, key.kernel);
  statement.bind_text(3, key.target);
  statement.bind_text(4, key.variant);
  statement.bind_text(5, key.toolchain);
  statement.bind_text(6, key.recipe);
}

std::span<const std::byte> as_bytes(const Sha256& digest)
{
  return std::as_bytes(std::span<const uint8_t>(digest));
}

std::span<const std::byte> as_bytes(const std::string& text)
{
  return std::as_bytes(std::span<const char>(text.data(), text.size()));
}

Expected<Sha256> digest_column(const db::Database& database, const db::Statement& statement,
                               int index)
{
  std::span<const std::byte> blob = statement.column_blob(index);
  Sha256 digest{};
  if (blob.size() != digest.size()) {
    return make_error(ErrorCode::corrupt, "cache: " + database.path().string() +
                                              ": digest column of " + std::to_string(blob.size()) +
                                              " bytes");
  }
  std::memcpy(digest.data(), blob.data(), digest.size());
  return digest;
}

// objects/<2 hex>/<62 hex> back to a digest; nullopt for names the store did not write.
std::optional<Sha256> digest_of_object_path(const std::filesystem::path& path)
{
  return parse_sha256_hex(path.parent_path().filename().string() + path.filename().string());
}

} // namespace

struct Store::Impl {
  StoreOptions options;
  std::filesystem::path objects_dir;
  std::filesystem::path tmp_dir;
  std::filesystem::path quarantine_dir;
  std::unique_ptr<db::Database> database;
  std::string recovery_note; // how open() recovered from a damaged index, or empty
  // The index file the connection opened (device, inode): after a damage, another process
  // sharing the store may have replaced the file at the path already.
  std::optional<std::pair<dev_t, ino_t>> index_file;
  int64_t index_replacements = 0;
  // Every write transaction this process begins (begin_write): a LookupStamp taken before it is
  // no longer current.
  uint64_t writes = 0;
  // Uses not yet written (see the file comment): entry ids in order of use, and counters.
  std::vector<int64_t> pending_uses;
  int64_t pending_hits = 0;
  int64_t pending_misses = 0;
  std::chrono::steady_clock::time_point last_flush = std::chrono::steady_clock::now();

  ~Impl()
  {
    if (database) {
      (void)flush_uses(); // nothing to report to at close; a lost count is only a statistic
    }
  }

  [[nodiscard]] std::filesystem::path object_path(const Sha256& digest) const
  {
    const std::string hex = to_hex(digest);
    return objects_dir / hex.substr(0, 2) / hex.substr(2);
  }

  [[nodiscard]] Expected<void> add_counter(const char* name, int64_t amount)
  {
    TRY_ASSIGN(db::Statement* update, database->cached(k_add_counter));
    update->bind_int64(1, amount);
    update->bind_text(2, name);
    return update->run();
  }

  [[nodiscard]] Expected<int64_t> single_int(const char* sql)
  {
    TRY_ASSIGN(db::Statement* select, database->cached(sql));
    TRY_ASSIGN(const bool row, select->step());
    const int64_t value = row ? select->column_int64(0) : 0;
    select->reset();
    return value;
  }

  [[nodiscard]] Expected<int64_t> count_named(const char* sql, const Sha256& digest)
  {
    TRY_ASSIGN(db::Statement* select, database->cached(sql));
    select->bind_blob(1, as_bytes(digest));
    TRY_ASSIGN(const bool row, select->step());
    const int64_t value = row ? select->column_int64(0) : 0;
    select->reset();
    return value;
  }

  // Inside a write transaction: when no entry names `digest` any more, its object row goes and
  // its file to the trash.
  [[nodiscard]] Expected<void> release_if_unreferenced(const Sha256& digest)
  {
    TRY_ASSIGN(const int64_t references, count_named(k_count_digest_entries, digest));
    if (references > 0) {
      return {};
    }
    TRY_ASSIGN(db::Statement* size_of, database->cached(k_select_object_size));
    size_of->bind_blob(1, as_bytes(digest));
    TRY_ASSIGN(const bool known, size_of->step());
    int64_t size = known ? size_of->column_int64(0) : -1;
    size_of->reset();
    TRY_ASSIGN(db::Statement* remove, database->cached(k_delete_object));
    remove->bind_blob(1, as_bytes(digest));
    TRY(remove->run());
    if (size < 0) {
      TRY_ASSIGN(size, files::file_size_or_missing(object_path(digest)));
      if (size < 0) {
        return {};
      }
    }
    return discard(digest, size);
  }

  [[nodiscard]] Expected<void> unlink_object(const Sha256& digest)
  {
    const std::filesystem::path path = object_path(digest);
    if (::unlink(path.c_str()) != 0 && errno != ENOENT) {
      return std::unexpected(files::errno_error("remove", path, errno));
    }
    return {};
  }

  // Inside a write transaction, for an object no row names: into the trash for its grace period,
  // or gone at once when there is none.
  [[nodiscard]] Expected<void> discard(const Sha256& digest, int64_t size)
  {
    if (options.trash_grace.count() <= 0) {
      return unlink_object(digest);
    }
    TRY_ASSIGN(db::Statement* trash, database->cached(k_trash_object));
    trash->bind_blob(1, as_bytes(digest));
    trash->bind_int64(2, size);
    trash->bind_int64(3, now_unix_ms());
    return trash->run();
  }

  // Inside a write transaction: a trashed object's file goes, unless an insert has taken it back.
  [[nodiscard]] Expected<void> empty_trashed(const Sha256& digest)
  {
    TRY_ASSIGN(const int64_t named, count_named(k_count_objects_named, digest));
    if (named == 0) {
      TRY(unlink_object(digest));
    }
    TRY_ASSIGN(db::Statement* untrash, database->cached(k_untrash));
    untrash->bind_blob(1, as_bytes(digest));
    return untrash->run();
  }

  // Inside a write transaction: the first digest `sql` (bound with `bound` when not negative)
  // selects from the trash, if any.
  [[nodiscard]] Expected<std::optional<Sha256>> first_trashed(const char* sql, int64_t bound)
  {
    TRY_ASSIGN(db::Statement* select, database->cached(sql));
    if (bound >= 0) {
      select->bind_int64(1, bound);
    }
    TRY_ASSIGN(const bool row, select->step());
    if (!row) {
      select->reset();
      return std::nullopt;
    }
    Expected<Sha256> digest = digest_column(*database, *select, 0);
    select->reset();
    TRY(digest);
    return std::optional<Sha256>(*digest);
  }

  // Inside a write transaction: removes the trashed objects put there at or before `removed_ms`.
  [[nodiscard]] Expected<int64_t> collect_trash(int64_t removed_ms)
  {
    int64_t removed = 0;
    while (true) {
      TRY_ASSIGN(const std::optional<Sha256> due, first_trashed(k_select_trash_due, removed_ms));
      if (!due) {
        return removed;
      }
      TRY(empty_trashed(*due));
      ++removed;
    }
  }

  // Inside a write transaction: the trash is on disk, so it counts toward the cap; while the
  // store is over it, the oldest trashed objects go before their grace period is out.
  [[nodiscard]] Expected<void> fit_trash()
  {
    while (true) {
      TRY_ASSIGN(const int64_t live, single_int(k_total_bytes));
      TRY_ASSIGN(const int64_t trashed, single_int(k_trash_bytes));
      if (trashed == 0 || live + trashed <= options.max_bytes) {
        return {};
      }
      TRY_ASSIGN(const std::optional<Sha256> oldest, first_trashed(k_select_oldest_trash, -1));
      if (!oldest) {
        return {};
      }
      TRY(empty_trashed(*oldest));
      TRY(add_counter(k_trash_cut_short, 1));
    }
  }

  // Inside a write transaction: forgets every entry that names `digest`.
  [[nodiscard]] Expected<void> drop_rows_named(const Sha256& digest)
  {
    TRY_ASSIGN(db::Statement* remove_entries, database->cached(k_delete_entries_named));
    remove_entries->bind_blob(1, as_bytes(digest));
    TRY(remove_entries->run());
    TRY_ASSIGN(db::Statement* remove_object, database->cached(k_delete_object));
    remove_object->bind_blob(1, as_bytes(digest));
    return remove_object->run();
  }

  [[nodiscard]] Expected<void> write_pending_uses();
  [[nodiscard]] Expected<void> begin_write(db::Transaction& transaction);
  [[nodiscard]] Expected<LookupStamp> stamp();
  [[nodiscard]] Expected<void> flush_uses();
  void record_use(int64_t id, bool hit);
  [[nodiscard]] Expected<void> forget_missing(const Sha256& digest);
  [[nodiscard]] Expected<void> drop_row(int64_t id, std::optional<Sha256> digest, bool damaged);
  [[nodiscard]] Expected<void> quarantine(const Sha256& digest);
  [[nodiscard]] Error quarantined_error(const Hit& hit);
  [[nodiscard]] Error read_error(const Hit& hit, const Error& error);
  [[nodiscard]] Expected<void> check_object(const Hit& hit, const Sha256& actual);
  [[nodiscard]] Expected<void> place_object(const Sha256& digest,
                                            std::span<const std::byte> object);
  [[nodiscard]] Expected<int64_t> commit_entry(const CacheKey& key, const Sha256& digest,
                                               int64_t size, const std::string& metadata,
                                               const std::string& source);
  [[nodiscard]] Expected<void> evict(int64_t keep_id, const Sha256& keep_digest);
  [[nodiscard]] Expected<int64_t> remove_unnamed_objects(
      std::filesystem::file_time_type cutoff);
  [[nodiscard]] Expected<int64_t> remove_stale_temps(std::filesystem::file_time_type cutoff);
};

Store::Store(std::unique_ptr<Impl> impl) : m_impl(std::move(impl)) {}

Store::~Store() = default;

const std::string& Store::recovery_note() const
{
  return m_impl->recovery_note;
}

namespace {

constexpr size_t k_damaged_sets_kept = 3;

// The index, its schema brought up to date and its pages checked.
Expected<std::unique_ptr<db::Database>> open_index(const db::DatabaseOptions& options)
{
  TRY_ASSIGN(std::unique_ptr<db::Database> database, db::Database::open(options));
  TRY(migrate(*database));
  TRY(database->check_integrity());
  return database;
}

// Moves a damaged index with its WAL and shared-memory files to <root>/damaged/<ms since epoch>/,
// for whoever wants to look at it, and keeps only the newest few such folders.
Expected<std::filesystem::path> set_aside_damaged_index(const std::filesystem::path& root,
                                                        const std::filesystem::path& index)
{
  const std::filesystem::path damaged = root / "damaged";
  TRY(files::make_directory(damaged, 0700));
  const std::filesystem::path aside = damaged / std::to_string(now_unix_ms());
  TRY(files::make_directory(aside, 0700));
  for (const char* suffix : {"", "-wal", "-shm"}) {
    const std::filesystem::path from = index.string() + suffix;
    if (::rename(from.c_str(), (aside / (index.filename().string() + suffix)).c_str()) != 0 &&
        errno != ENOENT) {
      return std::unexpected(files::errno_error("set aside", from, errno));
    }
  }
  std::vector<std::filesystem::path> sets;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(damaged, error)) {
    sets.push_back(entry.path());
  }
  // Names are times of the same width for centuries: name order is age order.
  std::sort(sets.begin(), sets.end());
  for (size_t i = 0; i + k_damaged_sets_kept < sets.size(); ++i) {
    std::filesystem::remove_all(sets[i], error);
  }
  return aside;
}

std::optional<std::pair<dev_t, ino_t>> file_identity(const std::filesystem::path& path)
{
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) {
    return std::nullopt;
  }
  return std::pair(info.st_dev, info.st_ino);
}

} // namespace

Expected<std::unique_ptr<Store>> Store::open(const StoreOptions& options)
{
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->objects_dir = options.root / "objects";
  impl->tmp_dir = options.root / "tmp";
  impl->quarantine_dir = options.root / "quarantine";
  TRY(files::make_directory(options.root, 0700));
  TRY(files::make_directory(impl->objects_dir, 0700));
  TRY(files::make_directory(impl->tmp_dir, 0700));
  TRY(files::make_directory(impl->quarantine_dir, 0700));
  if (::access(options.root.c_str(), W_OK | X_OK) != 0) {
    return std::unexpected(files::errno_error("write to", options.root, errno));
  }
  db::DatabaseOptions database_options;
  database_options.path = options.root / "index.sqlite";
  database_options.busy_timeout_ms = options.busy_timeout_ms;
  Expected<std::unique_ptr<db::Database>> database = open_index(database_options);
  if (!database && database.error().code == ErrorCode::corrupt) {
    // A damaged index would stop every start (and systemd would restart into the same failure),
    // losing both modes; set aside, a fresh index costs only rebuilds. The objects it named are
    // unreferenced now and go with the next garbage collection.
    TRY_ASSIGN(std::filesystem::path aside,
               set_aside_damaged_index(options.root, database_options.path));
    impl->recovery_note = database.error().message + "; set aside in " + aside.string() +
                          ", serving from a fresh index (kernels are built again on demand)";
    database = open_index(database_options);
  }
  if (!database) {
    return std::unexpected(std::move(database).error());
  }
  impl->database = std::move(*database);
  impl->index_file = file_identity(database_options.path);
  return std::unique_ptr<Store>(new Store(std::move(impl)));
}

bool Store::index_damaged() const
{
  return !m_impl->database || m_impl->database->damaged();
}

Expected<std::string> Store::replace_damaged_index()
{
  Impl& impl = *m_impl;
  db::DatabaseOptions database_options;
  database_options.path = impl.options.root / "index.sqlite";
  database_options.busy_timeout_ms = impl.options.busy_timeout_ms;
  std::string what = "damaged";
  if (impl.database) {
    what = impl.database->damage();
    // Closed before its files move: closing the last connection deletes the WAL by its name.
    // The uses not written are lost with it; they were about rows of the damaged index anyway.
    impl.pending_uses.clear();
    impl.pending_hits = 0;
    impl.pending_misses = 0;
    impl.database.reset();
  }
  std::string done;
  const std::optional<std::pair<dev_t, ino_t>> there = file_identity(database_options.path);
  if (there && there == impl.index_file) {
    TRY_ASSIGN(std::filesystem::path aside,
               set_aside_damaged_index(impl.options.root, database_options.path));
    done = "set aside in " + aside.string();
  } else {
    done = "already replaced by another process sharing the store";
  }
  Expected<std::unique_ptr<db::Database>> fresh = open_index(database_options);
  if (!fresh && fresh.error().code == ErrorCode::corrupt) {
    // What is there now is damaged too (another process's fresh index, damaged again?).
    TRY_ASSIGN(std::filesystem::path aside,
               set_aside_damaged_index(impl.options.root, database_options.path));
    done += "; then " + fresh.error().message + ", set aside in " + aside.string();
    fresh = open_index(database_options);
  }
  TRY(fresh);
  impl.database = std::move(*fresh);
  impl.index_file = file_identity(database_options.path);
  ++impl.index_replacements;
  return what + "; found while running: " + done +
         ", serving from a fresh index (kernels are built again on demand)";
}

// Inside a write transaction. The pending state is cleared only by the caller after commit.
Expected<void> Store::Impl::write_pending_uses()
{
  const int64_t now = now_unix_ms();
  // Only each entry's last use orders it (a warm game uses a few entries thousands of times a
  // second): written once each, in the order of those last uses, the LRU order is the same.
  std::vector<int64_t> last_uses;
  std::unordered_set<int64_t> seen;
  for (auto it = pending_uses.rbegin(); it != pending_uses.rend(); ++it) {
    if (seen.insert(*it).second) {
      last_uses.push_back(*it);
    }
  }
  std::reverse(last_uses.begin(), last_uses.end());
  for (const int64_t id : last_uses) {
    TRY_ASSIGN(db::Statement* touch, database->cached(k_touch_entry));
    touch->bind_int64(1, now);
    touch->bind_int64(2, id); // a row deleted since then updates nothing
    TRY(touch->run());
  }
  if (pending_hits > 0) {
    TRY(add_counter(k_hits, pending_hits));
  }
  if (pending_misses > 0) {
    TRY(add_counter(k_misses, pending_misses));
  }
  return {};
}

// Every write transaction starts here, so that the uses before it are ordered before it. The
// pending uses are dropped once written: if the transaction then fails they are lost, which costs
// only LRU precision and a statistic.
Expected<void> Store::Impl::begin_write(db::Transaction& transaction)
{
  ++writes;
  TRY(transaction.begin());
  TRY(write_pending_uses());
  pending_uses.clear();
  pending_hits = 0;
  pending_misses = 0;
  last_flush = std::chrono::steady_clock::now();
  return {};
}

// Taken before a lookup reads its row: a commit landing between the two makes the stamp older
// than the row, which only costs the next check a lookup, never the reverse.
Expected<LookupStamp> Store::Impl::stamp()
{
  TRY_ASSIGN(db::Statement* version, database->cached(k_data_version));
  TRY_ASSIGN(const bool row, version->step());
  LookupStamp stamp;
  stamp.writes = writes;
  stamp.index_replacements = index_replacements;
  stamp.data_version = row ? version->column_int64(0) : -1;
  version->reset();
  if (!row) {
    return make_error(ErrorCode::internal,
                      "cache: " + database->path().string() + ": PRAGMA data_version gave no row");
  }
  return stamp;
}

Expected<void> Store::Impl::flush_uses()
{
  if (pending_uses.empty() && pending_hits == 0 && pending_misses == 0) {
    return {};
  }
  db::Transaction transaction(*database);
  TRY(begin_write(transaction));
  return transaction.commit();
}

void Store::Impl::record_use(int64_t id, bool hit)
{
  if (hit) {
    pending_uses.push_back(id);
    ++pending_hits;
  } else {
    ++pending_misses;
  }
  const bool due = std::chrono::steady_clock::now() - last_flush >= k_use_flush_interval;
  if (!due && pending_uses.size() < k_use_flush_batch) {
    return;
  }
  // On the lookup path, so it waits for nobody: while another process writes the index the uses
  // stay pending (a busy or failing index must not slow or fail a lookup; the next write, an
  // insert or stats, reports a real problem). Past a bound the oldest are dropped: they only
  // order eviction and feed a statistic.
  {
    db::Transaction transaction(*database);
    if (transaction.try_begin() && write_pending_uses() && transaction.commit()) {
      pending_uses.clear();
      pending_hits = 0;
      pending_misses = 0;
    }
  }
  last_flush = std::chrono::steady_clock::now();
  if (pending_uses.size() > k_max_pending_uses) {
    pending_uses.erase(pending_uses.begin(),
                       pending_uses.begin() + static_cast<std::ptrdiff_t>(pending_uses.size() -
                                                                         k_max_pending_uses));
  }
}

Expected<void> Store::Impl::drop_row(int64_t id, std::optional<Sha256> digest, bool damaged)
{
  db::Transaction transaction(*database);
  TRY(begin_write(transaction));
  TRY_ASSIGN(db::Statement* remove, database->cached(k_delete_entry));
  remove->bind_int64(1, id);
  TRY(remove->run());
  if (digest) {
    TRY(release_if_unreferenced(*digest)); // whatever the row named, no row names it now
  }
  if (damaged) {
    TRY(add_counter(k_damaged_rows, 1));
  }
  return transaction.commit();
}

Expected<void> Store::Impl::forget_missing(const Sha256& digest)
{
  db::Transaction transaction(*database);
  TRY(begin_write(transaction));
  TRY(drop_rows_named(digest));
  return transaction.commit();
}

Expected<void> Store::Impl::quarantine(const Sha256& digest)
{
  db::Transaction transaction(*database);
  TRY(begin_write(transaction));
  const std::filesystem::path from = object_path(digest);
  const std::filesystem::path to =
      quarantine_dir / (to_hex(digest) + "." + std::to_string(now_unix_ms()));
  if (::rename(from.c_str(), to.c_str()) != 0 && errno != ENOENT) {
    // The bad file must not be served again: remove it if it cannot be kept.
    const int rename_error = errno;
    if (::unlink(from.c_str()) != 0 && errno != ENOENT) {
      return std::unexpected(files::errno_error("quarantine", from, rename_error));
    }
  }
  TRY(drop_rows_named(digest));
  TRY(add_counter(k_quarantined, 1));
  return transaction.commit();
}

Error Store::Impl::quarantined_error(const Hit& hit)
{
  Expected<void> moved = quarantine(hit.digest);
  if (!moved) {
    return Error{ErrorCode::corrupt, "cache: " + hit.key.describe() +
                                         ": sha256 mismatch, quarantine failed: " +
                                         moved.error().message};
  }
  return Error{ErrorCode::corrupt, "cache: " + hit.key.describe() + ": sha256 mismatch, quarantined"};
}

// A file that vanished since the lookup (evicted or purged by another process) is not_found, so
// that the caller rebuilds instead of reporting a broken cache.
Error Store::Impl::read_error(const Hit& hit, const Error& error)
{
  Expected<int64_t> size = files::file_size_or_missing(object_path(hit.digest));
  if (size && *size < 0) {
    return Error{ErrorCode::not_found,
                 "cache: " + hit.key.describe() + ": object " + to_hex(hit.digest) +
                     " was removed after the lookup"};
  }
  return Error{error.code, error.message + " (" + hit.key.describe() + ")"};
}

Expected<void> Store::Impl::check_object(const Hit& hit, const Sha256& actual)
{
  if (actual != hit.digest) {
    return std::unexpected(quarantined_error(hit));
  }
  return {};
}

Expected<std::optional<Hit>> Store::lookup(const CacheKey& key)
{
  TRY(validate_kernel_name(key.kernel));
  TRY_ASSIGN(LookupStamp stamp, m_impl->stamp());
  db::Database& database = *m_impl->database;
  TRY_ASSIGN(db::Statement* select, database.cached(k_select_hit));
  bind_key(*select, key);
  TRY_ASSIGN(const bool found, select->step());
  if (!found) {
    m_impl->record_use(0, false);
    return std::nullopt;
  }
  const int64_t id = select->column_int64(0);
  Expected<Sha256> digest = digest_column(database, *select, 1);
  Hit hit;
  hit.key = key;
  hit.size = select->column_int64(2);
  std::span<const std::byte> metadata = select->column_blob(3);
  hit.metadata.assign(reinterpret_cast<const char*>(metadata.data()), metadata.size());
  hit.source = select->column_text(4);
  std::span<const std::byte> stored_check = select->column_blob(5);
  const std::string check(reinterpret_cast<const char*>(stored_check.data()), stored_check.size());
  select->reset(); // ends the read snapshot before any write
  if (digest && check.empty()) {
    // Written before schema version 2, so never checked: dropped quietly, built again.
    m_impl->record_use(0, false);
    TRY(m_impl->drop_row(id, *digest, false));
    return std::nullopt;
  }
  if (!digest || check != row_check_of(key, *digest, hit.size, hit.metadata, hit.source)) {
    m_impl->record_use(0, false);
    TRY(m_impl->drop_row(id, digest ? std::optional<Sha256>(*digest) : std::nullopt, true));
    return make_error(ErrorCode::corrupt, "cache: " + key.describe() + ": index row in " +
                                              m_impl->database->path().string() +
                                              " damaged (its check does not match), dropped");
  }
  hit.digest = *digest;
  hit.object_path = m_impl->object_path(hit.digest);

  TRY_ASSIGN(const int64_t on_disk, files::file_size_or_missing(hit.object_path));
  if (on_disk != hit.size) {
    // Evicted by another process, lost in a power cut, or truncated: not servable either way.
    m_impl->record_use(0, false);
    TRY(on_disk < 0 ? m_impl->forget_missing(hit.digest) : m_impl->quarantine(hit.digest));
    return std::nullopt;
  }
  m_impl->record_use(id, true);
  stamp.entry_id = id;
  hit.stamp = stamp;
  return hit;
}

Expected<bool> Store::still_current(const Hit& hit, Outside outside)
{
  if (!hit.stamp || hit.stamp->entry_id < 0) {
    return false;
  }
  if (m_impl->writes != hit.stamp->writes ||
      m_impl->index_replacements != hit.stamp->index_replacements) {
    return false;
  }
  if (outside == Outside::look) {
    TRY_ASSIGN(const LookupStamp now, m_impl->stamp());
    if (now.data_version != hit.stamp->data_version) {
      return false;
    }
    // Nothing in the index changed, but the file may have (a power cut, a hand in the folder): as
    // lookup, only a file of the recorded size is served; lookup then deals with the rest.
    TRY_ASSIGN(const int64_t on_disk, files::file_size_or_missing(hit.object_path));
    if (on_disk != hit.size) {
      return false;
    }
  }
  m_impl->record_use(hit.stamp->entry_id, true);
  return true;
}

Expected<std::vector<std::byte>> Store::read_object(const Hit& hit)
{
  const std::filesystem::path path = m_impl->object_path(hit.digest);
  Expected<std::vector<std::byte>> bytes = files::read_file(path);
  if (!bytes) {
    return std::unexpected(m_impl->read_error(hit, bytes.error()));
  }
  TRY(m_impl->check_object(hit, sha256(*bytes)));
  return bytes;
}

Expected<void> Store::verify_object(const Hit& hit)
{
  const std::filesystem::path path = m_impl->object_path(hit.digest);
  Expected<files::FileDigest> actual = files::hash_file(path);
  if (!actual) {
    return std::unexpected(m_impl->read_error(hit, actual.error()));
  }
  return m_impl->check_object(hit, actual->digest);
}

Expected<void> Store::Impl::place_object(const Sha256& digest, std::span<const std::byte> object)
{
  const std::filesystem::path path = object_path(digest);
  TRY_ASSIGN(const int64_t on_disk, files::file_size_or_missing(path));
  if (on_disk == static_cast<int64_t>(object.size())) {
    // Identical content is stored once; reuse the file only if it still holds that content.
    Expected<files::FileDigest> existing = files::hash_file(path);
    if (existing && existing->digest == digest) {
      return {};
    }
  }
  TRY_ASSIGN(const bool created, files::make_directory(path.parent_path(), 0700));
  if (created) {
    TRY(files::sync_directory(objects_dir));
  }
  return files::write_durably(tmp_dir, path, object);
}

// Inside a write transaction: the object row, the entry row (replacing an older object for the
// same key) and the insert counter. Returns the entry's id.
Expected<int64_t> Store::Impl::commit_entry(const CacheKey& key, const Sha256& digest,
                                            int64_t size, const std::string& metadata,
                                            const std::string& source)
{
  TRY_ASSIGN(db::Statement* previous, database->cached(k_select_key_digest));
  bind_key(*previous, key);
  TRY_ASSIGN(const bool replaced, previous->step());
  Expected<Sha256> previous_digest = replaced ? digest_column(*database, *previous, 0) : digest;
  previous->reset();
  TRY(previous_digest);

  TRY_ASSIGN(db::Statement* object_row, database->cached(k_insert_object));
  object_row->bind_blob(1, as_bytes(digest));
  object_row->bind_int64(2, size);
  TRY(object_row->run());
  TRY_ASSIGN(db::Statement* untrash, database->cached(k_untrash)); // named again: out of the trash
  untrash->bind_blob(1, as_bytes(digest));
  TRY(untrash->run());

  const int64_t now = now_unix_ms();
  TRY_ASSIGN(db::Statement* upsert, database->cached(k_upsert_entry));
  bind_key(*upsert, key);
  upsert->bind_blob(7, as_bytes(digest));
  upsert->bind_int64(8, size);
  upsert->bind_blob(9, as_bytes(metadata));
  upsert->bind_text(10, source);
  upsert->bind_int64(11, now);
  upsert->bind_int64(12, now);
  upsert->bind_blob(13, as_bytes(row_check_of(key, digest, size, metadata, source)));
  TRY_ASSIGN(const bool row, upsert->step());
  const int64_t id = row ? upsert->column_int64(0) : -1;
  upsert->reset();
  if (id < 0) {
    return make_error(ErrorCode::internal, "cache: " + key.describe() + ": insert returned no id");
  }
  if (*previous_digest != digest) {
    TRY(release_if_unreferenced(*previous_digest));
  }
  TRY(add_counter(k_inserts, 1));
  return id;
}

Expected<Hit> Store::insert(const CacheKey& key, std::span<const std::byte> object,
                            const std::string& metadata, const std::string& source)
{
  TRY(validate_kernel_name(key.kernel));
  Hit hit;
  hit.key = key;
  hit.digest = sha256(object);
  hit.size = static_cast<int64_t>(object.size());
  hit.object_path = m_impl->object_path(hit.digest);
  hit.metadata = metadata;
  hit.source = source;
  for (int attempt = 0; attempt < k_insert_attempts; ++attempt) {
    TRY(m_impl->place_object(hit.digest, object));
    if (m_crash_before_commit) {
      ::_exit(k_crash_exit_code);
    }
    db::Transaction transaction(*m_impl->database);
    TRY(m_impl->begin_write(transaction));
    // Another process may have evicted or collected the file since it was placed.
    TRY_ASSIGN(const int64_t on_disk, files::file_size_or_missing(hit.object_path));
    if (on_disk != hit.size) {
      continue;
    }
    TRY_ASSIGN(const int64_t id,
               m_impl->commit_entry(key, hit.digest, hit.size, metadata, source));
    TRY(transaction.commit());
    TRY(m_impl->evict(id, hit.digest));
    return hit;
  }
  return make_error(ErrorCode::unavailable,
                    "cache: " + key.describe() + ": object removed by another process " +
                        std::to_string(k_insert_attempts) + " times while inserting");
}

// Drops least-recently-used entries until the distinct objects fit in max_bytes less the trash's
// reserve, then trims the trash (their files among it) until both fit in max_bytes. The new
// entry and the entries sharing its object are kept: dropping those would free nothing useful.
Expected<void> Store::Impl::evict(int64_t keep_id, const Sha256& keep_digest)
{
  const int64_t live_cap = options.trash_grace.count() > 0
                               ? options.max_bytes - options.max_bytes / k_trash_reserve_divisor
                               : options.max_bytes;
  TRY_ASSIGN(int64_t total, single_int(k_total_bytes));
  TRY_ASSIGN(const int64_t trashed, single_int(k_trash_bytes));
  if (total <= live_cap && total + trashed <= options.max_bytes) {
    return {};
  }
  db::Transaction transaction(*database);
  TRY(begin_write(transaction));
  while (true) {
    TRY_ASSIGN(total, single_int(k_total_bytes));
    if (total <= live_cap) {
      break;
    }
    TRY_ASSIGN(db::Statement* oldest, database->cached(k_select_least_recent));
    oldest->bind_int64(1, keep_id);
    oldest->bind_blob(2, as_bytes(keep_digest));
    TRY_ASSIGN(const bool row, oldest->step());
    if (!row) {
      break;
    }
    const int64_t id = oldest->column_int64(0);
    Expected<Sha256> digest = digest_column(*database, *oldest, 1);
    oldest->reset();
    TRY(digest);
    TRY_ASSIGN(db::Statement* remove, database->cached(k_delete_entry));
    remove->bind_int64(1, id);
    TRY(remove->run());
    TRY(release_if_unreferenced(*digest));
    TRY(add_counter(k_evictions, 1));
  }
  TRY(fit_trash());
  return transaction.commit();
}

Expected<std::vector<Entry>> Store::list()
{
  TRY(m_impl->flush_uses()); // last_used as this process knows it
  db::Database& database = *m_impl->database;
  TRY_ASSIGN(db::Statement* select, database.cached(k_select_all_entries));
  std::vector<Entry> entries;
  while (true) {
    TRY_ASSIGN(const bool row, select->step());
    if (!row) {
      break;
    }
    Entry entry;
    entry.key.module_hash = std::bit_cast<uint64_t>(select->column_int64(0));
    entry.key.kernel = select->column_text(1);
    entry.key.target = select->column_text(2);
    entry.key.variant = select->column_text(3);
    entry.key.toolchain = select->column_text(4);
    entry.key.recipe = select->column_text(5);
    Expected<Sha256> digest = digest_column(database, *select, 6);
    if (!digest) {
      select->reset();
      return std::unexpected(digest.error());
    }
    entry.digest = *digest;
    entry.size = select->column_int64(7);
    entry.source = select->column_text(8);
    entry.created_unix_ms = select->column_int64(9);
    entry.last_used_unix_ms = select->column_int64(10);
    entry.pinned = select->column_int64(11) != 0;
    entries.push_back(std::move(entry));
  }
  select->reset();
  return entries;
}

Expected<PurgeResult> Store::purge()
{
  db::Database& database = *m_impl->database;
  db::Transaction transaction(database);
  TRY(m_impl->begin_write(transaction));
  PurgeResult result;
  TRY_ASSIGN(result.removed_entries, m_impl->single_int(k_count_entries));
  TRY_ASSIGN(result.removed_bytes, m_impl->single_int(k_total_bytes));
  const bool keep_named = m_impl->options.trash_grace.count() > 0;
  // Every file goes, named or not: purge means an empty store. The named ones (and those in the
  // trash already) wait out their grace period in the trash, for the clients just told of them.
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(m_impl->objects_dir, error), end;
       !error && it != end; it.increment(error)) {
    if (!it->is_regular_file(error)) {
      continue;
    }
    const std::optional<Sha256> digest = digest_of_object_path(it->path());
    int64_t named = 0;
    if (digest) {
      TRY_ASSIGN(named, m_impl->count_named(k_count_objects_named, *digest));
      TRY_ASSIGN(const int64_t trashed, m_impl->count_named(k_count_trash_named, *digest));
      if ((named > 0 && keep_named) || (named == 0 && trashed > 0)) {
        continue;
      }
    }
    const int64_t size = static_cast<int64_t>(it->file_size(error));
    if (digest && named == 0 && keep_named) {
      // A file no row names may be one a replaced (damaged) index named and a client was just
      // told of: it waits out the grace in the trash too, as the sweep leaves trashed files.
      TRY(m_impl->discard(*digest, size));
      result.removed_bytes += size;
      continue;
    }
    if (::unlink(it->path().c_str()) != 0 && errno != ENOENT) {
      return std::unexpected(files::errno_error("remove", it->path(), errno));
    }
    if (named == 0) {
      result.removed_bytes += size; // a file no row named: not in the total above
    }
  }
  if (error) {
    return std::unexpected(files::errno_error("list", m_impl->objects_dir, error.value()));
  }
  if (keep_named) {
    TRY_ASSIGN(db::Statement* trash, database.cached(k_trash_all_objects));
    trash->bind_int64(1, now_unix_ms());
    TRY(trash->run());
  }
  TRY_ASSIGN(db::Statement* remove_entries, database.cached(k_delete_all_entries));
  TRY(remove_entries->run());
  TRY_ASSIGN(db::Statement* remove_objects, database.cached(k_delete_all_objects));
  TRY(remove_objects->run());
  TRY(transaction.commit());
  return result;
}

// Removes the entries `filter` selects in one transaction, each object going when its last row
// does (to the trash, as after an eviction). Unlike purge() it leaves files no row names to
// collect_garbage. begin_write writes this process's pending uses first, so last_used is current.
Expected<PurgeResult> Store::purge_where(const PurgeFilter& filter)
{
  db::Database& database = *m_impl->database;
  db::Transaction transaction(database);
  TRY(m_impl->begin_write(transaction));
  TRY_ASSIGN(const int64_t bytes_before, m_impl->single_int(k_total_bytes));
  TRY_ASSIGN(db::Statement* select, database.cached(k_select_purgeable));
  select->bind_int64(1, filter.unused_since_unix_ms.value_or(INT64_MAX));
  select->bind_int64(2, filter.force ? 1 : 0);
  std::vector<std::pair<int64_t, Sha256>> doomed;
  while (true) {
    Expected<bool> row = select->step();
    Expected<Sha256> digest = row && *row ? digest_column(database, *select, 1) : Sha256{};
    if (!row || !digest) {
      select->reset();
      return std::unexpected(!row ? row.error() : digest.error());
    }
    if (!*row) {
      break;
    }
    doomed.emplace_back(select->column_int64(0), *digest);
  }
  select->reset();
  for (const auto& [id, digest] : doomed) {
    TRY_ASSIGN(db::Statement* remove, database.cached(k_delete_entry));
    remove->bind_int64(1, id);
    TRY(remove->run());
    TRY(m_impl->release_if_unreferenced(digest));
  }
  PurgeResult result;
  result.removed_entries = static_cast<int64_t>(doomed.size());
  TRY_ASSIGN(const int64_t bytes_after, m_impl->single_int(k_total_bytes));
  result.removed_bytes = bytes_before - bytes_after;
  TRY_ASSIGN(result.kept_pinned, m_impl->single_int(k_count_pinned));
  TRY(transaction.commit());
  return result;
}

Expected<std::vector<std::byte>> Store::read_entry(const Entry& entry)
{
  Hit hit;
  hit.key = entry.key;
  hit.digest = entry.digest;
  hit.size = entry.size;
  hit.object_path = m_impl->object_path(entry.digest);
  hit.source = entry.source;
  return read_object(hit);
}

Expected<int64_t> Store::add_pin(const PinRule& rule)
{
  db::Transaction transaction(*m_impl->database);
  TRY(m_impl->begin_write(transaction));
  TRY_ASSIGN(const int64_t matched, pins::add(*m_impl->database, rule, now_unix_ms()));
  TRY(transaction.commit());
  return matched;
}

Expected<bool> Store::remove_pin(const PinRule& rule)
{
  db::Transaction transaction(*m_impl->database);
  TRY(m_impl->begin_write(transaction));
  TRY_ASSIGN(const bool removed, pins::remove(*m_impl->database, rule));
  TRY(transaction.commit());
  return removed;
}

Expected<std::vector<PinRule>> Store::pins()
{
  return pins::list(*m_impl->database);
}

Expected<StoreStats> Store::stats()
{
  TRY(m_impl->flush_uses()); // this process's own counts are exact
  StoreStats stats;
  stats.mode = m_impl->options.mode;
  stats.root = m_impl->options.root;
  stats.max_bytes = m_impl->options.max_bytes;
  TRY_ASSIGN(stats.entries, m_impl->single_int(k_count_entries));
  TRY_ASSIGN(stats.bytes, m_impl->single_int(k_total_bytes));
  TRY_ASSIGN(db::Statement* select, m_impl->database->cached(k_select_counters));
  while (true) {
    TRY_ASSIGN(const bool row, select->step());
    if (!row) {
      break;
    }
    const std::string name = select->column_text(0);
    const int64_t value = select->column_int64(1);
    if (name == k_hits) {
      stats.hits = value;
    } else if (name == k_misses) {
      stats.misses = value;
    } else if (name == k_inserts) {
      stats.inserts = value;
    } else if (name == k_evictions) {
      stats.evictions = value;
    } else if (name == k_quarantined) {
      stats.quarantined = value;
    } else if (name == k_trash_cut_short) {
      stats.trash_cut_short = value;
    }
  }
  select->reset();
  TRY_ASSIGN(stats.trash_objects, m_impl->single_int(k_trash_count));
  TRY_ASSIGN(stats.trash_bytes, m_impl->single_int(k_trash_bytes));
  stats.index_replacements = m_impl->index_replacements;
  return stats;
}

// Inside a write transaction, so that no insert can adopt a file between the check and the unlink.
Expected<int64_t> Store::Impl::remove_unnamed_objects(std::filesystem::file_time_type cutoff)
{
  int64_t removed = 0;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(objects_dir, error), end;
       !error && it != end; it.increment(error)) {
    const std::optional<Sha256> digest = digest_of_object_path(it->path());
    if (!digest || !it->is_regular_file(error) || it->last_write_time(error) > cutoff) {
      continue; // not ours, not a file, or young enough to be an insert about to commit
    }
    TRY_ASSIGN(const int64_t named, count_named(k_count_objects_named, *digest));
    TRY_ASSIGN(const int64_t trashed, count_named(k_count_trash_named, *digest));
    if (named > 0 || trashed > 0) {
      continue; // in use, or waiting out its grace period in the trash
    }
    if (::unlink(it->path().c_str()) != 0 && errno != ENOENT) {
      return std::unexpected(files::errno_error("remove", it->path(), errno));
    }
    ++removed;
  }
  if (error) {
    return std::unexpected(files::errno_error("list", objects_dir, error.value()));
  }
  return removed;
}

Expected<int64_t> Store::Impl::remove_stale_temps(std::filesystem::file_time_type cutoff)
{
  int64_t removed = 0;
  std::error_code error;
  for (std::filesystem::directory_iterator it(tmp_dir, error), end; !error && it != end;
       it.increment(error)) {
    if (!it->is_regular_file(error) || it->last_write_time(error) > cutoff) {
      continue;
    }
    if (::unlink(it->path().c_str()) != 0 && errno != ENOENT) {
      return std::unexpected(files::errno_error("remove", it->path(), errno));
    }
    ++removed;
  }
  if (error) {
    return std::unexpected(files::errno_error("list", tmp_dir, error.value()));
  }
  return removed;
}

Expected<int64_t> Store::collect_garbage(std::chrono::seconds min_age)
{
  const std::filesystem::file_time_type cutoff =
      std::filesystem::file_time_type::clock::now() - min_age;
  db::Transaction transaction(*m_impl->database);
  TRY(m_impl->begin_write(transaction));
  TRY_ASSIGN(const int64_t objects, m_impl->remove_unnamed_objects(cutoff));
  TRY_ASSIGN(const int64_t temps, m_impl->remove_stale_temps(cutoff));
  TRY_ASSIGN(const int64_t trashed,
             m_impl->collect_trash(now_unix_ms() - m_impl->options.trash_grace.count()));
  TRY(transaction.commit());
  return objects + temps + trashed;
}

Expected<int64_t> Store::collect_trash()
{
  const int64_t due_ms = now_unix_ms() - m_impl->options.trash_grace.count();
  TRY_ASSIGN(db::Statement* count, m_impl->database->cached(k_count_trash_due));
  count->bind_int64(1, due_ms);
  TRY_ASSIGN(const bool row, count->step());
  const int64_t due = row ? count->column_int64(0) : 0;
  count->reset();
  if (due == 0) {
    return 0;
  }
  db::Transaction transaction(*m_impl->database);
  TRY(m_impl->begin_write(transaction));
  TRY_ASSIGN(const int64_t removed, m_impl->collect_trash(due_ms));
  TRY(transaction.commit());
  return removed;
}

} // namespace d4r::cache
