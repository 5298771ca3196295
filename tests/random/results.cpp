// The results file (results.hpp): plain fixed-width little-endian records.

#include "tests/random/results.hpp"

#include <cstdio>
#include <cstring>
#include <memory>

namespace d4r::ptxgen {

namespace {

struct FileCloser {
  void operator()(std::FILE* file) const { std::fclose(file); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

constexpr char k_magic[8] = {'D', '4', 'R', 'P', 'T', 'X', 'G', '2'};
constexpr char k_old_magic[8] = {'D', '4', 'R', 'P', 'T', 'X', 'G', '1'}; // 32 threads, no field
constexpr char k_digest_magic[8] = {'D', '4', 'R', 'P', 'T', 'X', 'D', '1'};

template <typename T>
bool put(std::FILE* file, T value)
{
  return std::fwrite(&value, sizeof value, 1, file) == 1;
}

template <typename T>
bool get(std::FILE* file, T& value)
{
  return std::fread(&value, sizeof value, 1, file) == 1;
}

} // namespace

std::vector<uint32_t> slot_digests(const std::vector<unsigned char>& output, uint32_t slots)
{
  std::vector<uint32_t> digests(slots);
  const size_t threads = slots == 0 ? 0 : output.size() / (static_cast<size_t>(slots) * 8);
  for (uint32_t slot = 0; slot < slots; ++slot) {
    uint64_t hash = 0xcbf29ce484222325ULL;
    for (size_t thread = 0; thread < threads; ++thread) {
      const size_t at = (thread * slots + slot) * 8;
      for (size_t i = 0; i < 8 && at + i < output.size(); ++i) {
        hash = (hash ^ output[at + i]) * 0x100000001b3ULL;
      }
    }
    digests[slot] = static_cast<uint32_t>(hash);
  }
  return digests;
}

bool write_results(const std::string& path, int version, const std::vector<RunRecord>& records, bool digests_only)
{
  File file(std::fopen(path.c_str(), "wb"));
  if (!file) {
    return false;
  }
  bool good = std::fwrite(digests_only ? k_digest_magic : k_magic, 1, 8, file.get()) == 8 && put(file.get(), static_cast<uint32_t>(version)) &&
              put(file.get(), static_cast<uint32_t>(records.size()));
  for (const RunRecord& record : records) {
    good = good && put(file.get(), record.seed) && put(file.get(), static_cast<uint32_t>(record.status)) &&
           put(file.get(), record.slots) && (digests_only || put(file.get(), record.threads)) &&
           put(file.get(), record.digest);
    if (record.status == RunStatus::ok && digests_only) {
      const std::vector<uint32_t> digests = slot_digests(record.output, record.slots);
      good = good && std::fwrite(digests.data(), 4, digests.size(), file.get()) == digests.size();
    } else if (record.status == RunStatus::ok) {
      good = good && std::fwrite(record.output.data(), 1, record.output.size(), file.get()) == record.output.size();
    }
  }
  return good;
}

std::vector<RunRecord> read_results(const std::string& path, int* version, std::string* error)
{
  File file(std::fopen(path.c_str(), "rb"));
  if (!file) {
    *error = path + ": cannot open";
    return {};
  }
  char magic[8];
  uint32_t file_version = 0, count = 0;
  const bool read_magic = std::fread(magic, 1, 8, file.get()) == 8;
  const bool digests_only = read_magic && std::memcmp(magic, k_digest_magic, 8) == 0;
  const bool old = read_magic && std::memcmp(magic, k_old_magic, 8) == 0;
  if (!read_magic || (!digests_only && !old && std::memcmp(magic, k_magic, 8) != 0) ||
      !get(file.get(), file_version) || !get(file.get(), count)) {
    *error = path + ": not a results file";
    return {};
  }
  *version = static_cast<int>(file_version);
  std::vector<RunRecord> records(count);
  for (RunRecord& record : records) {
    uint32_t status = 0;
    if (!get(file.get(), record.seed) || !get(file.get(), status) || !get(file.get(), record.slots) ||
        (!digests_only && !old && !get(file.get(), record.threads)) || !get(file.get(), record.digest) || status > 3 ||
        record.threads == 0 || record.threads > 1024) {
      *error = path + ": truncated record";
      return {};
    }
    record.status = static_cast<RunStatus>(status);
    if (record.status == RunStatus::ok && digests_only) {
      record.slot_digests.resize(record.slots);
      if (std::fread(record.slot_digests.data(), 4, record.slots, file.get()) != record.slots) {
        *error = path + ": truncated digests";
        return {};
      }
    } else if (record.status == RunStatus::ok) {
      record.output.resize(static_cast<size_t>(record.slots) * record.threads * 8);
      if (std::fread(record.output.data(), 1, record.output.size(), file.get()) != record.output.size()) {
        *error = path + ": truncated output";
        return {};
      }
    }
  }
  return records;
}

} // namespace d4r::ptxgen
