#include "daemon/http2_refusal.hpp"

#include <algorithm>
#include <array>

namespace d4r::daemon {
namespace {

constexpr std::string_view k_client_preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
constexpr size_t k_frame_header = 9;

enum FrameType : uint8_t { k_headers = 0x1, k_settings = 0x4, k_goaway = 0x7 };
constexpr uint8_t k_end_stream = 0x1;
constexpr uint8_t k_end_headers = 0x4;
constexpr uint32_t k_no_error = 0x0;

void put_u32(std::string& out, uint32_t value)
{
  out.push_back(static_cast<char>(value >> 24));
  out.push_back(static_cast<char>(value >> 16));
  out.push_back(static_cast<char>(value >> 8));
  out.push_back(static_cast<char>(value));
}

void put_frame(std::string& out, uint8_t type, uint8_t flags, uint32_t stream,
               std::string_view payload)
{
  const auto length = static_cast<uint32_t>(payload.size());
  out.push_back(static_cast<char>(length >> 16));
  out.push_back(static_cast<char>(length >> 8));
  out.push_back(static_cast<char>(length));
  out.push_back(static_cast<char>(type));
  out.push_back(static_cast<char>(flags));
  put_u32(out, stream & 0x7fffffffU);
  out.append(payload);
}

// RFC 7541 5.1 with a 7-bit prefix (a string length, H = 0).
void put_length(std::string& out, size_t value)
{
  constexpr size_t k_prefix_max = 127;
  if (value < k_prefix_max) {
    out.push_back(static_cast<char>(value));
    return;
  }
  out.push_back(static_cast<char>(k_prefix_max));
  value -= k_prefix_max;
  while (value >= 128) {
    out.push_back(static_cast<char>(0x80 | (value & 0x7f)));
    value >>= 7;
  }
  out.push_back(static_cast<char>(value));
}

// Literal Header Field without Indexing, New Name.
void put_header(std::string& block, std::string_view name, std::string_view value)
{
  block.push_back('\0');
  put_length(block, name.size());
  block.append(name);
  put_length(block, value.size());
  block.append(value);
}

uint32_t read_u32(std::string_view bytes, size_t at)
{
  return (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at])) << 24) |
         (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 1])) << 16) |
         (static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 2])) << 8) |
         static_cast<uint32_t>(static_cast<uint8_t>(bytes[at + 3]));
}

} // namespace

ClientFrames read_client_frames(std::string_view bytes)
{
  ClientFrames frames;
  const size_t preface = std::min(bytes.size(), k_client_preface.size());
  if (bytes.substr(0, preface) != k_client_preface.substr(0, preface)) {
    frames.malformed = true;
    return frames;
  }
  size_t at = k_client_preface.size();
  while (at + k_frame_header <= bytes.size()) {
    const uint32_t length = read_u32(bytes, at) >> 8;
    const auto type = static_cast<uint8_t>(bytes[at + 3]);
    const uint32_t stream = read_u32(bytes, at + 5) & 0x7fffffffU;
    if (at + k_frame_header + length > bytes.size()) {
      break;
    }
    if (type == k_headers) {
      // Client-initiated streams are odd; 0 is the connection.
      if (stream == 0 || stream % 2 == 0) {
        frames.malformed = true;
        return frames;
      }
      if (std::find(frames.call_streams.begin(), frames.call_streams.end(), stream) ==
          frames.call_streams.end()) {
        frames.call_streams.push_back(stream);
      }
    }
    at += k_frame_header + length;
  }
  return frames;
}

std::string percent_encode_grpc_message(std::string_view message)
{
  constexpr std::string_view k_hex = "0123456789ABCDEF";
  std::string encoded;
  for (char c : message) {
    const auto byte = static_cast<uint8_t>(c);
    if (byte < 0x20 || byte > 0x7e || c == '%') {
      encoded.push_back('%');
      encoded.push_back(k_hex[byte >> 4]);
      encoded.push_back(k_hex[byte & 0xf]);
    } else {
      encoded.push_back(c);
    }
  }
  return encoded;
}

std::string server_preface()
{
  std::string out;
  put_frame(out, k_settings, 0, 0, {});
  return out;
}

std::string refusal_frames(const std::vector<uint32_t>& streams, grpc::StatusCode code,
                           std::string_view message)
{
  std::string out;
  std::string block;
  put_header(block, ":status", "200");
  put_header(block, "content-type", "application/grpc");
  put_header(block, "grpc-status", std::to_string(static_cast<int>(code)));
  put_header(block, "grpc-message", percent_encode_grpc_message(message));
  for (uint32_t stream : streams) {
    put_frame(out, k_headers, k_end_stream | k_end_headers, stream, block);
  }
  std::string goaway;
  put_u32(goaway, streams.empty() ? 0 : *std::max_element(streams.begin(), streams.end()));
  put_u32(goaway, k_no_error);
  goaway.append(message.substr(0, 256)); // debug data, for a person reading a capture
  put_frame(out, k_goaway, 0, 0, goaway);
  return out;
}

} // namespace d4r::daemon
