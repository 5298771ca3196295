#pragma once
// What the damage and security suites share: a gRPC stub on the daemon's socket, the kernels the
// release fixture serves for gfx1101, and a Checker that resolves them all and holds every READY
// answer to what the release holds (the bytes, their digest, the metadata an undamaged daemon
// gave), checking a path answer's file the way the C client does and reporting a bad one back.

#include "daemon_process.hpp"

#include "d4r/kernel/v1/kernel.grpc.pb.h"

#include <grpcpp/create_channel.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace d4r::testing {

namespace pb = ::d4r::kernel::v1;

struct ServedKernel {
  uint64_t module_hash = 0;
  std::string kernel;
};

// The kernels the release fixture serves for gfx1101 in fast mode.
[[nodiscard]] const std::vector<ServedKernel>& served_kernels();

[[nodiscard]] std::unique_ptr<pb::KernelService::Stub> stub_of(const DaemonProcess& daemon);

// One Resolve for gfx1101, fast mode. `damaged` (32 bytes or empty) reports a bad path answer.
[[nodiscard]] grpc::Status resolve_once(const DaemonProcess& daemon, const ServedKernel& served,
                                        bool accept_path, const std::string& damaged,
                                        pb::ResolveReply& reply);

// The files under `root` (recursively) that are regular files, sorted.
[[nodiscard]] std::vector<std::filesystem::path> files_under(const std::filesystem::path& root);

// Flips one bit at a random offset of `path` (which must not be empty); returns the offset.
int64_t flip_random_bit(const std::filesystem::path& path, std::mt19937& random);

// True while `pid` is a live process (not a zombie either).
[[nodiscard]] bool process_alive(pid_t pid);

struct RoundCounts {
  int ready = 0;       // READY answers, each checked
  int not_served = 0;  // NOT_FOUND, PENDING, REJECTED or a transport error: never wrong
  int named_damaged = 0; // path answers whose file read back wrong, reported, then re-answered
};

class Checker {
public:
  // Resolves every served kernel by bytes and by path; each READY answer must be the release's.
  // The first call also records each kernel's metadata as the undamaged daemon gives it.
  RoundCounts round(const DaemonProcess& daemon);
  // The metadata the undamaged daemon gave for `kernel` (empty before the first round).
  [[nodiscard]] std::string metadata_of(const std::string& kernel) const;

private:
  void check_ready(const pb::ResolveReply& reply, const ServedKernel& served);
  std::map<std::string, std::string> m_metadata; // kernel -> serialised LaunchMetadata
  bool m_path_first = false;
};

} // namespace d4r::testing
