// daemon/release_export: a cache holding real code objects (the release fixture, clang-19) is
// written as a release directory, which the release reader (daemon/release/) selects and
// enumerates without a problem, with manifests in d4r's format and the RR split; an export killed
// half-way or failing a write leaves no DIR and no accuracy marker, and the next export succeeds.

#include "daemon/release_export.hpp"

#include "daemon/release/directory_selection.hpp"
#include "daemon/release/manifest.hpp"
#include "daemon/release/release_catalog.hpp"
#include "util/digest.hpp"

#include <gtest/gtest.h>

#include <csignal>
#include <cstring>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

namespace d4r::daemon {
namespace {

constexpr uint64_t k_sr = 0x8baeb925f177af87ULL;
constexpr uint64_t k_rr = 0x26332c9543501ce9ULL;
constexpr uint64_t k_recipe_a = 0x1111222233334444ULL;
constexpr uint64_t k_recipe_b = 0x0000aaaabbbbccccULL;

std::filesystem::path fixture()
{
  return std::filesystem::path(D4R_BINARY_DIR) / "fixtures" / "release";
}

std::vector<std::byte> read_bytes(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::vector<std::byte> bytes(text.size());
  std::memcpy(bytes.data(), text.data(), text.size());
  return bytes;
}

std::string read_file_text(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

class ReleaseExport : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = ::testing::TempDir() + "d4r-export-XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
    m_cache = open_cache();
    ASSERT_NE(m_cache, nullptr);
    // The folders of a real release: fast per-target, gfx12 -fp8, accuracy.
    struct Row {
      Mode mode;
      const char* folder; // in the fixture
      const char* target;
      const char* kernel;
      uint64_t hash;
    };
    const Row rows[] = {
        {Mode::fast, "gfx1101", "gfx1101", "d4r_test_layer", k_sr},
        {Mode::fast, "gfx1101", "gfx1101", "d4r_test_simple", k_sr},
        {Mode::fast, "gfx1101", "gfx1101", "cuda_dldn_engine_test_kernel", k_rr},
        {Mode::fast, "gfx1101", "gfx1101", "d4r_broken_prep", k_sr}, // fails the contract
        {Mode::fast, "gfx1201-fp8", "gfx1201-fp8", "d4r_test_layer", k_sr},
        {Mode::accuracy, "accuracy/gfx1101", "gfx1101", "d4r_test_layer", k_sr},
        {Mode::accuracy, "accuracy/gfx1201", "gfx1201", "d4r_test_simple", k_sr},
    };
    for (const Row& row : rows) {
      insert(row.mode, fixture() / row.folder / (std::string(row.kernel) + ".hsaco"),
             cache::CacheKey{row.hash, row.kernel, row.target, "", "prebuilt", "release:x"});
    }
    // A recipe's object: module hash 0, listed for the recipe's hashes.
    insert(Mode::fast, fixture() / "gfx1100" / "d4r_test_simple.hsaco",
           cache::CacheKey{0, "d4r_test_simple", "gfx1100", "", "llvm-19", "recipe:simple@1:ab"});
  }
  void TearDown() override
  {
    m_cache.reset();
    std::error_code ignored;
    std::filesystem::remove_all(m_dir, ignored);
  }

  std::unique_ptr<cache::Cache> open_cache()
  {
    cache::CacheOptions options;
    options.root = m_dir / "cache";
    Expected<std::unique_ptr<cache::Cache>> cache = cache::Cache::open(options);
    EXPECT_TRUE(cache.has_value()) << (cache ? "" : cache.error().message);
    return cache ? std::move(*cache) : nullptr;
  }

  void insert(Mode mode, const std::filesystem::path& object, const cache::CacheKey& key)
  {
    std::vector<std::byte> bytes = read_bytes(object);
    ASSERT_FALSE(bytes.empty()) << object;
    Expected<cache::Hit> hit = m_cache->insert(mode, key, bytes, "m", "release:" + object.string());
    ASSERT_TRUE(hit.has_value()) << hit.error().message;
  }

  static std::vector<uint64_t> recipe_hashes(const cache::Entry& entry)
  {
    if (entry.key.recipe.starts_with("recipe:simple@")) {
      return {k_recipe_a, k_recipe_b};
    }
    return {};
  }

  Expected<ExportSummary> run_export(cache::Cache& cache, const std::filesystem::path& directory,
                                     std::function<void(const std::filesystem::path&)> hook = {})
  {
    ExportOptions options;
    options.directory = directory;
    options.after_object_for_testing = std::move(hook);
    return export_release(cache, options, recipe_hashes);
  }

  // Every d4r-accuracy.txt under `root`.
  static int64_t markers_under(const std::filesystem::path& root)
  {
    int64_t found = 0;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(root, ec);
         !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
      found += it->path().filename() == "d4r-accuracy.txt" ? 1 : 0;
    }
    return found;
  }

  std::vector<std::filesystem::path> export_siblings() const
  {
    std::vector<std::filesystem::path> found;
    for (const auto& entry : std::filesystem::directory_iterator(m_dir)) {
      if (entry.path().filename().string().starts_with(".out.export-")) {
        found.push_back(entry.path());
      }
    }
    return found;
  }

  std::filesystem::path m_dir;
  std::unique_ptr<cache::Cache> m_cache;
};

std::vector<std::string> names_of(const release::ImportListing& listing)
{
  std::vector<std::string> names;
  for (const release::ImportCandidate& candidate : listing.candidates) {
    names.push_back(candidate.name);
  }
  return names;
}

TEST_F(ReleaseExport, TheReleaseReaderSelectsAndEnumeratesEveryFolderWithoutAProblem)
{
  const std::filesystem::path out = m_dir / "out";
  Expected<ExportSummary> summary = run_export(*m_cache, out);
  ASSERT_TRUE(summary.has_value()) << summary.error().message;
  EXPECT_EQ(summary->objects, 7);
  EXPECT_EQ(summary->folders, (std::vector<std::string>{"accuracy/gfx1101", "accuracy/gfx1201",
                                                        "gfx1100", "gfx1101", "gfx1201-fp8"}));
  ASSERT_EQ(summary->problems.size(), 1U);
  EXPECT_NE(summary->problems[0].find("d4r_broken_prep"), std::string::npos) << summary->problems[0];
  EXPECT_FALSE(std::filesystem::exists(out / "gfx1101" / "d4r_broken_prep.hsaco"));

  release::ReleaseCatalog catalog(out);
  struct Expect {
    Mode mode;
    const char* arch;
    const char* folder;
    std::vector<std::string> names;
  };
  const Expect expected[] = {
      {Mode::fast, "gfx1101", "gfx1101",
       {"cuda_dldn_engine_test_kernel", "d4r_test_layer", "d4r_test_simple"}},
      {Mode::fast, "gfx1201", "gfx1201-fp8", {"d4r_test_layer"}},
      {Mode::fast, "gfx1100", "gfx1100", {"d4r_test_simple"}},
      {Mode::accuracy, "gfx1101", "gfx1101", {"d4r_test_layer"}},
      {Mode::accuracy, "gfx1201", "gfx1201", {"d4r_test_simple"}},
  };
  for (const Expect& e : expected) {
    Expected<release::ImportListing> listing =
        catalog.enumerate(release::SelectionInputs{out, e.arch, true, e.mode});
    ASSERT_TRUE(listing.has_value()) << listing.error().message;
    ASSERT_TRUE(listing->directory.has_value()) << to_string(e.mode) << " " << e.arch;
    EXPECT_EQ(listing->directory->kind, release::DirectoryKind::hash_checked);
    EXPECT_EQ(listing->directory->folder_target, e.folder);
    EXPECT_EQ(names_of(*listing), e.names) << e.folder;
    for (const std::string& problem : listing->problems) {
      ADD_FAILURE() << e.folder << ": " << problem;
    }
  }
  // No fallback the original would not have had: accuracy for gfx1100 finds no folder.
  Expected<release::ImportListing> none =
      catalog.enumerate(release::SelectionInputs{out, "gfx1100", true, Mode::accuracy});
  ASSERT_TRUE(none.has_value());
  EXPECT_FALSE(none->directory.has_value());

  // The manifests: d4r's format, every line parsed, the origin recorded, the RR split held.
  Expected<release::Manifest> manifest = release::read_manifest(out / "gfx1101" / "d4r-kernels.txt");
  ASSERT_TRUE(manifest.has_value());
  EXPECT_TRUE(manifest->problems.empty());
  EXPECT_TRUE(manifest->records_origin);
  ASSERT_EQ(manifest->entries.size(), 3U);
  EXPECT_EQ(manifest->entries[0].name, "cuda_dldn_engine_test_kernel");
  EXPECT_EQ(manifest->entries[0].origin, release::HashOrigin::ray_reconstruction);
  EXPECT_EQ(manifest->entries[1].origin, release::HashOrigin::super_resolution);
  Expected<release::CatalogAnswer> rr_by_sr = catalog.find(
      release::SelectionInputs{out, "gfx1101", true, Mode::fast},
      release::AuthorizationInputs{"cuda_dldn_engine_test_kernel", k_sr, true});
  ASSERT_TRUE(rr_by_sr.has_value());
  EXPECT_NE(rr_by_sr->authorization.verdict, release::Verdict::allowed);
  Expected<release::CatalogAnswer> layer = catalog.find(
      release::SelectionInputs{out, "gfx1201", true, Mode::fast},
      release::AuthorizationInputs{"d4r_test_layer", k_sr, true});
  ASSERT_TRUE(layer.has_value());
  ASSERT_EQ(layer->authorization.verdict, release::Verdict::allowed);
  EXPECT_EQ(read_bytes(layer->object_path),
            read_bytes(fixture() / "gfx1201-fp8" / "d4r_test_layer.hsaco"));
  // The recipe object is listed for both of its recipe's hashes, sorted.
  EXPECT_EQ(read_file_text(out / "gfx1100" / "d4r-kernels.txt").substr(
                read_file_text(out / "gfx1100" / "d4r-kernels.txt").find("\nd4r_") + 1),
            "d4r_test_simple 0000aaaabbbbcccc sr\nd4r_test_simple 1111222233334444 sr\n");
  EXPECT_EQ(read_file_text(out / "accuracy" / "gfx1101" / "d4r-accuracy.txt"), "1\n");
  EXPECT_TRUE(export_siblings().empty());

  // Never into or over a release.
  Expected<ExportSummary> again = run_export(*m_cache, out);
  ASSERT_FALSE(again.has_value());
  EXPECT_EQ(again.error().code, ErrorCode::invalid_argument);
  Expected<ExportSummary> relative = run_export(*m_cache, "relative/out");
  ASSERT_FALSE(relative.has_value());
  EXPECT_EQ(relative.error().code, ErrorCode::invalid_argument);
}

TEST_F(ReleaseExport, AnExportKilledAfterItsLastObjectLeavesNoDirAndNoMarker)
{
  Expected<ExportSummary> full = run_export(*m_cache, m_dir / "complete");
  ASSERT_TRUE(full.has_value()) << full.error().message;
  const int64_t objects = full->objects;
  const std::filesystem::path out = m_dir / "out";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::unique_ptr<cache::Cache> cache = open_cache();
    int64_t written = 0;
    // Every object and manifest of the fast folders on disk, the markers not yet: killed.
    (void)run_export(*cache, out, [&](const std::filesystem::path&) {
      if (++written == objects) {
        ::raise(SIGKILL);
      }
    });
    ::_exit(3);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << status;
  EXPECT_FALSE(std::filesystem::exists(out)) << "an interrupted export never has DIR's name";
  std::vector<std::filesystem::path> left = export_siblings();
  ASSERT_EQ(left.size(), 1U) << "the hidden folder the kill left";
  EXPECT_EQ(markers_under(left[0]), 0);
  EXPECT_TRUE(std::filesystem::exists(left[0] / "accuracy" / "gfx1201" / "d4r_test_simple.hsaco"))
      << "killed after the last object, as asked";
  // Pointed at by mistake, the leftover serves no accuracy kernel.
  Expected<std::optional<release::SelectedDirectory>> selected = release::select_release_directory(
      release::SelectionInputs{left[0], "gfx1101", true, Mode::accuracy});
  ASSERT_TRUE(selected.has_value());
  EXPECT_FALSE(selected->has_value());

  // The next export removes the dead process's leftover and completes.
  Expected<ExportSummary> next = run_export(*m_cache, out);
  ASSERT_TRUE(next.has_value()) << next.error().message;
  EXPECT_TRUE(export_siblings().empty());
  EXPECT_EQ(markers_under(out), 2);
}

TEST_F(ReleaseExport, AFailingWriteLeavesNothingBehind)
{
  const std::filesystem::path out = m_dir / "out";
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    std::unique_ptr<cache::Cache> cache = open_cache();
    // Files past 2 000 bytes cannot be written (every object here is larger): the first object
    // write fails with EFBIG, as a full disk would fail it.
    ::signal(SIGXFSZ, SIG_IGN);
    struct rlimit limit {2000, 2000};
    ::setrlimit(RLIMIT_FSIZE, &limit);
    Expected<ExportSummary> summary = run_export(*cache, out);
    const bool io = !summary && summary.error().code == ErrorCode::io &&
                    summary.error().message.find("File too large") != std::string::npos;
    ::_exit(io ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the export failed with an io error naming the write";
  EXPECT_FALSE(std::filesystem::exists(out));
  EXPECT_TRUE(export_siblings().empty()) << "a failed export removes its own folder";
}

TEST_F(ReleaseExport, NothingSelectedIsNotFoundAndWritesNothing)
{
  ExportOptions options;
  options.directory = m_dir / "out";
  options.targets = {"gfx1102"};
  Expected<ExportSummary> summary = export_release(*m_cache, options, recipe_hashes);
  ASSERT_FALSE(summary.has_value());
  EXPECT_EQ(summary.error().code, ErrorCode::not_found);
  EXPECT_FALSE(std::filesystem::exists(options.directory));
  options.targets = {"gfx1201"}; // takes gfx1201-fp8 too
  options.mode = Mode::fast;
  Expected<ExportSummary> fp8 = export_release(*m_cache, options, recipe_hashes);
  ASSERT_TRUE(fp8.has_value()) << fp8.error().message;
  EXPECT_EQ(fp8->folders, (std::vector<std::string>{"gfx1201-fp8"}));
}

} // namespace
} // namespace d4r::daemon
