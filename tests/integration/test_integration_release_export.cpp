// `d4r-kernel export` through the real daemon: a daemon that imported a release (real clang-19
// code objects) exports its cache as a release directory; a second daemon with a fresh cache
// serves that directory (--native-dir) and imports it, and then serves the same bytes for every
// target and mode, with the RR split still holding. Pins and `purge --older-than` over gRPC,
// with last-use times set in the index.

#include "daemon_process.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"
#include "util/digest.hpp"

#include <grpcpp/create_channel.h>
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <chrono>
#include <fstream>

namespace d4r::testing {
namespace {

namespace pb = ::d4r::kernel::v1;

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  return pb::KernelService::NewStub(grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                                        grpc::InsecureChannelCredentials()));
}

void with_deadline(grpc::ClientContext& context, int seconds = 60)
{
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(seconds));
}

pb::ResolveReply resolve(const DaemonProcess& daemon, uint64_t hash, const std::string& kernel,
                         const std::string& target, pb::Mode mode)
{
  pb::ResolveRequest request;
  request.set_module_hash(hash);
  request.set_kernel(kernel);
  request.mutable_selection()->set_target(target);
  request.mutable_selection()->set_mode(mode);
  pb::ResolveReply reply;
  grpc::ClientContext context;
  with_deadline(context, 10);
  grpc::Status status = stub_of(daemon)->Resolve(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply;
}

pb::ImportReply import(const DaemonProcess& daemon, const std::string& directory)
{
  pb::ImportRequest request;
  request.set_directory(directory);
  pb::ImportReply reply;
  grpc::ClientContext context;
  with_deadline(context);
  grpc::Status status = stub_of(daemon)->Import(&context, request, &reply);
  EXPECT_TRUE(status.ok()) << status.error_message();
  return reply;
}

grpc::Status export_to(const DaemonProcess& daemon, const std::filesystem::path& directory,
                       pb::ExportReply& reply)
{
  pb::ExportRequest request;
  request.set_directory(directory.string());
  grpc::ClientContext context;
  with_deadline(context);
  return stub_of(daemon)->Export(&context, request, &reply);
}

pb::ListReply list(const DaemonProcess& daemon)
{
  pb::ListReply reply;
  grpc::ClientContext context;
  with_deadline(context, 10);
  EXPECT_TRUE(stub_of(daemon)->List(&context, pb::ListRequest(), &reply).ok());
  return reply;
}

struct Served {
  std::string kernel;
  uint64_t hash;
  std::string target;
  pb::Mode mode;
};

// What each daemon must serve alike: fast per-target, gfx12 -fp8, accuracy, and an RR kernel.
const Served k_served[] = {
    {"d4r_test_layer", k_sr_module_hash, "gfx1101", pb::MODE_FAST},
    {"d4r_test_layer", k_sr_module_hash, "gfx1201", pb::MODE_FAST}, // from gfx1201-fp8
    {"d4r_test_layer", k_sr_module_hash, "gfx1101", pb::MODE_ACCURACY},
    {"d4r_test_simple", k_sr_module_hash, "gfx1201", pb::MODE_ACCURACY},
    {"cuda_dldn_engine_test_kernel", k_rr_module_hash, "gfx1100", pb::MODE_FAST},
    {"dl4rt_input_kernel", k_sr_module_hash, "gfx1103", pb::MODE_FAST},
};

TEST(ReleaseExportIntegration, AnExportedCacheServedByAFreshDaemonGivesTheSameBytes)
{
  TempDir dir;
  DaemonOptions a_options(dir.path() / "a");
  DaemonProcess a(a_options);
  ASSERT_TRUE(a.start());
  pb::ImportReply filled = import(a, release_fixture().string());
  ASSERT_GT(filled.imported(), 10);
  std::vector<pb::ResolveReply> from_a;
  for (const Served& s : k_served) {
    from_a.push_back(resolve(a, s.hash, s.kernel, s.target, s.mode));
    ASSERT_EQ(from_a.back().outcome(), pb::ResolveReply::READY) << s.kernel << " " << s.target;
  }

  const std::filesystem::path release = dir.path() / "handed-over";
  pb::ExportReply exported;
  grpc::Status status = export_to(a, release, exported);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_EQ(exported.objects(), filled.imported()) << "one object per imported entry";
  EXPECT_TRUE(std::filesystem::is_regular_file(release / "accuracy" / "gfx1101" / "d4r-accuracy.txt"));
  EXPECT_TRUE(std::filesystem::is_regular_file(release / "gfx1201-fp8" / "d4r-kernels.txt"));
  for (const auto& sibling : std::filesystem::directory_iterator(dir.path())) {
    EXPECT_FALSE(sibling.path().filename().string().starts_with(".handed-over.export-"))
        << "the temporary folder was renamed, not left: " << sibling.path();
  }
  // A second export to the same place is refused: it never writes into a release.
  pb::ExportReply again;
  EXPECT_EQ(export_to(a, release, again).error_code(), grpc::StatusCode::INVALID_ARGUMENT);

  DaemonOptions b_options(dir.path() / "b");
  b_options.native_dir = release;
  DaemonProcess b(b_options);
  ASSERT_TRUE(b.start());
  pb::ImportReply imported = import(b, "");
  EXPECT_EQ(imported.imported(), filled.imported());
  for (const std::string& problem : imported.problems()) {
    ADD_FAILURE() << "import of the exported release: " << problem;
  }
  for (size_t i = 0; i < std::size(k_served); ++i) {
    const Served& s = k_served[i];
    pb::ResolveReply reply = resolve(b, s.hash, s.kernel, s.target, s.mode);
    ASSERT_EQ(reply.outcome(), pb::ResolveReply::READY) << s.kernel << " " << s.target;
    EXPECT_EQ(reply.object().sha256(), from_a[i].object().sha256()) << s.kernel << " " << s.target;
    EXPECT_EQ(reply.object().data(), from_a[i].object().data()) << s.kernel << " " << s.target;
    EXPECT_EQ(reply.target(), from_a[i].target());
  }
  // The RR split came along: the super resolution hash does not authorise the RR kernel there,
  // as it did not in the original release.
  pb::ResolveReply wrong = resolve(b, k_sr_module_hash, "cuda_dldn_engine_test_kernel", "gfx1100",
                                   pb::MODE_FAST);
  pb::ResolveReply wrong_a = resolve(a, k_sr_module_hash, "cuda_dldn_engine_test_kernel",
                                     "gfx1100", pb::MODE_FAST);
  EXPECT_NE(wrong.outcome(), pb::ResolveReply::READY);
  EXPECT_EQ(wrong.outcome(), wrong_a.outcome());
  const std::string manifest = read_file(release / "gfx1100" / "d4r-kernels.txt");
  EXPECT_NE(manifest.find("\ncuda_dldn_engine_test_kernel 26332c9543501ce9 rr\n"), std::string::npos)
      << manifest;
  EXPECT_NE(manifest.find("\nd4r_test_layer 8baeb925f177af87 sr\n"), std::string::npos) << manifest;
  EXPECT_EQ(b.counter("ready"), static_cast<int64_t>(std::size(k_served)));
}

void set_last_used(const std::filesystem::path& cache, const std::string& mode,
                   const std::string& kernel, int64_t unix_ms)
{
  sqlite3* handle = nullptr;
  ASSERT_EQ(sqlite3_open((cache / mode / "index.sqlite").c_str(), &handle), SQLITE_OK);
  sqlite3_busy_timeout(handle, 5000);
  std::string sql = "UPDATE entries SET last_used_ms = " + std::to_string(unix_ms) +
                    " WHERE kernel = '" + kernel + "'";
  char* message = nullptr;
  EXPECT_EQ(sqlite3_exec(handle, sql.c_str(), nullptr, nullptr, &message), SQLITE_OK)
      << (message ? message : "");
  sqlite3_free(message);
  sqlite3_close(handle);
}

TEST(ReleaseExportIntegration, PinnedEntriesSurviveAPurgeAndOlderThanGoesByLastUse)
{
  TempDir dir;
  DaemonProcess daemon{DaemonOptions(dir.path())};
  ASSERT_TRUE(daemon.start());
  ASSERT_GT(import(daemon, release_fixture().string()).imported(), 10);
  const int64_t total = list(daemon).entries_size();

  pb::PinRequest pin;
  pin.set_kernel("d4r_test_layer");
  pin.set_label("Game.exe");
  pb::PinReply pinned;
  {
    grpc::ClientContext context;
    with_deadline(context, 10);
    ASSERT_TRUE(stub_of(daemon)->Pin(&context, pin, &pinned).ok());
  }
  int64_t layer_entries = 0;
  const pb::ListReply listed = list(daemon);
  for (const pb::CacheEntry& entry : listed.entries()) {
    EXPECT_EQ(entry.pinned(), entry.kernel() == "d4r_test_layer") << entry.kernel();
    layer_entries += entry.kernel() == "d4r_test_layer" ? 1 : 0;
  }
  EXPECT_EQ(pinned.matched_entries(), layer_entries);
  ASSERT_EQ(pinned.pins_size(), 2) << "one rule per mode";
  { // a request naming neither kernel nor module lists the pins and adds none
    pb::PinReply listed_pins;
    grpc::ClientContext context;
    with_deadline(context, 10);
    ASSERT_TRUE(stub_of(daemon)->Pin(&context, pb::PinRequest{}, &listed_pins).ok());
    EXPECT_EQ(listed_pins.pins_size(), 2);
    EXPECT_EQ(listed_pins.matched_entries(), 0);
  }

  // Used 40 days ago: d4r_test_simple (unpinned) and d4r_test_layer (pinned); the rest now.
  const int64_t now = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::system_clock::now().time_since_epoch())
                          .count();
  const int64_t forty_days_ago = now - 40LL * 86'400'000;
  for (const char* mode : {"fast", "accuracy"}) {
    set_last_used(daemon.cache_dir(), mode, "d4r_test_simple", forty_days_ago);
    set_last_used(daemon.cache_dir(), mode, "d4r_test_layer", forty_days_ago);
  }
  pb::PurgeRequest older;
  older.set_older_than_ms(30LL * 86'400'000);
  pb::PurgeReply purged;
  {
    grpc::ClientContext context;
    with_deadline(context, 10);
    ASSERT_TRUE(stub_of(daemon)->Purge(&context, older, &purged).ok());
  }
  int64_t simple_left = 0;
  int64_t layer_left = 0;
  pb::ListReply after = list(daemon);
  for (const pb::CacheEntry& entry : after.entries()) {
    simple_left += entry.kernel() == "d4r_test_simple" ? 1 : 0;
    layer_left += entry.kernel() == "d4r_test_layer" ? 1 : 0;
  }
  EXPECT_EQ(simple_left, 0);
  EXPECT_EQ(layer_left, layer_entries) << "pinned entries stay, however old";
  EXPECT_EQ(purged.kept_pinned(), layer_entries);
  EXPECT_EQ(after.entries_size() + purged.removed_entries(), total);
  EXPECT_GT(purged.removed_entries(), 0);

  // A plain purge keeps the pinned ones too; --force takes them.
  pb::PurgeReply plain;
  {
    grpc::ClientContext context;
    with_deadline(context, 10);
    ASSERT_TRUE(stub_of(daemon)->Purge(&context, pb::PurgeRequest(), &plain).ok());
  }
  EXPECT_EQ(list(daemon).entries_size(), layer_entries);
  pb::PurgeRequest forced;
  forced.set_force(true);
  pb::PurgeReply gone;
  {
    grpc::ClientContext context;
    with_deadline(context, 10);
    ASSERT_TRUE(stub_of(daemon)->Purge(&context, forced, &gone).ok());
  }
  EXPECT_EQ(gone.removed_entries(), layer_entries);
  EXPECT_EQ(list(daemon).entries_size(), 0);
}

} // namespace
} // namespace d4r::testing
