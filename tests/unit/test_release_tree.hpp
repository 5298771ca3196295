#pragma once
// Helpers for the test_release_* tests: a fresh temp directory per test (removed at the end) and
// one-line writers for release trees with tiny fake .hsaco files.

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace d4r::release::testing {

class TempTree {
public:
  TempTree()
  {
    std::string pattern = (std::filesystem::path(::testing::TempDir()) / "d4r-release-XXXXXX");
    char* made = ::mkdtemp(pattern.data());
    EXPECT_NE(made, nullptr) << "mkdtemp " << pattern;
    m_root = pattern;
  }
  ~TempTree()
  {
    std::error_code ignored;
    std::filesystem::remove_all(m_root, ignored);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  [[nodiscard]] const std::filesystem::path& root() const { return m_root; }

  // Writes `content` to root/relative, making the folders on the way.
  std::filesystem::path write(const std::filesystem::path& relative, std::string_view content) const
  {
    std::filesystem::path path = m_root / relative;
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
    EXPECT_TRUE(out.good()) << "writing " << path;
    return path;
  }

  std::filesystem::path mkdir(const std::filesystem::path& relative) const
  {
    std::filesystem::create_directories(m_root / relative);
    return m_root / relative;
  }

  // A fake code object: its bytes name it, which is all these rules need.
  std::filesystem::path object(const std::filesystem::path& folder, std::string_view kernel) const
  {
    return write(folder / (std::string(kernel) + ".hsaco"), "fake hsaco " + std::string(kernel));
  }

  std::filesystem::path manifest(const std::filesystem::path& folder, std::string_view text) const
  {
    return write(folder / "d4r-kernels.txt", text);
  }

  std::filesystem::path mark_accuracy(const std::filesystem::path& folder,
                                      std::string_view marker = "1\n") const
  {
    return write(folder / "d4r-accuracy.txt", marker);
  }

private:
  std::filesystem::path m_root;
};

} // namespace d4r::release::testing
