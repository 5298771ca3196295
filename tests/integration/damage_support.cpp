#include "damage_support.hpp"

#include "util/digest.hpp"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <fstream>

namespace d4r::testing {

const std::vector<ServedKernel>& served_kernels()
{
  static const std::vector<ServedKernel> all = {
      {k_sr_module_hash, "d4r_test_layer"},
      {k_sr_module_hash, "d4r_test_simple"},
      {k_sr_module_hash, "dl4rt_input_kernel"},
      {k_sr_module_hash, "rrlite_enc1_4x4"},
      {k_rr_module_hash, "cuda_dldn_engine_test_kernel"},
  };
  return all;
}

std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon)
{
  return pb::KernelService::NewStub(grpc::CreateChannel("unix:" + daemon.socket_path().string(),
                                                        grpc::InsecureChannelCredentials()));
}

grpc::Status resolve_once(const DaemonProcess& daemon, const ServedKernel& served,
                          bool accept_path, const std::string& damaged, pb::ResolveReply& reply)
{
  pb::ResolveRequest request;
  request.set_module_hash(served.module_hash);
  request.set_kernel(served.kernel);
  request.mutable_selection()->set_target("gfx1101");
  request.mutable_selection()->set_mode(pb::MODE_FAST);
  request.set_accept_path(accept_path);
  request.set_damaged_sha256(damaged);
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  return stub_of(daemon)->Resolve(&context, request, &reply);
}

std::vector<std::filesystem::path> files_under(const std::filesystem::path& root)
{
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (std::filesystem::recursive_directory_iterator it(root, error), end; !error && it != end;
       it.increment(error)) {
    if (it->is_regular_file(error) && !it->is_symlink(error)) {
      files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

int64_t flip_random_bit(const std::filesystem::path& path, std::mt19937& random)
{
  ::chmod(path.c_str(), 0600); // objects are 0444 (root writes them anyway)
  std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
  file.seekg(0, std::ios::end);
  const int64_t size = file.tellg();
  EXPECT_GT(size, 0) << path;
  if (size <= 0) {
    return -1;
  }
  const int64_t offset = static_cast<int64_t>(random() % static_cast<uint64_t>(size));
  file.seekg(offset);
  char byte = 0;
  file.read(&byte, 1);
  byte = static_cast<char>(byte ^ (1 << (random() % 8)));
  file.seekp(offset);
  file.write(&byte, 1);
  file.flush();
  return offset;
}

bool process_alive(pid_t pid)
{
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] != 'Z';
}

namespace {

std::string digest_bytes(const std::string& data)
{
  Sha256 digest = sha256(std::string_view(data));
  return std::string(reinterpret_cast<const char*>(digest.data()), digest.size());
}

std::string release_bytes(const std::string& kernel)
{
  return read_file(release_fixture() / "gfx1101" / (kernel + ".hsaco"));
}

} // namespace

void Checker::check_ready(const pb::ResolveReply& reply, const ServedKernel& served)
{
  SCOPED_TRACE(served.kernel);
  const std::string expected = release_bytes(served.kernel);
  EXPECT_EQ(reply.target(), "gfx1101");
  EXPECT_EQ(reply.object().sha256(), digest_bytes(expected)) << "served under another digest";
  EXPECT_EQ(reply.object().size(), static_cast<int64_t>(expected.size()));
  if (reply.object().has_data()) {
    EXPECT_TRUE(reply.object().data() == expected) << "served bytes are not the release object";
  }
  std::string metadata = reply.metadata().SerializeAsString();
  auto [known, first] = m_metadata.try_emplace(served.kernel, metadata);
  EXPECT_TRUE(first || known->second == metadata)
      << "metadata differs from what the undamaged daemon served: "
      << reply.metadata().ShortDebugString();
}

std::string Checker::metadata_of(const std::string& kernel) const
{
  auto found = m_metadata.find(kernel);
  return found == m_metadata.end() ? std::string() : found->second;
}

RoundCounts Checker::round(const DaemonProcess& daemon)
{
  RoundCounts counts;
  // Every other round asks by path first, so that a damaged object the daemon checked before
  // is met by the client's check, not the daemon's bytes read.
  m_path_first = !m_path_first;
  for (const ServedKernel& served : served_kernels()) {
    for (bool accept_path : {m_path_first, !m_path_first}) {
      pb::ResolveReply reply;
      grpc::Status status = resolve_once(daemon, served, accept_path, "", reply);
      if (!status.ok() || reply.outcome() != pb::ResolveReply::READY) {
        ++counts.not_served;
        continue;
      }
      ++counts.ready;
      check_ready(reply, served);
      if (!reply.object().has_path()) {
        continue;
      }
      // As the client does: the file must read back as the digest, else it is reported.
      std::string on_disk = read_file(reply.object().path());
      if (digest_bytes(on_disk) == reply.object().sha256()) {
        EXPECT_TRUE(on_disk == release_bytes(served.kernel));
        continue;
      }
      ++counts.named_damaged;
      pb::ResolveReply again;
      status = resolve_once(daemon, served, true, reply.object().sha256(), again);
      if (!status.ok() || again.outcome() != pb::ResolveReply::READY) {
        continue;
      }
      check_ready(again, served);
      EXPECT_TRUE(again.object().has_path());
      EXPECT_TRUE(read_file(again.object().path()) == release_bytes(served.kernel))
          << "a reported damaged object was named again";
    }
  }
  return counts;
}

} // namespace d4r::testing
