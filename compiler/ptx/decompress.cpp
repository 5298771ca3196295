#include "compiler/ptx/decompress.hpp"

#include <lz4.h>
#include <zstd.h>

#include <algorithm>
#include <climits>

// LZ4 block format: https://github.com/lz4/lz4/blob/dev/doc/lz4_Block_format.md. ZSTD frames:
// RFC 8878. LZ4_decompress_safe insists that the block ends exactly at the size it is given, so
// the block's end is found first by walking its sequences (lz4_block_end); ZSTD says where its
// frame ends (ZSTD_findFrameCompressedSize) and, in the frame header, how much it holds.

namespace d4r::compiler::ptx {

namespace {

std::unexpected<Error> corrupt(std::string message)
{
  return make_error(ErrorCode::corrupt, std::move(message));
}

uint8_t byte_at(std::span<const std::byte> bytes, size_t at)
{
  return std::to_integer<uint8_t>(bytes[at]);
}

// Adds an LZ4 length extension (bytes of 255 continue it) to `length`; false when the input ends.
bool read_lz4_length(std::span<const std::byte> in, size_t& at, uint64_t& length)
{
  uint8_t more = 255;
  while (more == 255) {
    if (at >= in.size()) {
      return false;
    }
    more = byte_at(in, at++);
    length += more;
  }
  return true;
}

// Where the LZ4 block that produces exactly `declared` bytes ends: after the literals that bring
// the output to `declared` (a block always ends with literals). Reads lengths only, writes nothing.
Expected<size_t> lz4_block_end(std::span<const std::byte> in, uint64_t declared,
                               const std::string& where)
{
  size_t at = 0;
  uint64_t produced = 0;
  while (at < in.size()) {
    uint8_t token = byte_at(in, at++);
    uint64_t literals = token >> 4;
    if ((literals == 15 && !read_lz4_length(in, at, literals)) || literals > in.size() - at) {
      break;
    }
    at += static_cast<size_t>(literals);
    produced += literals;
    if (produced == declared) {
      return at;
    }
    uint64_t match = (token & 15U) + 4;
    if (produced > declared || in.size() - at < 2) {
      break;
    }
    at += 2; // the match offset, checked by LZ4_decompress_safe
    if ((token & 15U) == 15 && !read_lz4_length(in, at, match)) {
      break;
    }
    produced += match;
    if (produced >= declared) {
      break;
    }
  }
  return corrupt(where + ": LZ4 block does not end after the " + std::to_string(declared) +
                 " bytes its header states (its sequences stop at " +
                 std::to_string(std::min(produced, declared)) + " bytes, payload byte " +
                 std::to_string(at) + ")");
}

// The stream's end as the entry (+16) states it, checked against the end its format gives, then
// the padding after it.
Expected<void> check_stream_end(const CompressedPayload& payload, size_t stream_end,
                                const std::string& where)
{
  const char* name = to_string(payload.compression);
  if (payload.stream_size != 0 && payload.stream_size != stream_end) {
    return corrupt(where + ": the entry says its " + name + " stream is " +
                   std::to_string(payload.stream_size) + " bytes, the stream ends after " +
                   std::to_string(stream_end));
  }
  for (size_t i = stream_end; i < payload.bytes.size(); ++i) {
    if (byte_at(payload.bytes, i) != 0) {
      return corrupt(where + ": byte at offset " +
                     std::to_string(payload.offset + static_cast<int64_t>(i)) + " after the " +
                     name + " stream (" + std::to_string(stream_end) +
                     " bytes) is not zero padding");
    }
  }
  return {};
}

Expected<std::string> decompress_lz4(const CompressedPayload& payload, const std::string& where)
{
  if (payload.declared_size > static_cast<uint64_t>(INT_MAX) ||
      payload.bytes.size() > static_cast<size_t>(INT_MAX)) {
    return make_error(ErrorCode::resource_exhausted,
                      where + ": LZ4 entries over 2 GiB are not supported");
  }
  TRY_ASSIGN(size_t end, lz4_block_end(payload.bytes, payload.declared_size, where));
  TRY(check_stream_end(payload, end, where));
  std::string text(static_cast<size_t>(payload.declared_size), '\0');
  int produced = LZ4_decompress_safe(reinterpret_cast<const char*>(payload.bytes.data()),
                                     text.data(), static_cast<int>(end),
                                     static_cast<int>(text.size()));
  if (produced < 0 || static_cast<uint64_t>(produced) != payload.declared_size) {
    return corrupt(where + ": LZ4 block at offset " + std::to_string(payload.offset) +
                   " does not decompress to the " + std::to_string(payload.declared_size) +
                   " bytes its header states (a match reaches before the start)");
  }
  return text;
}

Expected<std::string> decompress_zstd(const CompressedPayload& payload, const std::string& where)
{
  const void* data = payload.bytes.data();
  std::string at = " at offset " + std::to_string(payload.offset);
  size_t end = ZSTD_findFrameCompressedSize(data, payload.bytes.size());
  if (ZSTD_isError(end)) {
    return corrupt(where + ": ZSTD frame" + at + ": " + ZSTD_getErrorName(end));
  }
  unsigned long long content = ZSTD_getFrameContentSize(data, payload.bytes.size());
  if (content == ZSTD_CONTENTSIZE_ERROR) {
    return corrupt(where + ": ZSTD frame" + at + ": bad frame header");
  }
  if (content != ZSTD_CONTENTSIZE_UNKNOWN && content != payload.declared_size) {
    return corrupt(where + ": ZSTD frame" + at + " holds " + std::to_string(content) +
                   " bytes, its header states " + std::to_string(payload.declared_size));
  }
  TRY(check_stream_end(payload, end, where));
  std::string text(static_cast<size_t>(payload.declared_size), '\0');
  size_t produced = ZSTD_decompress(text.data(), text.size(), data, end);
  if (ZSTD_isError(produced)) {
    return corrupt(where + ": ZSTD frame" + at + ": " + ZSTD_getErrorName(produced));
  }
  if (produced != payload.declared_size) {
    return corrupt(where + ": ZSTD frame" + at + " decompresses to " + std::to_string(produced) +
                   " bytes, its header states " + std::to_string(payload.declared_size));
  }
  return text;
}

} // namespace

Expected<std::string> decompress_payload(const CompressedPayload& payload, const std::string& where)
{
  switch (payload.compression) {
  case FatbinCompression::lz4:
    return decompress_lz4(payload, where);
  case FatbinCompression::zstd:
    return decompress_zstd(payload, where);
  case FatbinCompression::none:
    break;
  }
  D4R_UNREACHABLE("decompress_payload is only called for compressed entries");
}

} // namespace d4r::compiler::ptx
