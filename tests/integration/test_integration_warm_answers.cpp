// A warm Resolve's kept reply (kernel_service.cpp answer_kept) is sent again only while nothing it
// rests on changed: after a purge, another process's write to the index, a removed object file, a
// changed release or one swapped behind its symlink, the very next answer is made anew, never the
// kept one, also where the check before it had found nothing changed and trusted inotify
// (KernelCore::still_ready, change_watch.hpp).

#include "daemon_process.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;

class WarmAnswers : public ::testing::Test {
protected:
  void SetUp() override
  {
    // A release of our own, to change under the daemon, reached through a symlink as an atomic
    // deployment would leave it ("release" -> "release-a").
    std::filesystem::copy(release_fixture(), m_dir.path() / "release-a",
                          std::filesystem::copy_options::recursive);
    std::filesystem::create_symlink("release-a", release());
    DaemonOptions options(m_dir.path());
    options.native_dir = release();
    m_daemon = std::make_unique<DaemonProcess>(std::move(options));
    ASSERT_TRUE(m_daemon->start()) << "d4r-kerneld did not start";
    m_stub = pb::KernelService::NewStub(grpc::CreateChannel(
        "unix:" + m_daemon->socket_path().string(), grpc::InsecureChannelCredentials()));
  }

  [[nodiscard]] std::filesystem::path release() const { return m_dir.path() / "release"; }

  // Rewrites `manifest` so that it lists d4r_test_layer for module `to` where it listed `from`;
  // false when it had no such line.
  static bool list_layer_for(const std::filesystem::path& manifest, const std::string& from,
                             const std::string& to)
  {
    std::ifstream in(manifest);
    std::stringstream text;
    text << in.rdbuf();
    in.close();
    std::string listing = text.str();
    const std::string line = "d4r_test_layer " + from;
    const size_t at = listing.find(line);
    if (at == std::string::npos) {
      return false;
    }
    listing.replace(at, line.size(), "d4r_test_layer " + to);
    std::ofstream(manifest, std::ios::trunc) << listing;
    return true;
  }

  pb::ResolveReply resolve()
  {
    pb::ResolveRequest request;
    request.set_module_hash(k_sr_module_hash);
    request.set_kernel("d4r_test_layer");
    request.mutable_selection()->set_target("gfx1101");
    request.mutable_selection()->set_mode(pb::MODE_FAST);
    request.set_accept_path(true);
    pb::ResolveReply reply;
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::Status status = m_stub->Resolve(&context, request, &reply);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return reply;
  }

  // Warm: the first answer imports, the next ones are kept and sent again (the third and fourth
  // with nothing changed since the check before them: without a stat, where inotify is had).
  std::string warm_path()
  {
    pb::ResolveReply reply;
    for (int i = 0; i < 4; ++i) {
      reply = resolve();
      EXPECT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
    }
    return reply.object().path();
  }

  int entries()
  {
    pb::ListReply list;
    grpc::ClientContext context;
    EXPECT_TRUE(m_stub->List(&context, pb::ListRequest(), &list).ok());
    return list.entries_size();
  }

  TempDir m_dir;
  std::unique_ptr<DaemonProcess> m_daemon;
  std::unique_ptr<pb::KernelService::Stub> m_stub;
};

TEST_F(WarmAnswers, APurgeIsSeenByTheNextResolve)
{
  const std::string path = warm_path();
  ASSERT_EQ(entries(), 1);
  pb::PurgeReply purged;
  grpc::ClientContext context;
  ASSERT_TRUE(m_stub->Purge(&context, pb::PurgeRequest(), &purged).ok());
  ASSERT_EQ(entries(), 0);
  pb::ResolveReply reply = resolve();
  ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
  // Imported again (a kept reply would have left the index empty), into the same content address.
  EXPECT_EQ(entries(), 1);
  EXPECT_EQ(reply.object().path(), path);
}

TEST_F(WarmAnswers, AnotherProcesssWriteToTheIndexIsSeenByTheNextResolve)
{
  (void)warm_path();
  sqlite3* db = nullptr;
  const std::string index = (m_daemon->cache_dir() / "fast" / "index.sqlite").string();
  ASSERT_EQ(sqlite3_open(index.c_str(), &db), SQLITE_OK) << index;
  sqlite3_busy_timeout(db, 5000);
  char* error = nullptr;
  EXPECT_EQ(sqlite3_exec(db, "DELETE FROM entries", nullptr, nullptr, &error), SQLITE_OK)
      << (error ? error : "");
  sqlite3_free(error);
  EXPECT_EQ(sqlite3_changes(db), 1);
  sqlite3_close(db);
  // No List in between: it writes the index (the uses), which would tell the daemon by itself.
  pb::ResolveReply reply = resolve();
  ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
  EXPECT_EQ(entries(), 1);
}

TEST_F(WarmAnswers, ARemovedObjectFileIsPutBackBeforeItIsNamedAgain)
{
  const std::string path = warm_path();
  ASSERT_EQ(::unlink(path.c_str()), 0);
  pb::ResolveReply reply = resolve();
  ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << reply.reason();
  EXPECT_TRUE(std::filesystem::exists(reply.object().path())) << reply.object().path();
}

TEST_F(WarmAnswers, AChangedReleaseIsSeenByTheNextResolve)
{
  (void)warm_path();
  // The manifest now lists the kernel for another module only.
  const std::filesystem::path manifest = release() / "gfx1101" / "d4r-kernels.txt";
  ASSERT_TRUE(list_layer_for(manifest, "8baeb925f177af87", "1111111111111111"));
  pb::ResolveReply refused = resolve();
  EXPECT_EQ(refused.outcome(), pb::ResolveReply::NOT_FOUND);
  EXPECT_NE(refused.reason().find("1111111111111111"), std::string::npos) << refused.reason();

  // And a replaced object is imported anew: its content decides the cache key.
  ASSERT_TRUE(list_layer_for(manifest, "1111111111111111", "8baeb925f177af87"));
  ASSERT_EQ(resolve().outcome(), pb::ResolveReply::READY);
  const std::filesystem::path object = release() / "gfx1101" / "d4r_test_layer.hsaco";
  std::filesystem::path other;
  for (const auto& entry : std::filesystem::directory_iterator(release() / "gfx1101")) {
    if (entry.path().extension() == ".hsaco" && entry.path() != object) {
      other = entry.path();
      break;
    }
  }
  ASSERT_FALSE(other.empty());
  const std::string before = resolve().object().sha256();
  std::filesystem::copy_file(other, object, std::filesystem::copy_options::overwrite_existing);
  pb::ResolveReply changed = resolve();
  // The other kernel's object does not define d4r_test_layer: refused, or served under its own
  // digest; never the kept reply naming the old bytes.
  if (changed.outcome() == pb::ResolveReply::READY) {
    EXPECT_NE(changed.object().sha256(), before);
  }
}

TEST_F(WarmAnswers, AReleaseSwappedBehindItsSymlinkIsSeenByTheNextResolve)
{
  (void)warm_path();
  // Release b lists the kernel for another module only; the link is renamed over, atomically.
  const std::filesystem::path b = m_dir.path() / "release-b";
  std::filesystem::copy(m_dir.path() / "release-a", b, std::filesystem::copy_options::recursive);
  ASSERT_TRUE(list_layer_for(b / "gfx1101" / "d4r-kernels.txt", "8baeb925f177af87",
                             "2222222222222222"));
  std::filesystem::create_symlink("release-b", m_dir.path() / "release-next");
  std::filesystem::rename(m_dir.path() / "release-next", release());
  pb::ResolveReply refused = resolve();
  EXPECT_EQ(refused.outcome(), pb::ResolveReply::NOT_FOUND);
  EXPECT_NE(refused.reason().find("2222222222222222"), std::string::npos) << refused.reason();
}

} // namespace
} // namespace d4r::testing
