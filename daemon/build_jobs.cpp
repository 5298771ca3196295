#include "daemon/build_jobs.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <string>

namespace d4r::daemon {
namespace {

std::optional<int64_t> read_limit(const std::filesystem::path& file)
{
  std::ifstream in(file);
  std::string text;
  if (!(in >> text) || text == "max") {
    return std::nullopt;
  }
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value <= 0) {
    return std::nullopt;
  }
  return value;
}

} // namespace

std::optional<int64_t> cgroup_memory_max(const std::filesystem::path& proc_self_cgroup,
                                         const std::filesystem::path& cgroup_root)
{
  std::ifstream in(proc_self_cgroup);
  std::string line;
  std::string path;
  while (std::getline(in, line)) {
    if (line.starts_with("0::")) {
      path = line.substr(3);
    }
  }
  if (path.empty() || path.front() != '/') {
    return std::nullopt;
  }
  std::optional<int64_t> smallest;
  for (std::filesystem::path group = path;; group = group.parent_path()) {
    std::filesystem::path relative = group.relative_path();
    if (std::optional<int64_t> limit = read_limit(cgroup_root / relative / "memory.max")) {
      smallest = std::min(smallest.value_or(*limit), *limit);
    }
    if (relative.empty()) {
      break;
    }
  }
  return smallest;
}

int default_build_jobs(int cores, std::optional<int64_t> memory_max, int64_t worker_memory)
{
  int jobs = std::max(1, cores);
  if (memory_max && worker_memory > 0) {
    jobs = static_cast<int>(std::clamp<int64_t>(*memory_max / worker_memory, 1, jobs));
  }
  return jobs;
}

} // namespace d4r::daemon
