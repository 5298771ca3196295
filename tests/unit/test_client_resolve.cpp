// The client against a fake daemon: READY answers in the C structs (bytes and mapped paths),
// digest and shape checks, the memo, fail-open time bounds, and 32 threads at once.

#include "client/d4r_kernel_client.h"
#include "tests/unit/test_client_fake_daemon.hpp"
#include "util/digest.hpp"
#include "util/kernel_identity.hpp"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

namespace {

using d4r::test::FakeDaemon;
namespace pb = d4r::kernel::v1;
using Clock = std::chrono::steady_clock;

std::string raw_digest(const std::string& bytes)
{
  d4r::Sha256 digest = d4r::sha256(bytes);
  return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

// A READY answer carrying `bytes` and a metadata block where every field has its own value.
void fill_ready(pb::ResolveReply& reply, const std::string& kernel, const std::string& bytes)
{
  reply.set_outcome(pb::ResolveReply::READY);
  reply.set_target("gfx1201-fp8");
  reply.set_mode(pb::MODE_FAST);
  reply.mutable_object()->set_sha256(raw_digest(bytes));
  reply.mutable_object()->set_size(static_cast<int64_t>(bytes.size()));
  reply.mutable_object()->set_data(bytes);
  pb::LaunchMetadata& meta = *reply.mutable_metadata();
  pb::KernelResources& main = *meta.mutable_main();
  main.set_name(kernel);
  main.set_kernarg_size(88);
  main.set_kernarg_align(8);
  main.set_wave_size(32);
  main.set_sgpr_count(40);
  main.set_vgpr_count(128);
  main.set_lds_bytes(16384);
  main.set_scratch_bytes(64);
  main.set_max_workgroup_size(256);
  meta.mutable_prep()->set_name(kernel + "_prep");
  meta.mutable_prep()->set_wave_size(64);
  meta.set_prep_blocks(88);
  meta.set_prep_key_offset(64);
  meta.set_prep_key_at(1);
  meta.set_prep_key_slots(4);
  meta.set_prep_identity_at(9);
  meta.set_block_z(2);
  meta.set_grid_x(120);
  for (uint32_t k = 1; k <= 2; ++k) {
    pb::PostKernel& post = *meta.add_posts();
    post.set_name(kernel + "_post" + std::to_string(k));
    post.set_grid_x(10 * k);
    post.set_grid_y(20 * k);
    post.set_block_x(32 * k);
    post.set_block_y(k);
    post.set_block_z(k + 1);
  }
  meta.set_amdhsa_target("amdgcn-amd-amdhsa--gfx1201");
}

class ClientResolve : public ::testing::Test {
protected:
  void SetUp() override
  {
    m_dir = d4r::test::fresh_temp_dir();
    m_socket = m_dir + "/socket";
    m_daemon = std::make_unique<FakeDaemon>(m_socket);
    m_daemon->start();
  }

  void TearDown() override
  {
    for (d4rk_client* client : m_clients) {
      d4rk_client_destroy(client);
    }
    m_daemon->stop();
  }

  d4rk_client* make_client(uint32_t budget_ms = 2000, int32_t mode = D4RK_MODE_FAST,
                           uint32_t flags = 0)
  {
    d4rk_options options;
    d4rk_options_init(&options);
    options.flags = flags;
    options.socket_path = m_socket.c_str();
    options.budget_ms = budget_ms;
    options.mode = mode;
    options.log_fn = [](void* user, const char*) { ++*static_cast<std::atomic<int>*>(user); };
    options.log_user_data = &m_log_lines;
    d4rk_client* client = nullptr;
    EXPECT_EQ(d4rk_client_create(&options, &client), D4RK_OK);
    m_clients.push_back(client);
    return client;
  }

  void answer(std::function<void(const pb::ResolveRequest&, pb::ResolveReply&)> fn)
  {
    std::lock_guard lock(m_daemon->service.mutex);
    m_daemon->service.on_resolve = std::move(fn);
  }

  std::string m_dir;
  std::string m_socket;
  std::unique_ptr<FakeDaemon> m_daemon;
  std::vector<d4rk_client*> m_clients;
  std::atomic<int> m_log_lines{0};
};

TEST_F(ClientResolve, ReadyWithBytesFillsEveryField)
{
  const std::string bytes = "\x7f"
                            "ELF fake code object";
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), bytes);
  });
  d4rk_kernel* kernel = nullptr;
  ASSERT_EQ(d4rk_resolve(make_client(), 0x1234, "layer_k", &kernel), D4RK_READY);
  ASSERT_NE(kernel, nullptr);
  EXPECT_EQ(std::string(static_cast<const char*>(kernel->code), kernel->code_size), bytes);
  EXPECT_EQ(std::string(kernel->sha256_hex), d4r::to_hex(d4r::sha256(bytes)));
  EXPECT_STREQ(kernel->kernel_name, "layer_k");
  EXPECT_STREQ(kernel->target, "gfx1201-fp8");
  EXPECT_STREQ(kernel->amdhsa_target, "amdgcn-amd-amdhsa--gfx1201");
  EXPECT_EQ(kernel->mode, D4RK_MODE_FAST);
  EXPECT_STREQ(kernel->main.name, "layer_k");
  EXPECT_EQ(kernel->main.kernarg_size, 88U);
  EXPECT_EQ(kernel->main.kernarg_align, 8U);
  EXPECT_EQ(kernel->main.wave_size, 32U);
  EXPECT_EQ(kernel->main.sgpr_count, 40U);
  EXPECT_EQ(kernel->main.vgpr_count, 128U);
  EXPECT_EQ(kernel->main.lds_bytes, 16384U);
  EXPECT_EQ(kernel->main.scratch_bytes, 64U);
  EXPECT_EQ(kernel->main.max_workgroup_size, 256U);
  EXPECT_EQ(kernel->has_prep, 1);
  EXPECT_STREQ(kernel->prep.name, "layer_k_prep");
  EXPECT_EQ(kernel->prep.wave_size, 64U);
  EXPECT_EQ(kernel->prep_blocks, 88U);
  EXPECT_EQ(kernel->prep_key_offset, 64U);
  EXPECT_EQ(kernel->prep_key_at, 1U);
  EXPECT_EQ(kernel->prep_key_slots, 4U);
  EXPECT_EQ(kernel->prep_identity_at, 9U);
  EXPECT_EQ(kernel->block_z, 2U);
  EXPECT_EQ(kernel->grid_x, 120U);
  ASSERT_EQ(kernel->post_count, 2U);
  EXPECT_STREQ(kernel->posts[1].name, "layer_k_post2");
  EXPECT_EQ(kernel->posts[1].grid_x, 20U);
  EXPECT_EQ(kernel->posts[1].grid_y, 40U);
  EXPECT_EQ(kernel->posts[1].block_x, 64U);
  EXPECT_EQ(kernel->posts[1].block_y, 2U);
  EXPECT_EQ(kernel->posts[1].block_z, 3U);
  EXPECT_STREQ(kernel->posts[2].name, "");
  EXPECT_STREQ(d4rk_last_reason(), "");
  pb::ResolveRequest seen = m_daemon->service.resolve_request();
  EXPECT_EQ(seen.module_hash(), 0x1234U);
  EXPECT_TRUE(seen.accept_path());
  EXPECT_GT(seen.wait_budget_ms(), 0U);
  EXPECT_LT(seen.wait_budget_ms(), 2000U);
  d4rk_kernel_free(kernel);
}

TEST_F(ClientResolve, ReadyWithPathIsReadAndVerified)
{
  std::string bytes(300 * 1024, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>(i * 7);
  }
  std::string path = m_dir + "/object.hsaco";
  std::ofstream(path, std::ios::binary) << bytes;
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), bytes);
    reply.mutable_object()->set_path(path);
  });
  d4rk_kernel* kernel = nullptr;
  ASSERT_EQ(d4rk_resolve(make_client(), 7, "mapped", &kernel), D4RK_READY);
  ASSERT_EQ(kernel->code_size, bytes.size());
  EXPECT_EQ(std::memcmp(kernel->code, bytes.data(), bytes.size()), 0);
  std::ifstream maps("/proc/self/maps");
  std::string all((std::istreambuf_iterator<char>(maps)), std::istreambuf_iterator<char>());
  // Read, not mapped: an I/O error on a mapped page would be SIGBUS in the game.
  EXPECT_EQ(all.find(path), std::string::npos) << "the object file is mapped";
  d4rk_kernel_free(kernel);
}

TEST_F(ClientResolve, DigestMismatchIsNotFound)
{
  std::string path = m_dir + "/object.hsaco";
  std::ofstream(path, std::ios::binary) << "these are not the bytes";
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), "these are NOT the bytes");
    reply.mutable_object()->set_path(path);
  });
  d4rk_client* client = make_client();
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(client, 7, "mapped", &kernel), D4RK_NOT_FOUND);
  EXPECT_EQ(kernel, nullptr);
  EXPECT_NE(std::string(d4rk_last_reason()).find("sha256 mismatch"), std::string::npos);
  // The damaged file was reported in a second request, once; this daemon named it again.
  EXPECT_EQ(m_daemon->service.resolve_calls.load(), 2);
  EXPECT_EQ(m_daemon->service.resolve_request().damaged_sha256(),
            std::string(reinterpret_cast<const char*>(d4r::sha256("these are NOT the bytes").data()), 32));
  // Bytes over gRPC are checked too.
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), "good bytes");
    reply.mutable_object()->set_data("evil bytes");
  });
  EXPECT_EQ(d4rk_resolve(client, 7, "sent", &kernel), D4RK_NOT_FOUND);
  EXPECT_EQ(kernel, nullptr);
  EXPECT_EQ(m_log_lines.load(), 2) << "one line per kind of problem (damage, bad reply), not per call";
}

struct Malformation {
  const char* name;
  std::function<void(pb::ResolveReply&)> apply;
};

class ClientMalformed : public ClientResolve, public ::testing::WithParamInterface<Malformation> {};

TEST_P(ClientMalformed, IsNotFound)
{
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), "object bytes");
    GetParam().apply(reply);
  });
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(make_client(), 9, "kernel_x", &kernel), D4RK_NOT_FOUND);
  EXPECT_EQ(kernel, nullptr);
  EXPECT_STRNE(d4rk_last_reason(), "");
  EXPECT_EQ(m_log_lines.load(), 1);
}

INSTANTIATE_TEST_SUITE_P(
    Replies, ClientMalformed,
    ::testing::Values(
        Malformation{"no_object", [](pb::ResolveReply& r) { r.clear_object(); }},
        Malformation{"size_mismatch", [](pb::ResolveReply& r) { r.mutable_object()->set_size(5); }},
        Malformation{"short_digest",
                     [](pb::ResolveReply& r) { r.mutable_object()->set_sha256("abc"); }},
        Malformation{"no_location", [](pb::ResolveReply& r) { r.mutable_object()->clear_data(); }},
        Malformation{"no_metadata", [](pb::ResolveReply& r) { r.clear_metadata(); }},
        Malformation{"no_main", [](pb::ResolveReply& r) { r.mutable_metadata()->clear_main(); }},
        Malformation{
            "other_kernel",
            [](pb::ResolveReply& r) { r.mutable_metadata()->mutable_main()->set_name("y"); }},
        Malformation{"prep_without_blocks",
                     [](pb::ResolveReply& r) { r.mutable_metadata()->set_prep_blocks(0); }},
        Malformation{"nine_posts",
                     [](pb::ResolveReply& r) {
                       for (int i = 0; i < 7; ++i) {
                         r.mutable_metadata()->add_posts()->set_name("p");
                       }
                     }},
        Malformation{"other_mode", [](pb::ResolveReply& r) { r.set_mode(pb::MODE_ACCURACY); }},
        Malformation{"missing_file",
                     [](pb::ResolveReply& r) { r.mutable_object()->set_path("/nonexistent/x"); }},
        Malformation{
            "unknown_outcome",
            [](pb::ResolveReply& r) { r.set_outcome(pb::ResolveReply::OUTCOME_UNSPECIFIED); }}),
    [](const ::testing::TestParamInfo<Malformation>& param_info) {
      return std::string(param_info.param.name);
    });

TEST_F(ClientResolve, AReportedDamagedObjectIsReplacedByTheNextAnswer)
{
  std::string good(4096, 'g');
  std::string bad_path = m_dir + "/damaged.hsaco";
  std::string good_path = m_dir + "/rebuilt.hsaco";
  std::string damaged = good;
  damaged[100] = 'b';
  std::ofstream(bad_path, std::ios::binary) << damaged;
  std::ofstream(good_path, std::ios::binary) << good;
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), good);
    reply.mutable_object()->set_path(request.damaged_sha256().empty() ? bad_path : good_path);
  });
  d4rk_kernel* kernel = nullptr;
  ASSERT_EQ(d4rk_resolve(make_client(), 7, "damaged", &kernel), D4RK_READY) << d4rk_last_reason();
  ASSERT_EQ(kernel->code_size, good.size());
  EXPECT_EQ(std::memcmp(kernel->code, good.data(), good.size()), 0);
  EXPECT_EQ(m_daemon->service.resolve_calls.load(), 2);
  d4rk_kernel_free(kernel);
}

TEST_F(ClientResolve, AFifoInPlaceOfTheObjectNeitherBlocksNorIsRead)
{
  // Whoever can write the cache could leave a FIFO there: a plain open would block for ever.
  std::string path = m_dir + "/slow.hsaco";
  ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), "bytes");
    reply.mutable_object()->set_path(path);
  });
  auto start = std::chrono::steady_clock::now();
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(make_client(), 7, "slow", &kernel), D4RK_NOT_FOUND);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(3));
  EXPECT_EQ(kernel, nullptr);
}

TEST_F(ClientResolve, MemoAnswersWithoutAnRpc)
{
  std::string path = m_dir + "/object.hsaco";
  const std::string bytes = "memoised object";
  std::ofstream(path, std::ios::binary) << bytes;
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), bytes);
    reply.mutable_object()->set_path(path);
  });
  d4rk_client* client = make_client();
  d4rk_kernel* first = nullptr;
  d4rk_kernel* second = nullptr;
  ASSERT_EQ(d4rk_resolve(client, 5, "memo", &first), D4RK_READY);
  ASSERT_EQ(d4rk_resolve(client, 5, "memo", &second), D4RK_READY);
  EXPECT_EQ(m_daemon->service.resolve_calls.load(), 1);
  EXPECT_NE(first, second);
  EXPECT_EQ(first->code, second->code) << "one shared mapping";
  d4rk_kernel_free(first);
  EXPECT_EQ(std::string(static_cast<const char*>(second->code), second->code_size), bytes);
  // Another hash or name is another question.
  d4rk_kernel* other = nullptr;
  ASSERT_EQ(d4rk_resolve(client, 6, "memo", &other), D4RK_READY);
  EXPECT_EQ(m_daemon->service.resolve_calls.load(), 2);
  d4rk_client_destroy(client);
  m_clients.clear();
  // Handles outlive their client.
  EXPECT_EQ(std::string(static_cast<const char*>(second->code), second->code_size), bytes);
  d4rk_kernel_free(other);
  d4rk_kernel_free(second);
}

TEST_F(ClientResolve, NoMemoFlagAsksEveryTime)
{
  const std::string bytes = "asked twice";
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), bytes);
  });
  d4rk_client* client = make_client(2000, D4RK_MODE_FAST, D4RK_FLAG_NO_MEMO);
  for (int i = 0; i < 2; ++i) {
    d4rk_kernel* kernel = nullptr;
    ASSERT_EQ(d4rk_resolve(client, 5, "memo", &kernel), D4RK_READY);
    EXPECT_EQ(std::string(static_cast<const char*>(kernel->code), kernel->code_size), bytes);
    d4rk_kernel_free(kernel);
  }
  EXPECT_EQ(m_daemon->service.resolve_calls.load(), 2);
}

// D4RK_FLAG_MIRRORS_HOST_VARIABLES: sent as the request's capability (off by default), and the
// answer's host variables reach the C view; a daemon that serves host variables to a client
// without the flag is not believed (the kernel would read stale values).
void fill_host_variables(pb::ResolveReply& reply)
{
  pb::HostVariable& table = *reply.mutable_metadata()->add_host_variables();
  table.set_name("d_table");
  table.set_size(256);
  pb::HostVariable& scale = *reply.mutable_metadata()->add_host_variables();
  scale.set_name("k_scale");
  scale.set_size(16);
}

TEST_F(ClientResolve, MirrorsHostVariablesFlagIsSentAndListsThem)
{
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), "object with variables");
    if (request.mirrors_host_variables()) {
      fill_host_variables(reply);
    }
  });
  d4rk_kernel* kernel = nullptr;
  ASSERT_EQ(d4rk_resolve(make_client(), 7, "plain", &kernel), D4RK_READY);
  EXPECT_FALSE(m_daemon->service.resolve_request().mirrors_host_variables());
  EXPECT_EQ(kernel->host_variable_count, 0u);
  EXPECT_EQ(kernel->host_variables, nullptr);
  d4rk_kernel_free(kernel);
  d4rk_client* mirroring = make_client(2000, D4RK_MODE_FAST, D4RK_FLAG_MIRRORS_HOST_VARIABLES);
  ASSERT_EQ(d4rk_resolve(mirroring, 7, "vars", &kernel), D4RK_READY) << d4rk_last_reason();
  EXPECT_TRUE(m_daemon->service.resolve_request().mirrors_host_variables());
  ASSERT_EQ(kernel->host_variable_count, 2u);
  EXPECT_STREQ(kernel->host_variables[0].name, "d_table");
  EXPECT_EQ(kernel->host_variables[0].size, 256u);
  EXPECT_STREQ(kernel->host_variables[1].name, "k_scale");
  EXPECT_EQ(kernel->host_variables[1].size, 16u);
  d4rk_kernel_free(kernel);
}

TEST_F(ClientResolve, HostVariablesToAClientThatDoesNotMirrorAreNotFound)
{
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), "object with variables");
    fill_host_variables(reply); // a daemon that ignores the capability
  });
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(make_client(), 7, "vars", &kernel), D4RK_NOT_FOUND);
  EXPECT_EQ(kernel, nullptr);
  EXPECT_NE(std::string(d4rk_last_reason()).find("does not mirror"), std::string::npos)
      << d4rk_last_reason();
}

TEST_F(ClientResolve, PendingAndRejectedAreNotMemoised)
{
  answer([](const pb::ResolveRequest&, pb::ResolveReply& reply) {
    reply.set_outcome(pb::ResolveReply::PENDING);
    reply.set_reason("building");
  });
  d4rk_client* client = make_client();
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(client, 5, "slow", &kernel), D4RK_PENDING);
  EXPECT_STREQ(d4rk_last_reason(), "building");
  answer([](const pb::ResolveRequest&, pb::ResolveReply& reply) {
    reply.set_outcome(pb::ResolveReply::REJECTED);
    reply.set_reason("prep kernel with zero prep blocks");
  });
  EXPECT_EQ(d4rk_resolve(client, 5, "slow", &kernel), D4RK_REJECTED);
  EXPECT_STREQ(d4rk_last_reason(), "prep kernel with zero prep blocks");
  answer([](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), "built");
  });
  EXPECT_EQ(d4rk_resolve(client, 5, "slow", &kernel), D4RK_READY);
  EXPECT_EQ(m_daemon->service.resolve_calls.load(), 3);
  EXPECT_EQ(m_log_lines.load(), 1) << "a refusal is logged once with its reason; PENDING is not";
  d4rk_kernel_free(kernel);
}

TEST_F(ClientResolve, BadKernelNameIsRejectedWithoutAnRpc)
{
  d4rk_kernel* kernel = nullptr;
  d4rk_client* client = make_client();
  EXPECT_EQ(d4rk_resolve(client, 5, "../etc/passwd", &kernel), D4RK_REJECTED);
  EXPECT_EQ(d4rk_resolve(client, 5, "", &kernel), D4RK_REJECTED);
  EXPECT_EQ(d4rk_resolve(client, 5, std::string(d4r::k_max_kernel_name + 1, 'a').c_str(), &kernel), D4RK_REJECTED);
  EXPECT_EQ(m_daemon->service.resolve_calls.load(), 0);
}

TEST_F(ClientResolve, HungDaemonFailsOpenWithinBudget)
{
  m_daemon->service.hang = true;
  d4rk_client* client = make_client(50);
  for (int i = 0; i < 3; ++i) {
    d4rk_kernel* kernel = nullptr;
    Clock::time_point start = Clock::now();
    EXPECT_EQ(d4rk_resolve(client, 5, "never", &kernel), D4RK_NOT_FOUND);
    EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(250)) << "call " << i;
    EXPECT_EQ(kernel, nullptr);
  }
  // The first call timed out; the next ones fail open at once without asking again.
  EXPECT_EQ(m_daemon->service.resolve_calls.load(), 1);
  EXPECT_EQ(m_log_lines.load(), 1);
}

TEST_F(ClientResolve, PrepareSendsIdentityAndUploadsWhenAsked)
{
  std::ifstream file(std::string(D4R_TEST_SOURCE_DIR) + "/ptx/rr_module.ptx", std::ios::binary);
  std::string ptx((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(ptx.empty());
  std::string image = ptx + std::string(3, '\0') + "junk after the NUL";
  m_daemon->service.need_module_bytes = true;
  d4rk_module_info info{};
  ASSERT_EQ(d4rk_prepare_module(make_client(), image.data(), image.size(), &info), D4RK_OK);
  EXPECT_EQ(info.module_hash, 0x26332c9543501ce9ULL);
  EXPECT_EQ(info.entry_count, 2U);
  EXPECT_EQ(m_daemon->service.prepare_calls.load(), 1);
  // The upload runs on the client's own thread, after prepare returned.
  for (int i = 0; i < 500 && m_daemon->service.put_calls.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(m_daemon->service.put_calls.load(), 1);
  std::lock_guard lock(m_daemon->service.mutex);
  const pb::PrepareRequest& prepare = m_daemon->service.last_prepare;
  EXPECT_EQ(prepare.module().fnv1a64(), 0x26332c9543501ce9ULL);
  EXPECT_EQ(prepare.module().sha256(), raw_digest(ptx));
  ASSERT_EQ(prepare.entries_size(), 2);
  EXPECT_EQ(prepare.entries(0), "cuda_dldn_engine_test_kernel");
  EXPECT_EQ(prepare.entries(1), "dl4rt_input_kernel");
  EXPECT_EQ(m_daemon->service.last_put.ptx(), ptx);
  EXPECT_EQ(m_daemon->service.last_put.module().fnv1a64(), 0x26332c9543501ce9ULL);
}

TEST_F(ClientResolve, AHungUploadNeitherDelaysTheGameNorSilencesResolves)
{
  std::ifstream file(std::string(D4R_TEST_SOURCE_DIR) + "/ptx/rr_module.ptx", std::ios::binary);
  std::string ptx((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  m_daemon->service.need_module_bytes = true;
  m_daemon->service.hang_uploads = true;
  answer([&](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), "bytes");
  });
  d4rk_client* client = make_client();
  auto start = std::chrono::steady_clock::now();
  d4rk_module_info info{};
  ASSERT_EQ(d4rk_prepare_module(client, ptx.data(), ptx.size(), &info), D4RK_OK);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(500));
  for (int i = 0; i < 500 && m_daemon->service.put_calls.load() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_EQ(m_daemon->service.put_calls.load(), 1) << "the upload never started";
  // While it hangs, resolves are asked and answered.
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(client, info.module_hash, "cuda_dldn_engine_test_kernel", &kernel),
            D4RK_READY)
      << d4rk_last_reason();
  d4rk_kernel_free(kernel);
  EXPECT_EQ(m_daemon->service.resolve_calls.load(), 1);
  // Destroying the client cancels the hung upload instead of waiting for it.
  auto closing = std::chrono::steady_clock::now();
  std::erase(m_clients, client);
  d4rk_client_destroy(client);
  EXPECT_LT(std::chrono::steady_clock::now() - closing, std::chrono::seconds(2));
}

TEST_F(ClientResolve, PrepareWithoutUploadRequest)
{
  const std::string ptx = ".entry only_one(\n)\n{\n}\n";
  d4rk_module_info info{};
  ASSERT_EQ(d4rk_prepare_module(make_client(), ptx.data(), ptx.size(), &info), D4RK_OK);
  EXPECT_EQ(info.module_hash, d4r::fnv1a64(ptx));
  EXPECT_EQ(m_daemon->service.prepare_calls.load(), 1);
  EXPECT_EQ(m_daemon->service.put_calls.load(), 0);
}

TEST_F(ClientResolve, ThirtyTwoThreadsGetTheirOwnAnswers)
{
  answer([](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(),
               "code of " + request.kernel() + " in " + std::to_string(request.module_hash()));
  });
  d4rk_client* client = make_client(5000);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 32; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) {
        std::string name = "kernel_" + std::to_string((t + i) % 8);
        uint64_t hash = static_cast<uint64_t>(t % 4);
        d4rk_kernel* kernel = nullptr;
        if (d4rk_resolve(client, hash, name.c_str(), &kernel) != D4RK_READY) {
          ++wrong;
          continue;
        }
        std::string code(static_cast<const char*>(kernel->code), kernel->code_size);
        if (code != "code of " + name + " in " + std::to_string(hash) ||
            std::string(kernel->kernel_name) != name) {
          ++wrong;
        }
        d4rk_kernel_free(kernel);
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  EXPECT_EQ(wrong.load(), 0);
  // 32 distinct questions; threads racing on one may each ask once, but never 640 times.
  EXPECT_GE(m_daemon->service.resolve_calls.load(), 32);
  EXPECT_LT(m_daemon->service.resolve_calls.load(), 32 * 20);
}

TEST(ClientNoDaemon, ResolveAndPrepareFailOpenWithinBudget)
{
  std::string socket = d4r::test::fresh_temp_dir() + "/absent";
  d4rk_options options;
  d4rk_options_init(&options);
  options.socket_path = socket.c_str();
  options.budget_ms = 50;
  d4rk_client* client = nullptr;
  ASSERT_EQ(d4rk_client_create(&options, &client), D4RK_OK);
  const std::string ptx = ".entry k1(\n)\n{\n}\n";
  Clock::time_point start = Clock::now();
  d4rk_module_info info{};
  EXPECT_EQ(d4rk_prepare_module(client, ptx.data(), ptx.size(), &info), D4RK_OK);
  EXPECT_EQ(info.module_hash, d4r::fnv1a64(ptx));
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(client, info.module_hash, "k1", &kernel), D4RK_NOT_FOUND);
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(250));
  d4rk_client_destroy(client);
}

TEST(ClientNoDaemon, DaemonStartedLaterIsFound)
{
  std::string socket = d4r::test::fresh_temp_dir() + "/socket";
  d4rk_options options;
  d4rk_options_init(&options);
  options.socket_path = socket.c_str();
  options.budget_ms = 200;
  d4rk_client* client = nullptr;
  ASSERT_EQ(d4rk_client_create(&options, &client), D4RK_OK);
  d4rk_kernel* kernel = nullptr;
  EXPECT_EQ(d4rk_resolve(client, 1, "late", &kernel), D4RK_NOT_FOUND);
  FakeDaemon daemon(socket);
  daemon.service.on_resolve = [](const pb::ResolveRequest& request, pb::ResolveReply& reply) {
    fill_ready(reply, request.kernel(), "late bytes");
  };
  daemon.start();
  Clock::time_point start = Clock::now();
  int outcome = D4RK_NOT_FOUND;
  while (outcome != D4RK_READY && Clock::now() - start < std::chrono::seconds(5)) {
    outcome = d4rk_resolve(client, 1, "late", &kernel);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  EXPECT_EQ(outcome, D4RK_READY);
  EXPECT_LT(Clock::now() - start, std::chrono::milliseconds(2500));
  d4rk_kernel_free(kernel);
  d4rk_client_destroy(client);
}

} // namespace
