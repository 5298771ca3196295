#include "cache/cache.hpp"

#include "cache/file_ops.hpp"

namespace d4r::cache {

Expected<std::unique_ptr<Cache>> Cache::open(const CacheOptions& options)
{
  if (options.root.empty()) {
    return make_error(ErrorCode::invalid_argument, "cache: no cache root given");
  }
  std::error_code error;
  std::filesystem::create_directories(options.root, error);
  if (error) {
    return std::unexpected(files::errno_error("create directory", options.root, error.value()));
  }
  std::unique_ptr<Cache> cache(new Cache());
  cache->m_root = options.root;
  for (const Mode mode : {Mode::fast, Mode::accuracy}) {
    StoreOptions store_options;
    store_options.root = options.root / to_string(mode);
    store_options.mode = mode;
    store_options.max_bytes = options.max_bytes_per_mode;
    store_options.trash_grace = options.trash_grace;
    TRY_ASSIGN(cache->slot(mode).store, Store::open(store_options));
    if (const std::string& note = cache->slot(mode).store->recovery_note(); !note.empty()) {
      cache->m_recovery_notes.push_back(note);
    }
  }
  return cache;
}

Cache::Slot& Cache::slot(Mode mode)
{
  switch (mode) {
  case Mode::fast:
    return m_fast;
  case Mode::accuracy:
    return m_accuracy;
  }
  D4R_UNREACHABLE("every mode has a store");
}

template <typename Call>
auto Cache::with_store(Mode mode, Call&& call) -> decltype(call(std::declval<Store&>()))
{
  Slot& s = slot(mode);
  std::lock_guard lock(s.mutex);
  if (s.store->index_damaged()) {
    TRY(replace_index(mode, *s.store)); // an earlier replacement failed: try again first
  }
  auto result = call(*s.store);
  if (!s.store->index_damaged()) {
    return result;
  }
  // SQLite found the index damaged (this call's error, or one it dropped, as a lookup drops a
  // failed use write). Until the next start every call would fail on it, so set it aside now.
  if (!replace_index(mode, *s.store)) {
    return result;
  }
  return call(*s.store); // on the fresh index: a lookup misses, an insert lands
}

Expected<void> Cache::replace_index(Mode mode, Store& store)
{
  TRY_ASSIGN(const std::string note, store.replace_damaged_index());
  if (m_on_index_replaced) {
    m_on_index_replaced(mode, note);
  }
  return {};
}

Expected<std::optional<Hit>> Cache::lookup(Mode mode, const CacheKey& key)
{
  return with_store(mode, [&](Store& store) { return store.lookup(key); });
}

Expected<bool> Cache::still_current(Mode mode, const Hit& hit, Outside outside)
{
  return with_store(mode, [&](Store& store) { return store.still_current(hit, outside); });
}

Expected<std::vector<std::byte>> Cache::read_object(Mode mode, const Hit& hit)
{
  return with_store(mode, [&](Store& store) { return store.read_object(hit); });
}

Expected<std::vector<std::byte>> Cache::read_entry(Mode mode, const Entry& entry)
{
  return with_store(mode, [&](Store& store) { return store.read_entry(entry); });
}

Expected<void> Cache::verify_object(Mode mode, const Hit& hit)
{
  return with_store(mode, [&](Store& store) { return store.verify_object(hit); });
}

Expected<Hit> Cache::insert(Mode mode, const CacheKey& key, std::span<const std::byte> object,
                            const std::string& metadata, const std::string& source)
{
  return with_store(mode,
                    [&](Store& store) { return store.insert(key, object, metadata, source); });
}

Expected<std::vector<Entry>> Cache::list(Mode mode)
{
  return with_store(mode, [&](Store& store) { return store.list(); });
}

Expected<PurgeResult> Cache::purge(Mode mode)
{
  return with_store(mode, [&](Store& store) { return store.purge(); });
}

Expected<PurgeResult> Cache::purge_where(Mode mode, const PurgeFilter& filter)
{
  return with_store(mode, [&](Store& store) { return store.purge_where(filter); });
}

Expected<int64_t> Cache::add_pin(Mode mode, const PinRule& rule)
{
  return with_store(mode, [&](Store& store) { return store.add_pin(rule); });
}

Expected<bool> Cache::remove_pin(Mode mode, const PinRule& rule)
{
  return with_store(mode, [&](Store& store) { return store.remove_pin(rule); });
}

Expected<std::vector<PinRule>> Cache::pins(Mode mode)
{
  return with_store(mode, [&](Store& store) { return store.pins(); });
}

Expected<StoreStats> Cache::stats(Mode mode)
{
  return with_store(mode, [&](Store& store) { return store.stats(); });
}

Expected<int64_t> Cache::collect_garbage(Mode mode, std::chrono::seconds min_age)
{
  return with_store(mode, [&](Store& store) { return store.collect_garbage(min_age); });
}

Expected<int64_t> Cache::collect_trash(Mode mode)
{
  return with_store(mode, [&](Store& store) { return store.collect_trash(); });
}

} // namespace d4r::cache
