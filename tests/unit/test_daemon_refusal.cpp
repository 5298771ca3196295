// The refusal of a connection past the limit (daemon/http2_refusal.hpp,
// daemon/refusal_responder.hpp) on socket pairs: what is read of a client's frames, what a client
// that opens no call gets, and the bound on connections waiting. A real gRPC client's view is in
// tests/integration/test_integration_transport.cpp (AClientPastTheConnectionLimitIsToldWhy).

#include "daemon/http2_refusal.hpp"
#include "daemon/refusal_responder.hpp"

#include <gtest/gtest.h>

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <string>
#include <vector>

namespace {

using d4r::daemon::read_client_frames;
using d4r::daemon::RefusalResponder;
using namespace std::chrono_literals;

const std::string k_preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";

std::string frame(uint8_t type, uint32_t stream, const std::string& payload)
{
  std::string out;
  const auto length = static_cast<uint32_t>(payload.size());
  for (int shift : {16, 8, 0}) {
    out.push_back(static_cast<char>(length >> shift));
  }
  out.push_back(static_cast<char>(type));
  out.push_back('\x04');
  for (int shift : {24, 16, 8, 0}) {
    out.push_back(static_cast<char>(stream >> shift));
  }
  return out + payload;
}

// Everything the peer writes until it closes (or 2 s pass).
std::string read_until_closed(int fd)
{
  std::string received;
  const auto until = std::chrono::steady_clock::now() + 2s;
  while (std::chrono::steady_clock::now() < until) {
    pollfd entry{fd, POLLIN, 0};
    if (::poll(&entry, 1, 100) <= 0) {
      continue;
    }
    char buffer[1024];
    ssize_t n = ::read(fd, buffer, sizeof(buffer));
    if (n <= 0) {
      break;
    }
    received.append(buffer, static_cast<size_t>(n));
  }
  return received;
}

std::array<int, 2> socket_pair()
{
  std::array<int, 2> fds{};
  EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds.data()), 0);
  return fds;
}

TEST(Http2Refusal, TheCallsAreTheHeadersFramesStreamsAndAPartialFrameWaits)
{
  const std::string settings = frame(0x4, 0, "");
  const std::string headers1 = frame(0x1, 1, "abc");
  const std::string headers3 = frame(0x1, 3, "de");
  std::string bytes = k_preface + settings + headers1 + frame(0x0, 1, "data") + headers3;
  EXPECT_EQ(read_client_frames(bytes).call_streams, (std::vector<uint32_t>{1, 3}));
  EXPECT_FALSE(read_client_frames(bytes).malformed);
  // Cut inside the second HEADERS frame: only the first call is known yet.
  std::string cut = bytes.substr(0, bytes.size() - 1);
  EXPECT_EQ(read_client_frames(cut).call_streams, (std::vector<uint32_t>{1}));
  // Half a preface is not wrong yet; another protocol, or a call on an even stream, is.
  EXPECT_FALSE(read_client_frames(k_preface.substr(0, 10)).malformed);
  EXPECT_TRUE(read_client_frames("GET / HTTP/1.1\r\n\r\n").malformed);
  EXPECT_TRUE(read_client_frames(k_preface + frame(0x1, 2, "x")).malformed);
}

TEST(Http2Refusal, TheMessageIsPercentEncodedAsGrpcWantsIt)
{
  EXPECT_EQ(d4r::daemon::percent_encode_grpc_message("limit: 100% full\n"), "limit: 100%25 full%0A");
}

TEST(RefusalResponder, AClientThatOpensNoCallGetsThePrefaceAndAGoawayAfterTheWait)
{
  RefusalResponder responder;
  std::array<int, 2> fds = socket_pair();
  auto started = std::chrono::steady_clock::now();
  ASSERT_TRUE(responder.refuse(fds[0], grpc::StatusCode::RESOURCE_EXHAUSTED, "full"));
  ASSERT_EQ(::write(fds[1], k_preface.data(), k_preface.size()),
            static_cast<ssize_t>(k_preface.size()));
  std::string received = read_until_closed(fds[1]);
  EXPECT_GE(std::chrono::steady_clock::now() - started, RefusalResponder::k_wait_for_calls);
  // SETTINGS (9 bytes), then GOAWAY: last stream 0, NO_ERROR, the message as debug data.
  ASSERT_EQ(received.size(), 9u + 9u + 8u + 4u) << received.size();
  EXPECT_EQ(received[3], '\x04');
  EXPECT_EQ(received[9 + 3], '\x07');
  EXPECT_EQ(received.substr(received.size() - 4), "full");
  ::close(fds[1]);
}

TEST(RefusalResponder, AFloodPastTheBoundIsClosedAtOnce)
{
  RefusalResponder responder;
  std::vector<std::array<int, 2>> pairs;
  for (size_t i = 0; i < RefusalResponder::k_max_waiting; ++i) {
    pairs.push_back(socket_pair());
    EXPECT_TRUE(responder.refuse(pairs.back()[0], grpc::StatusCode::RESOURCE_EXHAUSTED, "full"));
  }
  std::array<int, 2> extra = socket_pair();
  EXPECT_FALSE(responder.refuse(extra[0], grpc::StatusCode::RESOURCE_EXHAUSTED, "full"));
  char byte = 0;
  EXPECT_EQ(::read(extra[1], &byte, 1), 0) << "closed, with nothing written";
  ::close(extra[1]);
  for (const std::array<int, 2>& pair : pairs) {
    ::close(pair[1]); // the responder sees the hang-ups and closes its ends
  }
}

} // namespace
