// Schema version 5 meets an index of version 4 as the old daemon left it: the tables made by the
// SQL version 4 ran, rows whose metadata is the protobuf message that protobuf itself serialises
// (what wire.cpp's serialize_launch_meta stored), and their objects on disk. Opened by the store,
// the rows answer with the same launch metadata in the cache's own encoding; none is lost.

#include "cache/cache.hpp"
#include "cache/launch_metadata.hpp"
#include "cache/row_check.hpp"
#include "cache/schema.hpp"
#include "util/digest.hpp"

#include "d4r/kernel/v1/kernel.pb.h"
#include "test_cache_support.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <bit>
#include <fstream>

namespace d4r::cache {
namespace {

using testing::TempDir;

// The schema as versions 1 to 4 created it (schema.cpp before version 5), in one script.
constexpr char k_version4_schema[] =
    "CREATE TABLE meta (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);"
    "CREATE TABLE entries (id INTEGER PRIMARY KEY, module_hash INTEGER NOT NULL, "
    "kernel TEXT NOT NULL, target TEXT NOT NULL, variant TEXT NOT NULL, toolchain TEXT NOT NULL, "
    "recipe TEXT NOT NULL, digest BLOB NOT NULL, size INTEGER NOT NULL, metadata BLOB NOT NULL, "
    "source TEXT NOT NULL, created_ms INTEGER NOT NULL, last_used_ms INTEGER NOT NULL, "
    "use_seq INTEGER NOT NULL, UNIQUE (module_hash, kernel, target, variant, toolchain, recipe));"
    "CREATE INDEX entries_digest ON entries (digest);"
    "CREATE INDEX entries_use_seq ON entries (use_seq);"
    "CREATE TABLE objects (digest BLOB PRIMARY KEY NOT NULL, size INTEGER NOT NULL);"
    "CREATE TABLE counters (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);"
    "INSERT INTO counters (name, value) VALUES ('hits', 0), ('misses', 0), ('inserts', 0), "
    "('evictions', 0), ('quarantined', 0), ('damaged_rows', 0), ('trash_cut_short', 0);"
    "ALTER TABLE entries ADD COLUMN row_check BLOB NOT NULL DEFAULT x'';"
    "CREATE TABLE trash (digest BLOB PRIMARY KEY NOT NULL, size INTEGER NOT NULL, "
    "removed_ms INTEGER NOT NULL);"
    "CREATE INDEX trash_removed ON trash (removed_ms);"
    "CREATE TABLE pins (id INTEGER PRIMARY KEY, kernel TEXT NOT NULL, any_hash INTEGER NOT NULL, "
    "module_hash INTEGER NOT NULL, label TEXT NOT NULL, created_ms INTEGER NOT NULL, "
    "UNIQUE (kernel, any_hash, module_hash));"
    "CREATE INDEX entries_last_used ON entries (last_used_ms);"
    "INSERT INTO meta (name, value) VALUES ('version', 4);";

constexpr char k_insert_row[] =
    "INSERT INTO entries (module_hash, kernel, target, variant, toolchain, recipe, digest, size, "
    "metadata, source, created_ms, last_used_ms, use_seq, row_check) "
    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1, 1, ?, ?)";

// A version 4 index, written by SQLite alone.
class OldIndex {
public:
  explicit OldIndex(const std::filesystem::path& root) : m_root(root)
  {
    std::filesystem::create_directories(root);
    EXPECT_EQ(sqlite3_open((root / "index.sqlite").c_str(), &m_db), SQLITE_OK);
    char* error = nullptr;
    EXPECT_EQ(sqlite3_exec(m_db, k_version4_schema, nullptr, nullptr, &error), SQLITE_OK)
        << (error ? error : "");
    sqlite3_free(error);
  }
  ~OldIndex() { sqlite3_close(m_db); }

  // One row and its object file; `check` false writes a check that does not match (damage).
  void add(const CacheKey& key, const std::string& object, const std::string& metadata,
           bool check = true)
  {
    const Sha256 digest = sha256(std::string_view(object));
    const std::string hex = to_hex(digest);
    std::filesystem::create_directories(m_root / "objects" / hex.substr(0, 2));
    std::ofstream(m_root / "objects" / hex.substr(0, 2) / hex.substr(2), std::ios::binary) << object;
    const auto size = static_cast<int64_t>(object.size());
    std::string row_check = row_check_of(key, digest, size, metadata, "release:old");
    if (!check) {
      row_check[0] = static_cast<char>(row_check[0] ^ 1);
    }
    sqlite3_stmt* insert = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(m_db, k_insert_row, -1, &insert, nullptr), SQLITE_OK);
    sqlite3_bind_int64(insert, 1, std::bit_cast<int64_t>(key.module_hash));
    int at = 2;
    for (const std::string* text : {&key.kernel, &key.target, &key.variant, &key.toolchain, &key.recipe}) {
      sqlite3_bind_text(insert, at++, text->c_str(), -1, SQLITE_TRANSIENT);
    }
    sqlite3_bind_blob(insert, 7, digest.data(), static_cast<int>(digest.size()), SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert, 8, size);
    sqlite3_bind_blob(insert, 9, metadata.data(), static_cast<int>(metadata.size()), SQLITE_TRANSIENT);
    sqlite3_bind_text(insert, 10, "release:old", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(insert, 11, ++m_sequence);
    sqlite3_bind_blob(insert, 12, row_check.data(), static_cast<int>(row_check.size()), SQLITE_TRANSIENT);
    EXPECT_EQ(sqlite3_step(insert), SQLITE_DONE) << sqlite3_errmsg(m_db);
    sqlite3_finalize(insert);
    const std::string objects = "INSERT OR IGNORE INTO objects (digest, size) VALUES (x'" + hex +
                                "', " + std::to_string(size) + ")";
    EXPECT_EQ(sqlite3_exec(m_db, objects.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
  }

private:
  std::filesystem::path m_root;
  sqlite3* m_db = nullptr;
  int64_t m_sequence = 0;
};

// A kernel's metadata as the old daemon serialised it, with the fields a hook reads.
std::string old_metadata(const std::string& kernel, std::vector<std::string> variables = {})
{
  ::d4r::kernel::v1::LaunchMetadata meta;
  meta.set_amdhsa_target("amdgcn-amd-amdhsa--gfx1201");
  meta.mutable_main()->set_name(kernel);
  meta.mutable_main()->set_kernarg_size(72);
  meta.mutable_main()->set_vgpr_count(128);
  meta.mutable_prep()->set_name(kernel + "_prep");
  meta.set_prep_blocks(2);
  meta.set_grid_x(40);
  ::d4r::kernel::v1::PostKernel& post = *meta.add_posts();
  post.set_name(kernel + "_post1");
  post.set_block_x(32);
  post.set_block_y(1);
  post.set_block_z(1);
  for (const std::string& name : variables) {
    ::d4r::kernel::v1::HostVariable& variable = *meta.add_host_variables();
    variable.set_name(name);
    variable.set_size(16);
  }
  meta.set_tensor_map_layout(7);
  return meta.SerializeAsString();
}

std::unique_ptr<Store> open_store(const std::filesystem::path& root)
{
  StoreOptions options;
  options.root = root;
  Expected<std::unique_ptr<Store>> store = Store::open(options);
  EXPECT_TRUE(store) << (store ? "" : store.error().message);
  return store ? std::move(*store) : nullptr;
}

TEST(MetadataMigration, Version4RowsAnswerWithTheirMetadataInTheNewEncoding)
{
  TempDir dir;
  const std::filesystem::path root = dir.path() / "fast";
  const CacheKey layer = testing::make_key("k_layer");
  const CacheKey vars = testing::make_key("k_vars");
  const CacheKey compiled = testing::make_key("zluda_compiled");
  {
    OldIndex old(root);
    old.add(layer, "object of k_layer", old_metadata("k_layer"));
    old.add(vars, "object of k_vars", old_metadata("k_vars", {"d_table", "k_scale"}));
    old.add(compiled, "a compiled module", ""); // the hook's compiled modules have none
  }
  std::unique_ptr<Store> store = open_store(root);
  ASSERT_NE(store, nullptr);
  for (const CacheKey& key : {layer, vars}) {
    Expected<std::optional<Hit>> hit = store->lookup(key);
    ASSERT_TRUE(hit) << hit.error().message;
    ASSERT_TRUE(hit->has_value()) << key.kernel << ": the row was lost";
    Expected<LaunchMetadata> meta = decode_launch_metadata((*hit)->metadata);
    ASSERT_TRUE(meta) << meta.error().message;
    EXPECT_EQ(meta->main.name, key.kernel);
    EXPECT_EQ(meta->main.kernarg_size, 72U);
    EXPECT_EQ(meta->main.vgpr_count, 128U);
    ASSERT_TRUE(meta->prep.has_value());
    EXPECT_EQ(meta->prep->name, key.kernel + "_prep");
    EXPECT_EQ(meta->prep_blocks, 2U);
    EXPECT_EQ(meta->grid_x, 40U);
    ASSERT_EQ(meta->posts.size(), 1U);
    EXPECT_EQ(meta->posts[0], (LaunchPost{key.kernel + "_post1", 0, 0, 32, 1, 1}));
    EXPECT_EQ(meta->tensor_map_layout, 7U);
    EXPECT_EQ(meta->amdhsa_target, "amdgcn-amd-amdhsa--gfx1201");
    Expected<std::vector<std::byte>> bytes = store->read_object(**hit);
    ASSERT_TRUE(bytes) << bytes.error().message;
    EXPECT_EQ(bytes->size(), ("object of " + key.kernel).size());
  }
  Expected<std::optional<Hit>> with_vars = store->lookup(vars);
  ASSERT_TRUE(with_vars && with_vars->has_value());
  EXPECT_EQ(decode_launch_metadata((*with_vars)->metadata)->host_variables,
            (std::vector<LaunchVariable>{{"d_table", 16}, {"k_scale", 16}}));
  Expected<std::optional<Hit>> none = store->lookup(compiled);
  ASSERT_TRUE(none && none->has_value()) << "a row without metadata is kept as it was";
  EXPECT_EQ((*none)->metadata, "");
  Expected<StoreStats> stats = store->stats();
  ASSERT_TRUE(stats);
  EXPECT_EQ(stats->entries, 3);
}

TEST(MetadataMigration, DamagedAndUnreadableRowsAreDroppedNotVouchedFor)
{
  TempDir dir;
  const std::filesystem::path root = dir.path() / "fast";
  const CacheKey damaged = testing::make_key("k_damaged");
  const CacheKey unreadable = testing::make_key("k_unreadable");
  const CacheKey good = testing::make_key("k_good");
  {
    OldIndex old(root);
    old.add(damaged, "object of k_damaged", old_metadata("k_damaged"), false);
    old.add(unreadable, "object of k_unreadable", std::string("\x0a\x7f", 2));
    old.add(good, "object of k_good", old_metadata("k_good"));
  }
  std::unique_ptr<Store> store = open_store(root);
  ASSERT_NE(store, nullptr);
  Expected<std::optional<Hit>> hit = store->lookup(damaged);
  ASSERT_FALSE(hit) << "a row that failed its check before the migration still fails it";
  EXPECT_EQ(hit.error().code, ErrorCode::corrupt);
  hit = store->lookup(unreadable);
  ASSERT_TRUE(hit) << hit.error().message;
  EXPECT_FALSE(hit->has_value()) << "metadata nothing can read: dropped quietly, built again";
  hit = store->lookup(good);
  ASSERT_TRUE(hit && hit->has_value());
  EXPECT_TRUE(decode_launch_metadata((*hit)->metadata));
  store.reset();
  // The version is recorded: a second open converts nothing again.
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open((root / "index.sqlite").c_str(), &db), SQLITE_OK);
  sqlite3_stmt* select = nullptr;
  ASSERT_EQ(sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE name = 'version'", -1, &select,
                               nullptr),
            SQLITE_OK);
  ASSERT_EQ(sqlite3_step(select), SQLITE_ROW);
  EXPECT_EQ(sqlite3_column_int64(select, 0), k_schema_version);
  sqlite3_finalize(select);
  sqlite3_close(db);
  store = open_store(root);
  ASSERT_NE(store, nullptr);
  hit = store->lookup(good);
  ASSERT_TRUE(hit && hit->has_value());
  EXPECT_TRUE(decode_launch_metadata((*hit)->metadata));
}

} // namespace
} // namespace d4r::cache
