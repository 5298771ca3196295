#pragma once
// The kernel cache: one store per accuracy mode (own SQLite index and object folder), objects
// content-addressed by SHA-256, written with write-fsync-rename before the index row commits, and
// verified on every read. The Cache facade owns the stores and serialises each one's access.

#include "cache/cache_key.hpp"
#include "cache/pin_rule.hpp"
#include "util/digest.hpp"
#include "util/error.hpp"
#include "util/kernel_identity.hpp"

#include <cstddef>
#include <cstdint>
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace d4r::cache {

// What the index was when a lookup read its row (Store::still_current): this process's writes
// and index replacements, and SQLite's data_version, which changes when another connection (another
// process sharing the store) commits.
struct LookupStamp {
  int64_t entry_id = -1;
  uint64_t writes = 0;
  int64_t index_replacements = 0;
  int64_t data_version = -1;
};

// Whether Store::still_current looks at what other processes may have done to the store (the
// index's data_version, the object file's size) or knows it unchanged.
enum class Outside { look, unchanged };

// An index row whose object is on disk. `object_path` is read-only to everyone but the store.
struct Hit {
  CacheKey key; // the request it answers, so that errors can name the kernel
  Sha256 digest{};
  int64_t size = 0;
  std::filesystem::path object_path;
  std::string metadata; // opaque to the cache: the daemon stores its serialised launch metadata
  std::string source;   // where the object came from, for people ("release:/path/x.hsaco")
  std::optional<LookupStamp> stamp; // set by lookup only
};

struct Entry {
  CacheKey key;
  Sha256 digest{};
  int64_t size = 0;
  std::string source;
  int64_t created_unix_ms = 0;
  int64_t last_used_unix_ms = 0;
  bool pinned = false; // a pin matches it (pin_rule.hpp)
};

struct StoreStats {
  Mode mode = Mode::fast;
  std::filesystem::path root;
  int64_t entries = 0;
  int64_t bytes = 0; // distinct objects on disk
  int64_t max_bytes = 0;
  int64_t hits = 0;
  int64_t misses = 0;
  int64_t inserts = 0;
  int64_t evictions = 0;
  int64_t quarantined = 0;
  // Objects no row names any more whose files wait out their grace period (StoreOptions::
  // trash_grace), counted toward max_bytes with `bytes`; and how many the cap made go early.
  int64_t trash_objects = 0;
  int64_t trash_bytes = 0;
  int64_t trash_cut_short = 0;
  int64_t index_replacements = 0; // damaged indexes this process replaced while running
};

struct PurgeResult {
  int64_t removed_entries = 0;
  int64_t removed_bytes = 0;
  int64_t kept_pinned = 0; // entries a filtered purge left because a pin matches them
};

struct StoreOptions {
  std::filesystem::path root; // <cache root>/<mode>
  Mode mode = Mode::fast;
  int64_t max_bytes = 4LL << 30;
  int busy_timeout_ms = 5000;
  // How long the file of an object no row names any more stays where answers named it: a client
  // holds the path of an answer given a moment ago and may not have opened it yet (a purge, an
  // eviction or a replaced object must not turn that read into a failure). Zero: removed at once.
  std::chrono::milliseconds trash_grace{std::chrono::seconds(60)};
};

// One accuracy mode's store: <root>/index.sqlite, <root>/objects/<2 hex>/<62 hex>,
// <root>/tmp/ for writes in progress, <root>/quarantine/ for objects that failed their digest.
// An object whose last row goes (purge, eviction, replacement, a dropped row) keeps its file in
// objects/ for trash_grace (the `trash` table), then collect_garbage removes it; while there its
// bytes count toward max_bytes, and an insert over the cap removes the oldest such files early.
// Not thread-safe: the Cache facade serialises access. Several processes may share one store.
class Store {
public:
  [[nodiscard]] static Expected<std::unique_ptr<Store>> open(const StoreOptions& options);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  // A hit whose object file is present with the recorded size; counts a hit or a miss. The use
  // (last_used, LRU order, counters) is written in a batch at most a second later, at the next
  // write, stats() or list() of this store, or when it closes: a warm lookup writes nothing.
  // A row that fails its check (damaged on disk) is dropped and returns ErrorCode::corrupt once;
  // the next lookup of the key is a miss.
  [[nodiscard]] Expected<std::optional<Hit>> lookup(const CacheKey& key);
  // Whether a hit that lookup() returned is still what it would return, without reading the
  // index: nothing written since (by this process, or committed by another: one PRAGMA
  // data_version, no table read), the index not replaced, and the object file there with its
  // size. True records the use as a lookup does. False for a hit without a stamp.
  // With Outside::unchanged the caller knows no other process touched the store's files since
  // `hit` was last found current (daemon/change_watch.hpp): only this process's writes and index
  // replacements are compared, with no system call.
  [[nodiscard]] Expected<bool> still_current(const Hit& hit, Outside outside = Outside::look);
  // The object's bytes, verified against the digest. A mismatch quarantines the object, drops
  // every index row that names it and returns ErrorCode::corrupt.
  [[nodiscard]] Expected<std::vector<std::byte>> read_object(const Hit& hit);
  // read_object for an entry that list() returned, without a lookup (no use is recorded: an
  // export is not a game's use, and purge --older-than goes by those).
  [[nodiscard]] Expected<std::vector<std::byte>> read_entry(const Entry& entry);
  // The same check without keeping the bytes (before handing out a path).
  [[nodiscard]] Expected<void> verify_object(const Hit& hit);
  // Writes the object (temp file, fsync, rename, fsync folder), then commits the index row, then
  // evicts least-recently-used entries while the store is over max_bytes.
  [[nodiscard]] Expected<Hit> insert(const CacheKey& key, std::span<const std::byte> object,
                                     const std::string& metadata, const std::string& source);
  [[nodiscard]] Expected<std::vector<Entry>> list();
  [[nodiscard]] Expected<PurgeResult> purge();
  // Only the entries the filter selects (pin_rule.hpp); pinned ones stay unless it is forced.
  [[nodiscard]] Expected<PurgeResult> purge_where(const PurgeFilter& filter);
  // Pins (pin_rule.hpp): add returns how many entries the rule matches now; remove whether the
  // rule was there. Eviction skips every entry a pin matches.
  [[nodiscard]] Expected<int64_t> add_pin(const PinRule& rule);
  [[nodiscard]] Expected<bool> remove_pin(const PinRule& rule);
  [[nodiscard]] Expected<std::vector<PinRule>> pins();
  [[nodiscard]] Expected<StoreStats> stats();
  // Removes object files that no index row names and that are older than min_age (a crash
  // between the rename and the index commit leaves such files behind), temp files older than
  // min_age, and trashed objects whose grace period has passed. Returns how many files it removed.
  [[nodiscard]] Expected<int64_t> collect_garbage(std::chrono::seconds min_age);
  // Only the trashed objects whose grace period has passed: no walk of the folders, and no write
  // at all when none is due, so it can run often. Returns how many files it removed.
  [[nodiscard]] Expected<int64_t> collect_trash();
  // Non-empty when open() found the index damaged (unreadable, or failing SQLite's quick_check),
  // moved it to <root>/damaged/ and started a fresh one: what happened, for the log.
  [[nodiscard]] const std::string& recovery_note() const;
  // True once SQLite has reported the open index damaged (SQLITE_CORRUPT or SQLITE_NOTADB, in a
  // lookup, a write, anything), or when replacing it failed and there is no index.
  [[nodiscard]] bool index_damaged() const;
  // Does what open() does with a damaged index, while running: closes it, moves it to
  // <root>/damaged/ (unless another process sharing the store has replaced it already) and opens
  // a fresh one. Returns the line for the log. When it fails the store has no index: call it
  // again before anything else (the Cache facade does).
  [[nodiscard]] Expected<std::string> replace_damaged_index();

  // For tests: insert calls _exit(k_crash_exit_code) after the object is renamed into place and
  // before the index commits, as a crash would (no destructor, no rollback). Use it in a child.
  static constexpr int k_crash_exit_code = 86;
  void set_crash_before_commit_for_testing(bool enabled) { m_crash_before_commit = enabled; }

private:
  struct Impl;
  explicit Store(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> m_impl;
  bool m_crash_before_commit = false;
};

struct CacheOptions {
  std::filesystem::path root; // stores live in <root>/fast and <root>/accuracy
  int64_t max_bytes_per_mode = 4LL << 30;
  std::chrono::milliseconds trash_grace{std::chrono::seconds(60)}; // StoreOptions::trash_grace
};

// The facade: the local tier, one Store per mode, each behind its own lock. An index that SQLite
// reports damaged during any call is replaced by a fresh one (Store::replace_damaged_index) and
// the call made once more on it, so that the caller sees a miss, not an error, and the listener
// set with on_index_replaced hears of it once.
class Cache {
public:
  [[nodiscard]] static Expected<std::unique_ptr<Cache>> open(const CacheOptions& options);

  [[nodiscard]] Expected<std::optional<Hit>> lookup(Mode mode, const CacheKey& key);
  [[nodiscard]] Expected<bool> still_current(Mode mode, const Hit& hit,
                                             Outside outside = Outside::look);
  [[nodiscard]] Expected<std::vector<std::byte>> read_object(Mode mode, const Hit& hit);
  [[nodiscard]] Expected<std::vector<std::byte>> read_entry(Mode mode, const Entry& entry);
  [[nodiscard]] Expected<void> verify_object(Mode mode, const Hit& hit);
  [[nodiscard]] Expected<Hit> insert(Mode mode, const CacheKey& key,
                                     std::span<const std::byte> object,
                                     const std::string& metadata, const std::string& source);
  [[nodiscard]] Expected<std::vector<Entry>> list(Mode mode);
  [[nodiscard]] Expected<PurgeResult> purge(Mode mode);
  [[nodiscard]] Expected<PurgeResult> purge_where(Mode mode, const PurgeFilter& filter);
  [[nodiscard]] Expected<int64_t> add_pin(Mode mode, const PinRule& rule);
  [[nodiscard]] Expected<bool> remove_pin(Mode mode, const PinRule& rule);
  [[nodiscard]] Expected<std::vector<PinRule>> pins(Mode mode);
  [[nodiscard]] Expected<StoreStats> stats(Mode mode);
  [[nodiscard]] Expected<int64_t> collect_garbage(Mode mode, std::chrono::seconds min_age);
  [[nodiscard]] Expected<int64_t> collect_trash(Mode mode);
  [[nodiscard]] const std::filesystem::path& root() const { return m_root; }
  // What open() did about damaged indexes (Store::recovery_note), one line each; for the log.
  [[nodiscard]] const std::vector<std::string>& recovery_notes() const { return m_recovery_notes; }
  // Called (under the store's lock: keep it short) with the log line each time a damaged index is
  // replaced while running. Set it before other threads use the cache.
  void on_index_replaced(std::function<void(Mode, const std::string&)> listener)
  {
    m_on_index_replaced = std::move(listener);
  }

private:
  struct Slot {
    std::mutex mutex;
    std::unique_ptr<Store> store;
  };
  Cache() = default;
  Slot& slot(Mode mode);
  // Runs `call` on the mode's store under its lock, replacing a damaged index before and after it
  // (and then running it once more, on the fresh index).
  template <typename Call>
  auto with_store(Mode mode, Call&& call) -> decltype(call(std::declval<Store&>()));
  [[nodiscard]] Expected<void> replace_index(Mode mode, Store& store);
  std::function<void(Mode, const std::string&)> m_on_index_replaced;
  std::filesystem::path m_root;
  Slot m_fast;
  Slot m_accuracy;
  std::vector<std::string> m_recovery_notes;
};

} // namespace d4r::cache
