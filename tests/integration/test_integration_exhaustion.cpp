// The cache on a filesystem that is full, read-only, or reached through symbolic links, with the
// real daemon. Full: builds and imports fail with the reason and are not remembered (space freed,
// the same build succeeds), nothing half-written is left or served, what is cached is still
// served. Read-only: the daemon serves what it has or refuses to start naming the folder; never a
// wrong object. Symlinks, the rule (cache/file_ops.hpp): the cache root may be a link (followed,
// as any path the user gives); inside the cache nothing is followed (O_NOFOLLOW, lstat): an
// object or module replaced by a link is not served, not built from and the file it points to is
// not touched; a folder of the cache replaced by a link is refused with the path.
// Full and read-only filesystems are tmpfs mounts the test makes: root only (else skipped).

#include "damage_support.hpp"

#include "util/digest.hpp"
#include "util/ptx_identity.hpp"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>

namespace d4r::testing {
namespace {

// A tmpfs of `size` mounted on `path` for the test's life (lazily unmounted at the end).
class TmpfsMount {
public:
  TmpfsMount(const std::filesystem::path& path, const std::string& size) : m_path(path)
  {
    std::filesystem::create_directories(path);
    std::string options = "size=" + size + ",mode=0700";
    if (::mount("tmpfs", path.c_str(), "tmpfs", 0, options.c_str()) != 0) {
      m_error = std::strerror(errno);
      return;
    }
    m_mounted = true;
  }
  ~TmpfsMount()
  {
    if (m_mounted) {
      ::umount2(m_path.c_str(), MNT_DETACH);
    }
  }
  TmpfsMount(const TmpfsMount&) = delete;
  TmpfsMount& operator=(const TmpfsMount&) = delete;
  [[nodiscard]] bool mounted() const { return m_mounted; }
  [[nodiscard]] const std::string& error() const { return m_error; }
  [[nodiscard]] bool remount(bool read_only)
  {
    return ::mount(nullptr, m_path.c_str(), nullptr, MS_REMOUNT | (read_only ? MS_RDONLY : 0),
                   nullptr) == 0;
  }

private:
  std::filesystem::path m_path;
  bool m_mounted = false;
  std::string m_error;
};

#define D4R_NEED_TMPFS(mount)                                                                     \
  if (::geteuid() != 0) {                                                                         \
    GTEST_SKIP() << "mounting a tmpfs needs root (uid " << ::geteuid() << ")";                   \
  }                                                                                               \
  if (!(mount).mounted()) {                                                                       \
    GTEST_SKIP() << "cannot mount a tmpfs here: " << (mount).error();                             \
  }

// Writes a filler file until the filesystem is full; returns its path.
std::filesystem::path fill_filesystem(const std::filesystem::path& folder)
{
  std::filesystem::path filler = folder / "filler";
  int fd = ::open(filler.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  EXPECT_GE(fd, 0);
  std::vector<char> block(64 * 1024, 'f');
  for (size_t chunk : {block.size(), size_t{4096}, size_t{512}, size_t{1}}) {
    while (::write(fd, block.data(), chunk) == static_cast<ssize_t>(chunk)) {
    }
  }
  EXPECT_EQ(errno, ENOSPC);
  ::close(fd);
  return filler;
}

pb::ResolveReply build_kernel(const DaemonProcess& daemon, const std::string& kernel,
                              const std::string& target)
{
  pb::BuildRequest request;
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(pb::MODE_FAST);
  request.set_wait_budget_ms(240000);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(260));
  grpc::Status status = stub_of(daemon)->Build(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply;
}

// Every object file of every store holds the bytes its name says (nothing half-written), and no
// temporary file is left in tmp/.
void expect_only_whole_objects(const std::filesystem::path& cache)
{
  for (const char* mode : {"fast", "accuracy"}) {
    for (const std::filesystem::path& object : files_under(cache / mode / "objects")) {
      std::string name = object.parent_path().filename().string() + object.filename().string();
      EXPECT_EQ(sha256_hex_of_file(object), name) << "a half-written object: " << object;
    }
    EXPECT_TRUE(files_under(cache / mode / "tmp").empty()) << "temporary files left in " << mode;
  }
}

TEST(Exhaustion, AFullFilesystemFailsBuildsCleanlyForgetsThemAndKeepsServing)
{
  TempDir dir;
  TmpfsMount mount(dir.path() / "cache", "64m");
  D4R_NEED_TMPFS(mount);
  DaemonOptions options{dir.path()};
  options.recipes_dir = shipped_recipes();
  options.log_file = dir.path() / "daemon.log"; // outside the full filesystem
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start()) << read_file(*options.log_file);
  Checker checker;
  ASSERT_EQ(checker.round(daemon).not_served, 0);

  std::filesystem::path filler = fill_filesystem(dir.path() / "cache");
  // What is cached is served; what is not fails with the reason, and nothing wrong comes back.
  EXPECT_EQ(checker.round(daemon).not_served, 0) << read_file(*options.log_file);
  pb::ResolveReply full = build_kernel(daemon, "d4r_example_layer", "gfx1100");
  EXPECT_NE(full.outcome(), pb::ResolveReply::READY);
  EXPECT_NE(full.reason().find("No space left on device"), std::string::npos) << full.reason();
  ASSERT_TRUE(process_alive(daemon.pid()));
  expect_only_whole_objects(dir.path() / "cache");

  // Nearly full: a little room, so that the failure comes later (the job file fits, the
  // compiler's output may not), each for a target of its own, none remembered.
  const std::vector<std::pair<int64_t, std::string>> nearly = {
      {16 << 10, "gfx1101"}, {128 << 10, "gfx1102"}, {1 << 20, "gfx1103"}};
  const auto filled = static_cast<int64_t>(std::filesystem::file_size(filler));
  for (const auto& [room, target] : nearly) {
    std::filesystem::resize_file(filler, static_cast<uintmax_t>(filled - room));
    pb::ResolveReply reply = build_kernel(daemon, "d4r_example_layer", target);
    std::printf("exhaustion: %lld KiB free, %s: %s %s\n", static_cast<long long>(room >> 10),
                target.c_str(), pb::ResolveReply::Outcome_Name(reply.outcome()).c_str(),
                reply.reason().c_str());
    std::filesystem::resize_file(filler, static_cast<uintmax_t>(filled));
    expect_only_whole_objects(dir.path() / "cache");
  }
  // Space again: the same builds are not "failed before", they are built.
  std::filesystem::remove(filler);
  for (const auto& [room, target] : nearly) {
    pb::ResolveReply reply = build_kernel(daemon, "d4r_example_layer", target);
    EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << target << ": " << reply.reason();
  }
  pb::ResolveReply built = build_kernel(daemon, "d4r_example_layer", "gfx1100");
  EXPECT_EQ(built.outcome(), pb::ResolveReply::READY) << built.reason();
  EXPECT_EQ(sha256(built.object().data()).size(), 32u);
  EXPECT_EQ(checker.round(daemon).not_served, 0);
  expect_only_whole_objects(dir.path() / "cache");
  std::printf("exhaustion: full filesystem: the build said \"%s\"\n", full.reason().c_str());
}

TEST(Exhaustion, AReadOnlyCacheServesWhatItHasOrRefusesToStartSayingWhy)
{
  TempDir dir;
  TmpfsMount mount(dir.path() / "cache", "64m");
  D4R_NEED_TMPFS(mount);
  DaemonOptions options{dir.path()};
  options.recipes_dir = shipped_recipes();
  options.log_file = dir.path() / "daemon.log";
  Checker checker;
  {
    DaemonProcess daemon(options);
    ASSERT_TRUE(daemon.start());
    ASSERT_EQ(checker.round(daemon).not_served, 0);
    EXPECT_EQ(daemon.stop(), 0);
  }
  // (Linux refuses to make a filesystem read-only while a file on it is open for writing, as the
  // running daemon's index is: EBUSY. So the daemon meets it at start, as after a remount.)
  ASSERT_TRUE(mount.remount(true)) << std::strerror(errno);
  // Started on it: serving only what it has, or refusing with the folder and the reason.
  DaemonProcess daemon(options);
  if (daemon.start()) {
    RoundCounts counts = checker.round(daemon);
    std::printf("exhaustion: on a read-only cache the daemon serves (%d ready, %d not)\n",
                counts.ready, counts.not_served);
  } else {
    std::string log = read_file(*options.log_file);
    EXPECT_NE(log.find((dir.path() / "cache").string()), std::string::npos) << log;
    EXPECT_NE(log.find("Read-only file system"), std::string::npos) << log;
    std::printf("exhaustion: on a read-only cache the daemon refuses to start:\n%s", log.c_str());
  }
  ASSERT_TRUE(mount.remount(false));
  DaemonProcess again(options);
  ASSERT_TRUE(again.start()) << read_file(*options.log_file);
  EXPECT_EQ(checker.round(again).not_served, 0);
}

TEST(Symlinks, TheCacheRootMayBeALink)
{
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "elsewhere");
  std::filesystem::create_directory_symlink(dir.path() / "elsewhere", dir.path() / "cache");
  DaemonProcess daemon(DaemonOptions{dir.path()});
  ASSERT_TRUE(daemon.start());
  Checker checker;
  EXPECT_EQ(checker.round(daemon).not_served, 0);
  EXPECT_FALSE(files_under(dir.path() / "elsewhere" / "fast" / "objects").empty());
}

struct Stamp {
  std::string content;
  struct timespec mtime {};
};

Stamp stamp_of(const std::filesystem::path& path)
{
  struct stat info {};
  EXPECT_EQ(::stat(path.c_str(), &info), 0) << path;
  return Stamp{read_file(path), info.st_mtim};
}

// An hour and more ago, so that a use mark would be written.
void age(const std::filesystem::path& path)
{
  struct timespec times[2] = {{::time(nullptr) - 7200, 0}, {::time(nullptr) - 7200, 0}};
  ASSERT_EQ(::utimensat(AT_FDCWD, path.c_str(), times, 0), 0);
}

void expect_untouched(const std::filesystem::path& path, const Stamp& before)
{
  Stamp now = stamp_of(path);
  EXPECT_TRUE(now.content == before.content) << path << " was written through a link";
  EXPECT_EQ(now.mtime.tv_sec, before.mtime.tv_sec) << path << " was touched through a link";
}

TEST(Symlinks, ObjectsLinkedToFilesOutsideAreNeitherServedNorTouched)
{
  TempDir dir;
  DaemonProcess daemon(DaemonOptions{dir.path()});
  ASSERT_TRUE(daemon.start());
  Checker checker;
  ASSERT_EQ(checker.round(daemon).not_served, 0);
  std::filesystem::path outside = dir.path() / "outside";
  std::filesystem::create_directories(outside);
  std::vector<std::filesystem::path> objects = files_under(daemon.cache_dir() / "fast" / "objects");
  ASSERT_GE(objects.size(), 2u);
  std::map<std::filesystem::path, Stamp> stamps;
  for (size_t i = 0; i < objects.size(); ++i) {
    // Half of them to a copy of themselves (the digest matches), half to another object.
    std::filesystem::path target = outside / ("copy" + std::to_string(i));
    std::filesystem::copy_file(objects[i % 2 == 0 ? i : (i + 1) % objects.size()], target);
    age(target);
    stamps[target] = stamp_of(target);
    ::chmod(objects[i].c_str(), 0600);
    std::filesystem::remove(objects[i]);
    std::filesystem::create_symlink(target, objects[i]);
  }
  RoundCounts counts = checker.round(daemon);
  EXPECT_EQ(counts.not_served, 0);
  for (const ServedKernel& served : served_kernels()) {
    pb::ResolveReply reply;
    ASSERT_TRUE(resolve_once(daemon, served, true, "", reply).ok());
    ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
    EXPECT_FALSE(std::filesystem::is_symlink(reply.object().path()))
        << served.kernel << ": a path answer names a link to " 
        << std::filesystem::read_symlink(reply.object().path());
  }
  for (const auto& [path, stamp] : stamps) {
    expect_untouched(path, stamp);
  }
}

TEST(Symlinks, AModuleLinkedToAFileOutsideIsNotBuiltFromNorTouched)
{
  TempDir dir;
  std::string ptx = read_file(D4R_TEST_SOURCE_DIR "/ptx/isa/alu_int.sm_90.ptx");
  ASSERT_FALSE(ptx.empty());
  uint64_t hash = ptx_module_hash(ptx);
  std::filesystem::path recipes = dir.path() / "recipes";
  std::filesystem::create_directories(recipes);
  std::ofstream(recipes / "alu.recipe") << "recipe = ptx_alu\nversion = 1\nkernels = int_arith32\n"
                                        << "modules = " << hash_to_hex(hash) << "\nlanguage = ptx\n";
  DaemonOptions options(dir.path());
  options.native_dir = std::filesystem::path();
  options.recipes_dir = recipes;
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  pb::PutModuleRequest put;
  Sha256 digest = sha256(std::string_view(ptx));
  put.mutable_module()->set_fnv1a64(hash);
  put.mutable_module()->set_sha256(std::string(digest.begin(), digest.end()));
  put.set_ptx(ptx);
  pb::PutModuleReply stored;
  grpc::ClientContext context;
  ASSERT_TRUE(stub_of(daemon)->PutModule(&context, put, &stored).ok());
  std::vector<std::filesystem::path> modules;
  for (const std::filesystem::path& file : files_under(daemon.cache_dir() / "modules")) {
    if (file.extension() == ".ptx") {
      modules.push_back(file);
    }
  }
  ASSERT_EQ(modules.size(), 1u);
  // The module replaced by a link to a file outside holding other PTX (same size, one edit).
  std::filesystem::path outside = dir.path() / "outside.ptx";
  std::string other = ptx;
  size_t at = other.find("add.s32");
  ASSERT_NE(at, std::string::npos);
  other.replace(at, 7, "sub.s32");
  std::ofstream(outside) << other;
  age(outside);
  Stamp before = stamp_of(outside);
  std::filesystem::remove(modules[0]);
  std::filesystem::create_symlink(outside, modules[0]);
  pb::ResolveRequest request;
  request.set_module_hash(hash);
  request.set_kernel("int_arith32");
  request.mutable_selection()->set_target("gfx1201");
  request.set_wait_budget_ms(120000);
  pb::ResolveReply reply;
  grpc::ClientContext resolve_context;
  ASSERT_TRUE(stub_of(daemon)->Resolve(&resolve_context, request, &reply).ok());
  EXPECT_NE(reply.outcome(), pb::ResolveReply::READY) << "built from a file outside the cache";
  expect_untouched(outside, before);
}

TEST(Symlinks, AFolderOfTheCacheReplacedByALinkIsRefusedWithItsPath)
{
  TempDir dir;
  DaemonOptions options{dir.path()};
  options.log_file = dir.path() / "daemon.log";
  {
    DaemonProcess daemon(options);
    ASSERT_TRUE(daemon.start());
    ASSERT_EQ(daemon.stop(), 0);
  }
  std::filesystem::path objects = dir.path() / "cache" / "fast" / "objects";
  std::filesystem::path outside = dir.path() / "outside";
  std::filesystem::rename(objects, outside);
  std::filesystem::create_directory_symlink(outside, objects);
  DaemonProcess daemon(options);
  EXPECT_FALSE(daemon.start()) << "started on a cache whose objects/ is a link";
  std::string log = read_file(*options.log_file);
  EXPECT_NE(log.find(objects.string()), std::string::npos) << log;
  EXPECT_NE(log.find("symbolic link"), std::string::npos) << log;
}

} // namespace
} // namespace d4r::testing
