#include "compiler/cpu/expected_output.hpp"

#include <zstd.h>

#include <fstream>
#include <iterator>
#include <system_error>

namespace d4r::compiler::cpu {

namespace fs = std::filesystem;

namespace {

// A recorded output is at most this large once decoded (the largest scan is a few MiB).
constexpr unsigned long long k_max_output_bytes = 256ULL << 20;

fs::path plain_path(const fs::path& directory, const std::string& case_name, int64_t index)
{
  return directory / (case_name + ".out" + std::to_string(index) + ".bin");
}

fs::path compressed_path(const fs::path& directory, const std::string& case_name, int64_t index)
{
  fs::path path = plain_path(directory, case_name, index);
  path += ".zst";
  return path;
}

Expected<std::vector<std::byte>> read_bytes(const fs::path& path)
{
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return make_error(ErrorCode::not_found, path.string() + ": cannot be opened");
  }
  std::vector<char> text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (in.bad()) {
    return make_error(ErrorCode::io, path.string() + ": read failed");
  }
  std::vector<std::byte> bytes(text.size());
  std::copy(text.begin(), text.end(), reinterpret_cast<char*>(bytes.data()));
  return bytes;
}

Expected<std::vector<std::byte>> decompress(const fs::path& path, const std::vector<std::byte>& packed)
{
  const unsigned long long size = ZSTD_getFrameContentSize(packed.data(), packed.size());
  if (size == ZSTD_CONTENTSIZE_ERROR || size == ZSTD_CONTENTSIZE_UNKNOWN || size > k_max_output_bytes) {
    return make_error(ErrorCode::corrupt, path.string() + ": not one ZSTD frame that states its size");
  }
  std::vector<std::byte> bytes(static_cast<size_t>(size));
  const size_t produced = ZSTD_decompress(bytes.data(), bytes.size(), packed.data(), packed.size());
  if (ZSTD_isError(produced) || produced != bytes.size()) {
    return make_error(ErrorCode::corrupt,
                      path.string() + ": " + (ZSTD_isError(produced) ? ZSTD_getErrorName(produced) : "short frame"));
  }
  return bytes;
}

} // namespace

Expected<std::vector<std::byte>> read_expected_output(const fs::path& directory, const std::string& case_name,
                                                      int64_t index)
{
  std::error_code error;
  const fs::path plain = plain_path(directory, case_name, index);
  if (fs::exists(plain, error)) {
    return read_bytes(plain);
  }
  const fs::path compressed = compressed_path(directory, case_name, index);
  if (!fs::exists(compressed, error)) {
    return make_error(ErrorCode::not_found, plain.string() + ": not recorded");
  }
  TRY_ASSIGN(std::vector<std::byte> packed, read_bytes(compressed));
  return decompress(compressed, packed);
}

bool has_expected_output(const fs::path& directory, const std::string& case_name, int64_t index)
{
  std::error_code error;
  return fs::exists(plain_path(directory, case_name, index), error) ||
         fs::exists(compressed_path(directory, case_name, index), error);
}

} // namespace d4r::compiler::cpu
