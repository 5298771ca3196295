// The commands against a fake KernelService on a Unix socket: what the CLI sends, what it prints,
// and the exit status, without the real daemon.

#include "cli/commands.hpp"

#include "util/digest.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>
#include <thread>

namespace d4r::cli {
namespace {

namespace fs = std::filesystem;
namespace pb = d4r::kernel::v1;

std::string raw_sha256(std::string_view text)
{
  Sha256 digest = sha256(text);
  return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

std::string slurp(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

class FakeKernelService final : public pb::KernelService::Service {
public:
  grpc::Status Status(grpc::ServerContext*, const pb::StatusRequest*,
                      pb::StatusReply* reply) override
  {
    std::this_thread::sleep_for(std::chrono::milliseconds(status_delay_ms));
    reply->set_version("9.9.9");
    reply->set_pid(77);
    reply->set_detected_target("gfx1100");
    return grpc::Status::OK;
  }

  grpc::Status Resolve(grpc::ServerContext*, const pb::ResolveRequest* request,
                       pb::ResolveReply* reply) override
  {
    std::lock_guard lock(m_mutex);
    last_resolve = *request;
    *reply = resolve_reply;
    return grpc::Status::OK;
  }

  grpc::Status Import(grpc::ServerContext*, const pb::ImportRequest* request,
                      pb::ImportReply* reply) override
  {
    std::lock_guard lock(m_mutex);
    last_import_directory = request->directory();
    reply->set_imported(2);
    reply->add_problems("x.hsaco: dangling symlink");
    return grpc::Status::OK;
  }

  grpc::Status List(grpc::ServerContext*, const pb::ListRequest*, pb::ListReply* reply) override
  {
    pb::CacheEntry* entry = reply->add_entries();
    entry->set_kernel("d4r_test_simple");
    entry->set_module_hash(0x8baeb925f177af87ULL);
    entry->set_mode(pb::MODE_FAST);
    return grpc::Status::OK;
  }

  grpc::Status Purge(grpc::ServerContext*, const pb::PurgeRequest* request,
                     pb::PurgeReply* reply) override
  {
    std::lock_guard lock(m_mutex);
    ++purge_calls;
    last_purge_mode = request->mode();
    reply->set_removed_entries(3);
    return grpc::Status::OK;
  }

  // Set before a call, read after it returned: the RPC orders the accesses, the mutex documents it.
  int status_delay_ms = 0;
  pb::ResolveReply resolve_reply;
  pb::ResolveRequest last_resolve;
  std::string last_import_directory;
  int purge_calls = 0;
  pb::Mode last_purge_mode = pb::MODE_UNSPECIFIED;

private:
  std::mutex m_mutex;
};

class CliCommands : public ::testing::Test {
protected:
  void SetUp() override
  {
    std::string pattern = (fs::path(::testing::TempDir()) / "cli_cmd_XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    m_dir = pattern;
    m_socket = (m_dir / "socket").string();
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + m_socket, grpc::InsecureServerCredentials());
    builder.RegisterService(&m_service);
    m_server = builder.BuildAndStart();
    ASSERT_NE(m_server, nullptr);
  }

  void TearDown() override
  {
    m_server->Shutdown();
    fs::remove_all(m_dir);
  }

  // Parses and runs one command line against the fake server; fills m_out and m_err.
  int run(std::vector<std::string> args, bool tty = false,
          std::optional<std::string> answer = std::nullopt)
  {
    Environment env;
    env.kerneld_socket = m_socket;
    Expected<ParsedCommand> parsed = parse_command_line(args, env);
    std::ostringstream out;
    std::ostringstream err;
    Io io{out, err, tty, [answer] { return answer; }};
    int status = parsed ? run_command(*parsed, io) : report_usage_error(parsed.error(), false, io);
    m_out = out.str();
    m_err = err.str();
    return status;
  }

  void set_ready(std::string_view bytes, std::string_view claimed_sha256_of)
  {
    pb::ResolveReply& reply = m_service.resolve_reply;
    reply.set_outcome(pb::ResolveReply::READY);
    reply.set_target("gfx1100");
    reply.mutable_object()->set_data(std::string(bytes));
    reply.mutable_object()->set_size(static_cast<int64_t>(bytes.size()));
    reply.mutable_object()->set_sha256(raw_sha256(claimed_sha256_of));
    reply.mutable_metadata()->mutable_main()->set_name("d4r_test_simple");
  }

  std::vector<std::string> resolve_args(const std::string& out_path) const
  {
    return {"resolve", "--module-hash", "8baeb925f177af87", "--kernel", "d4r_test_simple",
            "--mode",  "accuracy",      "--no-fp8",         "--out",    out_path};
  }

  fs::path m_dir;
  std::string m_socket;
  FakeKernelService m_service;
  std::unique_ptr<grpc::Server> m_server;
  std::string m_out;
  std::string m_err;
};

TEST_F(CliCommands, StatusPrintsTheDaemonsAnswer)
{
  EXPECT_EQ(run({"status"}), 0) << m_err;
  EXPECT_NE(m_out.find("d4r-kerneld 9.9.9 (pid 77)"), std::string::npos) << m_out;
  EXPECT_NE(m_out.find("socket           " + m_socket), std::string::npos) << m_out;
  EXPECT_TRUE(m_err.empty()) << m_err;
}

TEST_F(CliCommands, StatusJsonIsOneDocument)
{
  EXPECT_EQ(run({"status", "--json"}), 0) << m_err;
  ASSERT_FALSE(m_out.empty());
  EXPECT_EQ(m_out.front(), '{');
  EXPECT_EQ(m_out.substr(m_out.size() - 2), "}\n");
  EXPECT_EQ(m_out.find('\n'), m_out.size() - 1) << m_out;
  EXPECT_NE(m_out.find(R"("version":"9.9.9")"), std::string::npos) << m_out;
}

TEST_F(CliCommands, ResolveReadyWritesTheVerifiedObject)
{
  set_ready("OBJECT", "OBJECT");
  fs::path out = m_dir / "k.hsaco";
  EXPECT_EQ(run(resolve_args(out.string())), 0) << m_err;
  EXPECT_EQ(slurp(out), "OBJECT");
  EXPECT_NE(m_out.find("written to     " + out.string()), std::string::npos) << m_out;
  const pb::ResolveRequest& sent = m_service.last_resolve;
  EXPECT_EQ(sent.module_hash(), 0x8baeb925f177af87ULL);
  EXPECT_EQ(sent.kernel(), "d4r_test_simple");
  EXPECT_EQ(sent.selection().mode(), pb::MODE_ACCURACY);
  EXPECT_TRUE(sent.selection().has_fp8_native());
  EXPECT_FALSE(sent.selection().fp8_native());
  EXPECT_FALSE(sent.selection().has_native_swin_encoders());
  EXPECT_FALSE(sent.accept_path());
}

TEST_F(CliCommands, ResolveRefusesToWriteAnObjectWhoseDigestIsWrong)
{
  set_ready("OBJECT", "SOMETHING ELSE");
  fs::path out = m_dir / "k.hsaco";
  EXPECT_EQ(run(resolve_args(out.string())), 5);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_NE(m_err.find("sha256 mismatch"), std::string::npos) << m_err;
  EXPECT_NE(m_err.find("nothing written"), std::string::npos) << m_err;
  // Without --out the object is still checked.
  EXPECT_EQ(run({"resolve", "--module-hash", "8baeb925f177af87", "--kernel", "k"}), 5);
}

TEST_F(CliCommands, ResolveReadsAnObjectSentAsAPath)
{
  fs::path cached = m_dir / "cached.hsaco";
  std::ofstream(cached) << "FROM-PATH";
  set_ready("", "FROM-PATH");
  m_service.resolve_reply.mutable_object()->set_path(cached.string());
  m_service.resolve_reply.mutable_object()->set_size(9);
  fs::path out = m_dir / "copy.hsaco";
  EXPECT_EQ(run(resolve_args(out.string())), 0) << m_err;
  EXPECT_EQ(slurp(out), "FROM-PATH");
}

TEST_F(CliCommands, ResolveOutcomesSetTheExitStatus)
{
  pb::ResolveReply& reply = m_service.resolve_reply;
  std::vector<std::string> args = {"resolve", "--module-hash", "26332c9543501ce9", "--kernel",
                                   "cuda_dldn_engine_test_kernel"};
  reply.set_outcome(pb::ResolveReply::NOT_FOUND);
  EXPECT_EQ(run(args), 1);
  reply.set_outcome(pb::ResolveReply::PENDING);
  EXPECT_EQ(run(args), 3);
  reply.set_outcome(pb::ResolveReply::REJECTED);
  reply.set_reason("missing main kernel");
  EXPECT_EQ(run(args), 4);
  EXPECT_NE(m_out.find("reason   missing main kernel"), std::string::npos) << m_out;
  reply.set_outcome(pb::ResolveReply::OUTCOME_UNSPECIFIED);
  EXPECT_EQ(run(args), 5);
  EXPECT_NE(m_err.find("outcome OUTCOME_UNSPECIFIED"), std::string::npos) << m_err;
}

TEST_F(CliCommands, UnreachableDaemonIsExitFiveWithAHint)
{
  std::string missing = (m_dir / "no-such-socket").string();
  EXPECT_EQ(run({"status", "--socket", missing}), 5);
  EXPECT_EQ(m_err.rfind("d4r-kernel: cannot reach d4r-kerneld at " + missing + ": ", 0), 0U)
      << m_err;
  EXPECT_NE(m_err.find("(is it running? systemctl --user start d4r-kerneld.socket)\n"),
            std::string::npos)
      << m_err;
  EXPECT_TRUE(m_out.empty());
  EXPECT_EQ(run({"--json", "list", "--socket", missing}), 5);
  EXPECT_EQ(m_out.rfind(R"({"error":{"message":"cannot reach d4r-kerneld at )", 0), 0U) << m_out;
  EXPECT_NE(m_out.find(R"("exit_code":5}})"), std::string::npos) << m_out;
}

TEST_F(CliCommands, SlowDaemonHitsTheTimeout)
{
  m_service.status_delay_ms = 500;
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(run({"status", "--timeout-ms", "100"}), 5);
  auto elapsed = std::chrono::steady_clock::now() - start;
  EXPECT_LT(elapsed, std::chrono::milliseconds(450));
  EXPECT_NE(m_err.find("did not answer Status within 100 ms"), std::string::npos) << m_err;
}

TEST_F(CliCommands, ImportSendsAnAbsoluteDirectory)
{
  EXPECT_EQ(run({"import", "some/release"}), 0) << m_err;
  EXPECT_EQ(m_service.last_import_directory, (fs::current_path() / "some/release").string());
  EXPECT_NE(m_out.find("imported         2"), std::string::npos) << m_out;
  EXPECT_NE(m_out.find("  x.hsaco: dangling symlink"), std::string::npos) << m_out;
  EXPECT_EQ(run({"import"}), 0) << m_err;
  EXPECT_EQ(m_service.last_import_directory, "");
}

TEST_F(CliCommands, ListPrintsATable)
{
  EXPECT_EQ(run({"list"}), 0) << m_err;
  EXPECT_NE(m_out.find("d4r_test_simple  8baeb925f177af87"), std::string::npos) << m_out;
}

TEST_F(CliCommands, PurgeNeedsConfirmationOrYes)
{
  EXPECT_EQ(run({"purge"}), 2);
  EXPECT_NE(m_err.find("pass --yes"), std::string::npos) << m_err;
  EXPECT_EQ(run({"purge"}, true, "n"), 0);
  EXPECT_NE(m_out.find("cancelled"), std::string::npos) << m_out;
  EXPECT_EQ(run({"purge"}, true, std::nullopt), 0);
  EXPECT_EQ(m_service.purge_calls, 0);

  EXPECT_EQ(run({"purge", "--mode", "accuracy"}, true, "yes"), 0) << m_err;
  EXPECT_NE(m_err.find("purge accuracy-mode cached kernel"), std::string::npos) << m_err;
  EXPECT_EQ(m_service.purge_calls, 1);
  EXPECT_EQ(m_service.last_purge_mode, pb::MODE_ACCURACY);
  EXPECT_EQ(run({"purge", "--yes", "--json"}), 0) << m_err;
  EXPECT_EQ(m_out, "{\"removed_entries\":3,\"removed_bytes\":0,\"kept_pinned\":0}\n");
  EXPECT_EQ(m_service.purge_calls, 2);
  EXPECT_EQ(m_service.last_purge_mode, pb::MODE_UNSPECIFIED);
}

TEST_F(CliCommands, UsageErrorsAreExitTwo)
{
  EXPECT_EQ(run({"resolve", "--module-hash", "xyz", "--kernel", "k"}), 2);
  EXPECT_NE(m_err.find("d4r-kernel: --module-hash: 'xyz' is not 16 hex digits"), std::string::npos)
      << m_err;
  std::ostringstream out;
  std::ostringstream err;
  Io io{out, err, false, {}};
  EXPECT_EQ(report_usage_error(Error{ErrorCode::invalid_argument, "bad \"x\""}, true, io), 2);
  EXPECT_EQ(out.str(), "{\"error\":{\"message\":\"bad \\\"x\\\"\",\"exit_code\":2}}\n");
}

TEST_F(CliCommands, HelpListsTheExitStatuses)
{
  EXPECT_EQ(run({"--help"}), 0);
  EXPECT_NE(m_out.find("5  the daemon is unreachable"), std::string::npos) << m_out;
  EXPECT_EQ(run({"resolve", "--help"}), 0);
  EXPECT_NE(m_out.find("--module-hash HEX"), std::string::npos) << m_out;
  EXPECT_NE(m_out.find("3 PENDING"), std::string::npos) << m_out;
}

} // namespace
} // namespace d4r::cli
