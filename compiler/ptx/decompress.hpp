#pragma once
// Private to compiler/ptx/container.cpp: one fatbin entry's compressed payload, decoded exactly.
//
// What nvcc 13's fatbinary writes (tests/fixtures/fatbin/): the payload is the compressed stream
// followed by zero bytes up to a multiple of 8, and the u32 at entry +16 gives the stream's own
// size (d4r's writer leaves it 0 and stores the bare stream). We accept exactly that: the stream
// ends where its format says (the LZ4 token that completes the declared size, the end of the one
// ZSTD frame), at the size +16 gives when it gives one, it decodes to exactly the declared size,
// and every byte after it is zero. Anything else is ErrorCode::corrupt, naming `where`.

#include "compiler/ptx/container.hpp"

#include "util/error.hpp"

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace d4r::compiler::ptx {

struct CompressedPayload {
  std::span<const std::byte> bytes; // the whole payload, padding included
  FatbinCompression compression = FatbinCompression::lz4;
  uint64_t declared_size = 0;       // entry +56, already checked against the limits
  uint64_t stream_size = 0;         // entry +16; 0: not given
  int64_t offset = 0;               // of the payload in the input, for messages
};

// Checks the stream and its padding without allocating anything (a lying declared size costs
// one pass over the payload, never the memory it claims), then decodes it.
[[nodiscard]] Expected<std::string> decompress_payload(const CompressedPayload& payload,
                                                       const std::string& where);

} // namespace d4r::compiler::ptx
