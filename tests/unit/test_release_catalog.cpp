#include "daemon/release/release_catalog.hpp"

#include "test_release_tree.hpp"
#include "util/kernel_identity.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace d4r::release {
namespace {

using testing::TempTree;

constexpr uint64_t k_sr_hash = 0x8baeb925f177af87ULL;
constexpr uint64_t k_other_hash = 0x1111111111111111ULL;

SelectionInputs fast_gfx1101()
{
  return SelectionInputs{"", "gfx1101", true, Mode::fast};
}

AuthorizationInputs request(std::string_view kernel, uint64_t hash = k_sr_hash)
{
  return AuthorizationInputs{kernel, hash, true};
}

// A gfx1101 folder listing d4r_test_layer (shipped) and d4r_not_shipped (no file).
void make_folder(const TempTree& tree)
{
  tree.object("gfx1101", "d4r_test_layer");
  tree.manifest("gfx1101", "# test\n"
                           "d4r_test_layer 8baeb925f177af87\n"
                           "d4r_not_shipped 8baeb925f177af87\n");
}

TEST(ReleaseCatalog, AllowedAnswerNamesTheObjectAndItsIdentity)
{
  TempTree tree;
  make_folder(tree);
  ReleaseCatalog catalog(tree.root());
  Expected<CatalogAnswer> answer = catalog.find(fast_gfx1101(), request("d4r_test_layer"));
  ASSERT_TRUE(answer) << answer.error().message;
  ASSERT_TRUE(answer->directory);
  EXPECT_EQ(answer->directory->folder_target, "gfx1101");
  EXPECT_EQ(answer->authorization.verdict, Verdict::allowed);
  const std::filesystem::path expected = tree.root() / "gfx1101" / "d4r_test_layer.hsaco";
  EXPECT_EQ(answer->object_path, expected);
  struct stat st {};
  ASSERT_EQ(::stat(expected.c_str(), &st), 0);
  EXPECT_TRUE(answer->object_identity.starts_with(std::to_string(st.st_size) + ":"));
  EXPECT_TRUE(answer->object_identity.ends_with(":" + std::to_string(st.st_ino)));

  Expected<std::vector<std::byte>> bytes =
      catalog.read_object(answer->object_path, k_default_max_object_bytes, answer->object_identity);
  ASSERT_TRUE(bytes) << bytes.error().message;
  std::string text(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  EXPECT_EQ(text, "fake hsaco d4r_test_layer");
}

TEST(ReleaseCatalog, RefusedAnswersCarryNoObject)
{
  TempTree tree;
  make_folder(tree);
  ReleaseCatalog catalog(tree.root());
  Expected<CatalogAnswer> mismatch = catalog.find(fast_gfx1101(), request("d4r_test_layer", 7));
  ASSERT_TRUE(mismatch);
  EXPECT_EQ(mismatch->authorization.verdict, Verdict::hash_mismatch);
  EXPECT_TRUE(mismatch->object_path.empty());
  Expected<CatalogAnswer> unlisted = catalog.find(fast_gfx1101(), request("d4r_test_simple"));
  ASSERT_TRUE(unlisted);
  EXPECT_EQ(unlisted->authorization.verdict, Verdict::not_listed);
}

TEST(ReleaseCatalog, NoFolderForTheTarget)
{
  TempTree tree;
  make_folder(tree);
  ReleaseCatalog catalog(tree.root());
  SelectionInputs inputs = fast_gfx1101();
  inputs.arch = "gfx1200";
  Expected<CatalogAnswer> answer = catalog.find(inputs, request("d4r_test_layer"));
  ASSERT_TRUE(answer);
  EXPECT_FALSE(answer->directory);
  EXPECT_EQ(answer->authorization.verdict, Verdict::not_listed);
  EXPECT_NE(answer->authorization.reason.find("gfx1200"), std::string::npos);
}

TEST(ReleaseCatalog, UsesItsOwnRoot)
{
  TempTree tree;
  make_folder(tree);
  ReleaseCatalog catalog(tree.root());
  SelectionInputs inputs = fast_gfx1101();
  inputs.root = "/nonexistent";
  Expected<CatalogAnswer> answer = catalog.find(inputs, request("d4r_test_layer"));
  ASSERT_TRUE(answer);
  EXPECT_EQ(answer->authorization.verdict, Verdict::allowed);
}

TEST(ReleaseCatalog, ManifestIsMemoisedUntilItChanges)
{
  TempTree tree;
  make_folder(tree);
  const std::filesystem::path manifest = tree.root() / "gfx1101" / "d4r-kernels.txt";
  const std::string listing_other = "# test\n"
                                    "d4r_test_layer 1111111111111111\n"
                                    "d4r_not_shipped 8baeb925f177af87\n";
  ReleaseCatalog catalog(tree.root());
  ASSERT_EQ(catalog.find(fast_gfx1101(), request("d4r_test_layer"))->authorization.verdict,
            Verdict::allowed);

  // Same size, same inode, mtime put back: the memo answers, so the old list still holds.
  std::filesystem::file_time_type old_time = std::filesystem::last_write_time(manifest);
  tree.manifest("gfx1101", listing_other);
  std::filesystem::last_write_time(manifest, old_time);
  EXPECT_EQ(catalog.find(fast_gfx1101(), request("d4r_test_layer"))->authorization.verdict,
            Verdict::allowed);

  // A new mtime: re-read.
  std::filesystem::last_write_time(manifest, old_time + std::chrono::seconds(5));
  EXPECT_EQ(catalog.find(fast_gfx1101(), request("d4r_test_layer"))->authorization.verdict,
            Verdict::hash_mismatch);
  EXPECT_EQ(
      catalog.find(fast_gfx1101(), request("d4r_test_layer", k_other_hash))->authorization.verdict,
      Verdict::allowed);

  // A different size with the old mtime: re-read too.
  tree.manifest("gfx1101", "d4r_test_layer 8baeb925f177af87\n");
  std::filesystem::last_write_time(manifest, old_time + std::chrono::seconds(5));
  EXPECT_EQ(catalog.find(fast_gfx1101(), request("d4r_test_layer"))->authorization.verdict,
            Verdict::allowed);
}

TEST(ReleaseCatalog, ListedButMissingObjectIsAClearError)
{
  TempTree tree;
  make_folder(tree);
  ReleaseCatalog catalog(tree.root());
  Expected<CatalogAnswer> answer = catalog.find(fast_gfx1101(), request("d4r_not_shipped"));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().code, ErrorCode::not_found);
  EXPECT_EQ(answer.error().message,
            "release: gfx1101/d4r_not_shipped.hsaco: manifest lists it but the file is missing");
}

// A C++ template kernel's name is longer than any file name, so no release can hold its object:
// a developer set (which serves whatever files it has) answers "not listed" with the reason,
// not an I/O error from the file system.
TEST(ReleaseCatalog, NameLongerThanAFileNameIsNotListed)
{
  TempTree tree;
  tree.object("", "d4r_test_layer");
  ReleaseCatalog catalog(tree.root());
  std::string name(1527, 'k');
  Expected<CatalogAnswer> answer = catalog.find(fast_gfx1101(), request(name));
  ASSERT_TRUE(answer) << answer.error().message;
  EXPECT_EQ(answer->authorization.verdict, Verdict::not_listed);
  EXPECT_EQ(answer->authorization.reason,
            "release: kernel name of 1527 bytes: no release object file can have it");
  EXPECT_EQ(catalog.find(fast_gfx1101(), request("d4r_test_layer"))->authorization.verdict,
            Verdict::allowed);
}

TEST(ReleaseCatalog, DanglingSymlinkIsAnError)
{
  TempTree tree;
  make_folder(tree);
  std::filesystem::create_symlink(tree.root() / "gone.hsaco",
                                  tree.root() / "gfx1101" / "d4r_not_shipped.hsaco");
  ReleaseCatalog catalog(tree.root());
  Expected<CatalogAnswer> answer = catalog.find(fast_gfx1101(), request("d4r_not_shipped"));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().code, ErrorCode::io);
  EXPECT_EQ(answer.error().message,
            "release: gfx1101/d4r_not_shipped.hsaco: dangling symlink (its target does not exist)");
}

TEST(ReleaseCatalog, SymlinkToARealFileServesTheTarget)
{
  TempTree tree;
  make_folder(tree);
  std::filesystem::path target = tree.write("store/blob", "shared object bytes");
  std::filesystem::create_symlink(target, tree.root() / "gfx1101" / "d4r_not_shipped.hsaco");
  ReleaseCatalog catalog(tree.root());
  Expected<CatalogAnswer> answer = catalog.find(fast_gfx1101(), request("d4r_not_shipped"));
  ASSERT_TRUE(answer) << answer.error().message;
  struct stat st {};
  ASSERT_EQ(::stat(target.c_str(), &st), 0);
  EXPECT_TRUE(answer->object_identity.ends_with(":" + std::to_string(st.st_ino)));
  Expected<std::vector<std::byte>> bytes = catalog.read_object(answer->object_path);
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->size(), std::string_view("shared object bytes").size());
}

TEST(ReleaseCatalog, NonRegularObjectIsRejected)
{
  TempTree tree;
  make_folder(tree);
  tree.mkdir("gfx1101/d4r_not_shipped.hsaco");
  ReleaseCatalog catalog(tree.root());
  Expected<CatalogAnswer> answer = catalog.find(fast_gfx1101(), request("d4r_not_shipped"));
  ASSERT_FALSE(answer);
  EXPECT_EQ(answer.error().code, ErrorCode::rejected);
  EXPECT_NE(answer.error().message.find("not a regular file"), std::string::npos);
  Expected<std::vector<std::byte>> bytes =
      catalog.read_object(tree.root() / "gfx1101/d4r_not_shipped.hsaco");
  ASSERT_FALSE(bytes);
  EXPECT_EQ(bytes.error().code, ErrorCode::rejected);
}

TEST(ReleaseCatalog, KernelNameIsValidatedBeforeItBecomesAPath)
{
  TempTree tree;
  make_folder(tree);
  // A file the traversal would reach, listed under the traversal name: never consulted.
  tree.object("", "x");
  tree.manifest("gfx1101", "d4r_test_layer 8baeb925f177af87\n");
  ReleaseCatalog catalog(tree.root());
  const std::vector<std::string_view> names = {"../x", "a/b", "..", std::string_view("a\0b", 3), ""};
  for (std::string_view name : names) {
    Expected<CatalogAnswer> answer = catalog.find(fast_gfx1101(), request(name));
    ASSERT_FALSE(answer) << name;
    EXPECT_EQ(answer.error().code, ErrorCode::invalid_argument) << name;
  }
  std::string long_name(k_max_kernel_name + 1, 'a');
  EXPECT_FALSE(catalog.find(fast_gfx1101(), request(long_name)));
}

TEST(ReleaseCatalog, DeveloperSetServesWhatItHas)
{
  TempTree tree;
  tree.object("", "d4r_test_layer");
  ReleaseCatalog catalog(tree.root());
  Expected<CatalogAnswer> has = catalog.find(fast_gfx1101(), request("d4r_test_layer", 42));
  ASSERT_TRUE(has) << has.error().message;
  EXPECT_EQ(has->directory->kind, DirectoryKind::developer_set);
  EXPECT_EQ(has->authorization.verdict, Verdict::allowed);
  EXPECT_EQ(has->object_path, tree.root() / "d4r_test_layer.hsaco");

  Expected<CatalogAnswer> lacks = catalog.find(fast_gfx1101(), request("d4r_test_simple", 42));
  ASSERT_TRUE(lacks) << lacks.error().message;
  EXPECT_EQ(lacks->authorization.verdict, Verdict::not_listed);
  EXPECT_TRUE(lacks->object_path.empty());

  AuthorizationInputs off = request("d4r_test_layer", 42);
  off.native_swin_encoders = false;
  Expected<CatalogAnswer> dropped = catalog.find(fast_gfx1101(), off);
  ASSERT_TRUE(dropped);
  EXPECT_EQ(dropped->authorization.verdict, Verdict::switched_off);
}

TEST(ReleaseCatalog, ReadObjectLimitsAndIdentity)
{
  TempTree tree;
  std::filesystem::path object = tree.object("", "k");
  ReleaseCatalog catalog(tree.root());
  Expected<std::vector<std::byte>> small = catalog.read_object(object, 4);
  ASSERT_FALSE(small);
  EXPECT_EQ(small.error().code, ErrorCode::resource_exhausted);
  Expected<std::vector<std::byte>> missing = catalog.read_object(tree.root() / "none.hsaco");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().code, ErrorCode::not_found);
  EXPECT_NE(missing.error().message.find("none.hsaco"), std::string::npos);
  Expected<std::vector<std::byte>> stale = catalog.read_object(object, 1024, "1:2:3");
  ASSERT_FALSE(stale);
  EXPECT_NE(stale.error().message.find("changed since it was selected"), std::string::npos);
}

// Drops the capabilities that let root read any file, so that mode 000 means EACCES.
bool drop_dac_capabilities()
{
  __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
  __user_cap_data_struct data[2] = {};
  if (::syscall(SYS_capget, &header, data) != 0) {
    return false;
  }
  const uint32_t dac = (1U << CAP_DAC_OVERRIDE) | (1U << CAP_DAC_READ_SEARCH);
  data[0].effective &= ~dac;
  return ::syscall(SYS_capset, &header, data) == 0;
}

// Tests run as root here, where mode bits do not stop a read; a forked child drops
// CAP_DAC_OVERRIDE/CAP_DAC_READ_SEARCH first, so the EACCES path is really taken.
TEST(ReleaseCatalog, UnreadableObjectIsAnIoErrorNamingIt)
{
  TempTree tree;
  std::filesystem::path object = tree.object("gfx1101", "locked");
  ASSERT_EQ(::chmod(object.c_str(), 0), 0);
  ReleaseCatalog catalog(tree.root());
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    if (!drop_dac_capabilities()) {
      ::_exit(77);
    }
    Expected<std::vector<std::byte>> bytes = catalog.read_object(object);
    bool ok = !bytes && bytes.error().code == ErrorCode::io &&
              bytes.error().message == "release: gfx1101/locked.hsaco: cannot open: permission denied";
    ::_exit(ok ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  if (WEXITSTATUS(status) == 77) {
    GTEST_SKIP() << "cannot drop CAP_DAC_OVERRIDE here, so mode 000 cannot be tested";
  }
  EXPECT_EQ(WEXITSTATUS(status), 0) << "read_object did not report EACCES as expected";
}

TEST(ReleaseCatalog, EnumerateListsCandidatesAndProblems)
{
  TempTree tree;
  tree.object("gfx1101", "a_kernel");
  tree.object("gfx1101", "unlisted_kernel");
  std::filesystem::create_symlink(tree.root() / "gone", tree.root() / "gfx1101" / "dangling.hsaco");
  tree.manifest("gfx1101", "a_kernel 8baeb925f177af87 sr\n"
                           "a_kernel 1111111111111111 sr\n"
                           "missing_kernel 8baeb925f177af87 sr\n"
                           "dangling 8baeb925f177af87 sr\n"
                           "bad line\n");
  ReleaseCatalog catalog(tree.root());
  Expected<ImportListing> listing = catalog.enumerate(fast_gfx1101());
  ASSERT_TRUE(listing) << listing.error().message;
  ASSERT_EQ(listing->candidates.size(), 1U);
  EXPECT_EQ(listing->candidates[0].name, "a_kernel");
  EXPECT_EQ(listing->candidates[0].object_path, tree.root() / "gfx1101" / "a_kernel.hsaco");
  EXPECT_FALSE(listing->candidates[0].identity.empty());
  ASSERT_EQ(listing->candidates[0].authorised_by.size(), 2U);
  EXPECT_EQ(listing->candidates[0].authorised_by[1].module_hash, k_other_hash);
  EXPECT_EQ(listing->candidates[0].authorised_by[0].origin, HashOrigin::super_resolution);
  std::vector<std::string> expected = {
      "release: gfx1101/d4r-kernels.txt: line 5: hash 'line' is not 16 hex digits",
      "release: gfx1101/dangling.hsaco: dangling symlink (its target does not exist)",
      "release: gfx1101/missing_kernel.hsaco: manifest lists it but the file is missing",
  };
  EXPECT_EQ(listing->problems, expected);
}

TEST(ReleaseCatalog, EnumerateOffersOnlyLinesOfTheKernelsOwnLibrary)
{
  TempTree tree;
  tree.object("gfx1101", "dl4rt_input_kernel");
  tree.object("gfx1101", "cuda_dldn_engine_test_kernel");
  tree.manifest("gfx1101", "cuda_dldn_engine_test_kernel 26332c9543501ce9 sr\n"
                           "dl4rt_input_kernel 26332c9543501ce9 rr\n"
                           "dl4rt_input_kernel 8baeb925f177af87 sr\n");
  ReleaseCatalog catalog(tree.root());
  Expected<ImportListing> listing = catalog.enumerate(fast_gfx1101());
  ASSERT_TRUE(listing) << listing.error().message;
  // The RR kernel has only an SR line: it is not offered at all (an empty list would read as a
  // developer set, served for any hash).
  ASSERT_EQ(listing->candidates.size(), 1U);
  EXPECT_EQ(listing->candidates[0].name, "dl4rt_input_kernel");
  ASSERT_EQ(listing->candidates[0].authorised_by.size(), 1U);
  EXPECT_EQ(listing->candidates[0].authorised_by[0].module_hash, k_sr_hash);
  std::vector<std::string> expected = {
      "release: gfx1101/d4r-kernels.txt: line 1: hash 26332c9543501ce9 comes from the super "
      "resolution library and cannot authorise cuda_dldn_engine_test_kernel",
      "release: gfx1101/d4r-kernels.txt: line 2: hash 26332c9543501ce9 comes from the ray "
      "reconstruction library and cannot authorise dl4rt_input_kernel",
  };
  EXPECT_EQ(listing->problems, expected);
}

TEST(ReleaseCatalog, EnumerateDeveloperSet)
{
  TempTree tree;
  tree.object("", "b_kernel");
  tree.object("", "a_kernel");
  tree.object("", "bad-name");
  tree.write("notes.txt", "not an object");
  ReleaseCatalog catalog(tree.root());
  Expected<ImportListing> listing = catalog.enumerate(fast_gfx1101());
  ASSERT_TRUE(listing) << listing.error().message;
  ASSERT_TRUE(listing->directory);
  EXPECT_EQ(listing->directory->kind, DirectoryKind::developer_set);
  ASSERT_EQ(listing->candidates.size(), 2U);
  EXPECT_EQ(listing->candidates[0].name, "a_kernel");
  EXPECT_EQ(listing->candidates[1].name, "b_kernel");
  EXPECT_TRUE(listing->candidates[0].authorised_by.empty());
  ASSERT_EQ(listing->problems.size(), 1U);
  EXPECT_NE(listing->problems[0].find("bad-name.hsaco"), std::string::npos) << listing->problems[0];
}

TEST(ReleaseCatalog, EnumerateWithoutAFolder)
{
  TempTree tree;
  tree.mkdir("gfx1100");
  ReleaseCatalog catalog(tree.root());
  Expected<ImportListing> listing = catalog.enumerate(fast_gfx1101());
  ASSERT_TRUE(listing);
  EXPECT_FALSE(listing->directory);
  EXPECT_TRUE(listing->candidates.empty());
}

TEST(ReleaseCatalog, ConcurrentFindsWhileTheManifestChanges)
{
  TempTree tree;
  make_folder(tree);
  ReleaseCatalog catalog(tree.root());
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&catalog, &failures] {
      for (int i = 0; i < 200; ++i) {
        Expected<CatalogAnswer> answer = catalog.find(fast_gfx1101(), request("d4r_test_layer"));
        if (!answer || (answer->authorization.verdict != Verdict::allowed &&
                        answer->authorization.verdict != Verdict::hash_mismatch)) {
          failures.fetch_add(1);
        }
      }
    });
  }
  // Atomic replacements (rename), as a release update would do.
  for (int i = 0; i < 50; ++i) {
    std::string text = i % 2 == 0 ? "d4r_test_layer 1111111111111111\n"
                                  : "d4r_test_layer 8baeb925f177af87\n# padding\n";
    tree.write("gfx1101/next.txt", text);
    std::filesystem::rename(tree.root() / "gfx1101/next.txt",
                            tree.root() / "gfx1101/d4r-kernels.txt");
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(catalog.find(fast_gfx1101(), request("d4r_test_layer"))->authorization.verdict,
            Verdict::allowed);
}

} // namespace
} // namespace d4r::release
