#pragma once
// How many builds the daemon runs at once by default: one per core, but no more than the memory
// its cgroup may use allows at each worker's limit. Under systemd the unit's MemoryMax= holds the
// daemon and every worker together; cores × the per-worker limit above it would let the kernel's
// OOM killer end builds (which then fail as killed from outside, again and again).

#include <cstdint>
#include <filesystem>
#include <optional>

namespace d4r::daemon {

// The memory.max of the cgroup (v2) this process is in: /proc/self/cgroup's "0::PATH" line, then
// CGROUP_ROOT/PATH/memory.max, and each parent's up to the root (the smallest number wins).
// nullopt when nothing caps it ("max" everywhere) or the files cannot be read (cgroup v1, no /sys).
[[nodiscard]] std::optional<int64_t> cgroup_memory_max(
    const std::filesystem::path& proc_self_cgroup = "/proc/self/cgroup",
    const std::filesystem::path& cgroup_root = "/sys/fs/cgroup");

// min(cores, memory_max / worker_memory), at least 1; `cores` without a cap.
[[nodiscard]] int default_build_jobs(int cores, std::optional<int64_t> memory_max,
                                     int64_t worker_memory);

} // namespace d4r::daemon
