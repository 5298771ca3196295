#pragma once
// Helpers shared by the cache unit tests: a fresh temp directory per test, keys and byte buffers.

#include "cache/cache.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <sys/stat.h>
#include <vector>

namespace d4r::cache::testing {

inline constexpr uint64_t k_sr_module_hash = 0x8baeb925f177af87ULL; // tests/ptx/sr_module.ptx

// A directory of its own under GoogleTest's temp dir, removed (permissions restored) at the end.
class TempDir {
public:
  TempDir()
  {
    std::string pattern = ::testing::TempDir() + "d4r-cache-XXXXXX";
    char* made = ::mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr) << "mkdtemp " << pattern;
    m_path = pattern;
  }
  ~TempDir()
  {
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(m_path, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
      ::chmod(it->path().c_str(), 0700);
    }
    std::filesystem::remove_all(m_path, error);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const { return m_path; }

private:
  std::filesystem::path m_path;
};

inline CacheKey make_key(std::string kernel, std::string target = "gfx1201",
                         uint64_t module_hash = k_sr_module_hash)
{
  CacheKey key;
  key.module_hash = module_hash;
  key.kernel = std::move(kernel);
  key.target = std::move(target);
  key.variant = "";
  key.toolchain = "prebuilt";
  key.recipe = "release";
  return key;
}

inline std::vector<std::byte> bytes_of(std::string_view text)
{
  std::vector<std::byte> bytes(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    bytes[i] = static_cast<std::byte>(text[i]);
  }
  return bytes;
}

// `size` bytes whose content depends on `seed`: distinct seeds give distinct objects.
inline std::vector<std::byte> object_of(size_t size, uint32_t seed)
{
  std::vector<std::byte> bytes(size);
  uint32_t state = seed * 2654435761U + 1U;
  for (std::byte& b : bytes) {
    state = state * 1664525U + 1013904223U;
    b = static_cast<std::byte>(state >> 24);
  }
  return bytes;
}

// Regular files under `folder`, recursively.
inline int64_t count_files(const std::filesystem::path& folder)
{
  int64_t count = 0;
  std::error_code error;
  for (auto it = std::filesystem::recursive_directory_iterator(folder, error);
       !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
    if (it->is_regular_file()) {
      ++count;
    }
  }
  return count;
}

inline std::unique_ptr<Store> open_store(const std::filesystem::path& root,
                                         int64_t max_bytes = 1LL << 30,
                                         Mode mode = Mode::fast,
                                         std::chrono::milliseconds trash_grace =
                                             std::chrono::seconds(60))
{
  StoreOptions options;
  options.root = root;
  options.mode = mode;
  options.max_bytes = max_bytes;
  options.trash_grace = trash_grace;
  Expected<std::unique_ptr<Store>> store = Store::open(options);
  EXPECT_TRUE(store.has_value()) << (store ? "" : store.error().message);
  return store ? std::move(*store) : nullptr;
}

} // namespace d4r::cache::testing
