#pragma once
// The few HTTP/2 frames that turn a gRPC client away with a status it can show: the accept loop
// hands connections it may not serve (--max-connections) to a RefusalResponder
// (refusal_responder.hpp) instead of hanging up, so that the client's call ends with
// RESOURCE_EXHAUSTED and the reason, not "Socket closed". gRPC itself never sees these
// connections, and nothing here is a server: it reads the client's frames only to learn the ids
// of the calls (HEADERS frames) it opened, and writes a server preface (a gRPC client opens no
// call before it has one), then a trailers-only response per call (RFC 9113 8.1, gRPC's
// "Trailers-Only") and a GOAWAY.
//
// Header blocks are HPACK literals without indexing and without Huffman coding (RFC 7541 6.2.2),
// which every decoder must accept and which change no decoder state.

#include <grpcpp/support/status.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace d4r::daemon {

// What the client sent so far, read from its first byte.
struct ClientFrames {
  std::vector<uint32_t> call_streams; // HEADERS frames' stream ids, in order, each once
  bool malformed = false;             // no HTTP/2 client preface, or a frame that cannot be
};

// Parses whole frames of `bytes` (a partial frame at the end is left for later).
[[nodiscard]] ClientFrames read_client_frames(std::string_view bytes);

// The server's connection preface: an empty SETTINGS frame (every setting at its default).
[[nodiscard]] std::string server_preface();

// A trailers-only response with `code` and `message` on each of `streams`, then GOAWAY naming the
// last of them (NO_ERROR: those calls were answered, and a client may open new ones on a new
// connection).
[[nodiscard]] std::string refusal_frames(const std::vector<uint32_t>& streams,
                                         grpc::StatusCode code, std::string_view message);

// gRPC's encoding of grpc-message: bytes outside ' '..'~', and '%', as %XX.
[[nodiscard]] std::string percent_encode_grpc_message(std::string_view message);

} // namespace d4r::daemon
