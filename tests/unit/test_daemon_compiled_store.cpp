// CompiledStore on a real cache (SQLite, files), without a server: the key rules, the size cap,
// the claimed digest, bytes and path answers, damage, and eviction shared with replacements.

#include "daemon/compiled_store.hpp"

#include "util/compiled_key.hpp"
#include "util/digest.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <span>
#include <string>

#include <stdlib.h>
#include <sys/stat.h>

namespace d4r::daemon {
namespace {

std::span<const std::byte> bytes_of(const std::string& text)
{
  return std::as_bytes(std::span<const char>(text));
}

CompiledKey key_for(std::string_view identity = "zluda 5 (abc)", std::string_view target = "gfx1101",
                    std::vector<std::string> options = {"b=2", "a=1"}, Mode mode = Mode::fast)
{
  Expected<CompiledKey> key =
      make_compiled_key(sha256("ptx module text"), identity, target, std::move(options), mode);
  EXPECT_TRUE(key) << (key ? "" : key.error().message);
  return key ? *key : CompiledKey{};
}

class CompiledStoreTest : public ::testing::Test {
protected:
  void open(int64_t max_bytes = 4LL << 30)
  {
    std::string pattern =
        (std::filesystem::path(::testing::TempDir()) / "d4r-compiled-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_root = pattern;
    cache::CacheOptions options;
    options.root = m_root;
    options.max_bytes_per_mode = max_bytes;
    options.trash_grace = std::chrono::milliseconds(0);
    Expected<std::unique_ptr<cache::Cache>> opened = cache::Cache::open(options);
    ASSERT_TRUE(opened) << opened.error().message;
    m_cache = std::move(*opened);
    m_store = std::make_unique<CompiledStore>(*m_cache, m_counters, 4096);
  }
  void SetUp() override { open(); }
  void TearDown() override
  {
    m_store.reset();
    m_cache.reset();
    std::filesystem::remove_all(m_root);
  }

  void store(const CompiledKey& key, const std::string& object)
  {
    Expected<int64_t> stored = m_store->store(key, bytes_of(object), sha256(object));
    ASSERT_TRUE(stored) << stored.error().message;
    EXPECT_EQ(*stored, static_cast<int64_t>(object.size()));
  }

  std::filesystem::path m_root;
  Counters m_counters;
  std::unique_ptr<cache::Cache> m_cache;
  std::unique_ptr<CompiledStore> m_store;
};

TEST(CompiledKeyTest, OptionsAreASetAndEveryPartIsChecked)
{
  CompiledKey key = key_for("id", "gfx1101", {"b=2", "a=1", "b=2"});
  EXPECT_EQ(key.options, (std::vector<std::string>{"a=1", "b=2"}));
  EXPECT_EQ(canonical_options_text(key), "a=1\nb=2\n");
  const Sha256 module = sha256("m");
  EXPECT_TRUE(make_compiled_key(module, "id", "gfx90a:xnack-", {}, Mode::fast));
  for (auto [identity, target, option] :
       {std::tuple<std::string, std::string, std::string>{"", "gfx1101", "a"},
        {std::string(1025, 'i'), "gfx1101", "a"},
        {"id\t", "gfx1101", "a"},
        {"id", "sm_80", "a"},
        {"id", "gfx", "a"},
        {"id", "gfx1101/../x", "a"},
        {"id", "gfx1101", ""},
        {"id", "gfx1101", "a\nb"},
        {"id", "gfx1101", std::string(4097, 'o')}}) {
    Expected<CompiledKey> refused = make_compiled_key(module, identity, target, {option}, Mode::fast);
    ASSERT_FALSE(refused) << identity << " " << target << " " << option;
    EXPECT_EQ(refused.error().code, ErrorCode::invalid_argument);
  }
  EXPECT_FALSE(make_compiled_key(module, "id", "gfx1101", std::vector<std::string>(257, "o"),
                                 Mode::fast));
}

TEST(CompiledKeyTest, ItsCacheKeyIsANamespaceOfItsOwn)
{
  cache::CacheKey key = CompiledStore::cache_key_of(key_for());
  EXPECT_EQ(key.recipe, k_compiled_recipe);
  EXPECT_EQ(key.kernel, "zluda_" + to_hex(sha256("ptx module text")));
  EXPECT_EQ(key.toolchain, "zluda 5 (abc)");
  EXPECT_EQ(key.variant, "a=1\nb=2\n");
  EXPECT_EQ(key.target, "gfx1101");
  EXPECT_TRUE(validate_kernel_name(key.kernel)); // the store takes only kernel names
}

TEST_F(CompiledStoreTest, StoresAndServesByPathAndByBytes)
{
  const CompiledKey key = key_for();
  store(key, "compiled code object");
  CompiledLookup by_path = m_store->lookup(key, true, std::nullopt);
  ASSERT_TRUE(by_path.found) << by_path.reason;
  EXPECT_EQ(by_path.digest, sha256("compiled code object"));
  EXPECT_TRUE(std::filesystem::is_regular_file(by_path.object_path));
  EXPECT_TRUE(by_path.object_bytes.empty());
  CompiledLookup by_bytes = m_store->lookup(key, false, std::nullopt);
  ASSERT_TRUE(by_bytes.found) << by_bytes.reason;
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(by_bytes.object_bytes.data()),
                        by_bytes.object_bytes.size()),
            "compiled code object");
  EXPECT_FALSE(m_store->lookup(key_for("zluda 5 (abd)"), true, std::nullopt).found);
  EXPECT_FALSE(m_store->lookup(key_for("zluda 5 (abc)", "gfx1100"), true, std::nullopt).found);
  EXPECT_FALSE(m_store->lookup(key_for("zluda 5 (abc)", "gfx1101", {"a=1"}), true, std::nullopt).found);
  EXPECT_FALSE(m_store->lookup(key_for("zluda 5 (abc)", "gfx1101", {"b=2", "a=1"}, Mode::accuracy),
                               true, std::nullopt)
                   .found);
  EXPECT_EQ(m_counters.get(Counter::compiled_stored), 1);
  EXPECT_EQ(m_counters.get(Counter::compiled_hit), 2);
  EXPECT_EQ(m_counters.get(Counter::compiled_miss), 4);
}

TEST_F(CompiledStoreTest, RefusesObjectsOverTheCapAndBytesThatAreNotTheirDigest)
{
  const CompiledKey key = key_for();
  const std::string big(4097, 'x');
  Expected<int64_t> over = m_store->store(key, bytes_of(big), sha256(big));
  ASSERT_FALSE(over);
  EXPECT_EQ(over.error().code, ErrorCode::resource_exhausted);
  EXPECT_NE(over.error().message.find("4097 bytes is larger than the cap of 4096"), std::string::npos)
      << over.error().message;
  EXPECT_TRUE(m_store->check_size(4096));
  EXPECT_FALSE(m_store->check_size(0));
  Expected<int64_t> lied = m_store->store(key, bytes_of("abc"), sha256("abd"));
  ASSERT_FALSE(lied);
  EXPECT_NE(lied.error().message.find("do not match their sha256"), std::string::npos);
  EXPECT_FALSE(m_store->lookup(key, true, std::nullopt).found);
  EXPECT_EQ(m_counters.get(Counter::compiled_rejected), 2);
}

TEST_F(CompiledStoreTest, ADamageReportQuarantinesTheObject)
{
  const CompiledKey key = key_for();
  store(key, "compiled code object");
  CompiledLookup found = m_store->lookup(key, true, std::nullopt);
  ASSERT_TRUE(found.found);
  chmod(found.object_path.c_str(), 0644);
  {
    std::fstream file(found.object_path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(3);
    file.write("X", 1);
  }
  // A report for another digest changes nothing.
  EXPECT_TRUE(m_store->lookup(key, true, sha256("other")).found);
  CompiledLookup reported = m_store->lookup(key, true, found.digest);
  EXPECT_FALSE(reported.found);
  EXPECT_NE(reported.reason.find("quarantined"), std::string::npos) << reported.reason;
  EXPECT_FALSE(std::filesystem::exists(found.object_path));
  EXPECT_FALSE(m_store->lookup(key, true, std::nullopt).found);
  EXPECT_EQ(m_counters.get(Counter::compiled_damage_report), 1);
}

TEST_F(CompiledStoreTest, SharesTheModeCapAndLruWithReplacements)
{
  TearDown();
  open(3000); // room for two 1200-byte objects, not three
  const std::string replacement(1200, 'r');
  cache::CacheKey kernel_key{0x1234, "d4r_test_layer", "gfx1101", "", "prebuilt", "release"};
  ASSERT_TRUE(m_cache->insert(Mode::fast, kernel_key, bytes_of(replacement), "", "test"));
  store(key_for("id", "gfx1101", {"n=1"}), std::string(1200, 'a'));
  store(key_for("id", "gfx1101", {"n=2"}), std::string(1200, 'b'));
  // The replacement was used least recently: it went to make room, and nothing else did.
  Expected<std::optional<cache::Hit>> kernel = m_cache->lookup(Mode::fast, kernel_key);
  ASSERT_TRUE(kernel);
  EXPECT_FALSE(kernel->has_value());
  EXPECT_TRUE(m_store->lookup(key_for("id", "gfx1101", {"n=1"}), true, std::nullopt).found);
  store(key_for("id", "gfx1101", {"n=3"}), std::string(1200, 'c'));
  EXPECT_FALSE(m_store->lookup(key_for("id", "gfx1101", {"n=2"}), true, std::nullopt).found);
  EXPECT_TRUE(m_store->lookup(key_for("id", "gfx1101", {"n=1"}), true, std::nullopt).found);
  Expected<cache::StoreStats> stats = m_cache->stats(Mode::fast);
  ASSERT_TRUE(stats);
  EXPECT_LE(stats->bytes, 3000);
  EXPECT_GE(stats->evictions, 2);
}

// What Status shows of them: their rows only (not the replacements beside them), per mode, an
// object two keys share counted once, and the store's cap.
TEST_F(CompiledStoreTest, StatsCountTheirRowsOnly)
{
  Expected<CompiledStats> none = m_store->stats(Mode::fast);
  ASSERT_TRUE(none) << none.error().message;
  EXPECT_EQ(none->entries, 0);
  EXPECT_EQ(none->bytes, 0);
  EXPECT_EQ(none->max_bytes, 4LL << 30);
  cache::CacheKey kernel_key{0x1234, "d4r_test_layer", "gfx1101", "", "prebuilt", "release"};
  ASSERT_TRUE(m_cache->insert(Mode::fast, kernel_key, bytes_of(std::string(700, 'r')), "", "test"));
  store(key_for("id", "gfx1101", {"n=1"}), std::string(100, 'a'));
  store(key_for("id", "gfx1101", {"n=2"}), std::string(100, 'a')); // the same bytes
  store(key_for("id", "gfx1100", {"n=1"}), std::string(30, 'b'));
  store(key_for("id", "gfx1101", {"n=1"}, Mode::accuracy), std::string(5, 'c'));
  Expected<CompiledStats> fast = m_store->stats(Mode::fast);
  ASSERT_TRUE(fast) << fast.error().message;
  EXPECT_EQ(fast->mode, Mode::fast);
  EXPECT_EQ(fast->entries, 3);
  EXPECT_EQ(fast->bytes, 130);
  Expected<CompiledStats> accuracy = m_store->stats(Mode::accuracy);
  ASSERT_TRUE(accuracy);
  EXPECT_EQ(accuracy->entries, 1);
  EXPECT_EQ(accuracy->bytes, 5);
}

} // namespace
} // namespace d4r::daemon
