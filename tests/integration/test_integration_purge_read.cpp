// A purge between the daemon's READY answer, which names a file in the cache, and the client's
// read of that file: the read must still give the right bytes (the file waits out its grace in
// the store's trash). Under scripts/load.sh a purging second process made 826 of 640 000 reads
// fail open ("cannot open: No such file") before the trash. The read is the client library's own
// (client/object_file.cpp, read_verified_object), as libd4r_kernel_client does it.

#include "damage_support.hpp"

#include "client/object_file.hpp"
#include "util/digest.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <thread>

namespace d4r::testing {
namespace {

grpc::Status purge_all(const DaemonProcess& daemon, pb::PurgeReply& reply)
{
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
  return stub_of(daemon)->Purge(&context, pb::PurgeRequest(), &reply);
}

Sha256 digest_of(const std::string& bytes)
{
  Sha256 digest{};
  EXPECT_EQ(bytes.size(), digest.size());
  std::memcpy(digest.data(), bytes.data(), std::min(bytes.size(), digest.size()));
  return digest;
}

TEST(PurgeRead, APathAnswerStillReadsRightAfterAPurgeBeforeTheRead)
{
  TempDir dir;
  DaemonProcess daemon(DaemonOptions{dir.path()});
  ASSERT_TRUE(daemon.start());
  size_t read = 0;
  for (int round = 0; round < 3; ++round) {
    for (const ServedKernel& served : served_kernels()) {
      SCOPED_TRACE(served.kernel + " round " + std::to_string(round));
      pb::ResolveReply answer;
      ASSERT_TRUE(resolve_once(daemon, served, true, "", answer).ok());
      ASSERT_EQ(answer.outcome(), pb::ResolveReply::READY) << answer.reason();
      ASSERT_TRUE(answer.object().has_path());

      // The daemon has named the file; a second process purges before the client opens it.
      pb::PurgeReply purged;
      ASSERT_TRUE(purge_all(daemon, purged).ok());
      EXPECT_GE(purged.removed_entries(), 1);

      const Sha256 digest = digest_of(answer.object().sha256());
      Expected<std::string> bytes = client::read_verified_object(
          answer.object().path(), answer.object().size(), digest,
          std::chrono::steady_clock::now() + std::chrono::seconds(10));
      ASSERT_TRUE(bytes.has_value()) << bytes.error().message;
      EXPECT_EQ(sha256(std::string_view(*bytes)), digest);

      // The same object by bytes (imported again after the purge) is what the client read.
      pb::ResolveReply by_bytes;
      ASSERT_TRUE(resolve_once(daemon, served, false, "", by_bytes).ok());
      ASSERT_EQ(by_bytes.outcome(), pb::ResolveReply::READY) << by_bytes.reason();
      EXPECT_TRUE(by_bytes.object().data() == *bytes);
      ++read;
    }
  }
  EXPECT_EQ(read, 3 * served_kernels().size());
  ASSERT_TRUE(process_alive(daemon.pid()));
}

// With a short grace (--cache-trash-grace-seconds 1) the daemon's housekeeping removes the purged
// files soon after it, off the request path; a file given out is readable until then.
TEST(PurgeRead, ThePurgedFilesAreCollectedOnceTheirGraceHasPassed)
{
  TempDir dir;
  DaemonOptions options{dir.path()};
  options.extra_args = {"--cache-trash-grace-seconds", "1"};
  DaemonProcess daemon(options);
  ASSERT_TRUE(daemon.start());
  const ServedKernel& served = served_kernels().front();
  pb::ResolveReply answer;
  ASSERT_TRUE(resolve_once(daemon, served, true, "", answer).ok());
  ASSERT_EQ(answer.outcome(), pb::ResolveReply::READY) << answer.reason();
  const std::filesystem::path path = answer.object().path();
  pb::PurgeReply purged;
  ASSERT_TRUE(purge_all(daemon, purged).ok());
  Expected<std::string> bytes = client::read_verified_object(
      path.string(), answer.object().size(), digest_of(answer.object().sha256()),
      std::chrono::steady_clock::now() + std::chrono::seconds(10));
  ASSERT_TRUE(bytes.has_value()) << bytes.error().message;
  const auto purged_at = std::chrono::steady_clock::now();
  while (std::filesystem::exists(path) &&
         std::chrono::steady_clock::now() - purged_at < std::chrono::seconds(20)) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(std::filesystem::exists(path)) << "the trash was not collected";
  EXPECT_GE(std::chrono::steady_clock::now() - purged_at, std::chrono::milliseconds(500))
      << "collected before its grace";
  // Served again (imported anew), at the same content address.
  pb::ResolveReply again;
  ASSERT_TRUE(resolve_once(daemon, served, true, "", again).ok());
  ASSERT_EQ(again.outcome(), pb::ResolveReply::READY) << again.reason();
  EXPECT_EQ(again.object().path(), path.string());
  EXPECT_TRUE(std::filesystem::exists(path));
}

} // namespace
} // namespace d4r::testing
