#include "cache/remote/redis/endpoint.hpp"

#include <charconv>

namespace d4r::cache::redis {

namespace {

Expected<RedisEndpoint> parse_tcp(std::string_view text, std::string_view original)
{
  size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) {
    return make_error(ErrorCode::invalid_argument,
                      "redis: endpoint '" + std::string(original) +
                          "': expected unix:PATH, redis://HOST:PORT or HOST:PORT");
  }
  std::string_view host = text.substr(0, colon);
  std::string_view port_text = text.substr(colon + 1);
  // "[::1]:6379": the brackets only separate the address from the port.
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  int64_t port = 0;
  auto [end, error] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (error != std::errc() || end != port_text.data() + port_text.size() || port < 1 ||
      port > 65535) {
    return make_error(ErrorCode::invalid_argument, "redis: endpoint '" + std::string(original) +
                                                       "': bad port '" + std::string(port_text) +
                                                       "'");
  }
  if (host.find('@') != std::string_view::npos) {
    // Credentials in the address would end up in logs; AUTH is not supported yet.
    return make_error(
        ErrorCode::invalid_argument,
        "redis: endpoint with user info is not supported (credentials would be logged)");
  }
  return RedisEndpoint{.unix_path = {}, .host = std::string(host), .port = port};
}

} // namespace

Expected<RedisEndpoint> parse_endpoint(std::string_view text)
{
  constexpr std::string_view k_unix = "unix:";
  constexpr std::string_view k_redis = "redis://";
  if (text.starts_with(k_unix)) {
    std::string_view path = text.substr(k_unix.size());
    if (path.empty() || path.front() != '/') {
      return make_error(ErrorCode::invalid_argument, "redis: endpoint '" + std::string(text) +
                                                         "': the socket path must be absolute");
    }
    return RedisEndpoint{.unix_path = std::string(path), .host = {}, .port = 0};
  }
  if (text.starts_with(k_redis)) {
    std::string_view rest = text.substr(k_redis.size());
    if (!rest.empty() && rest.back() == '/') {
      rest.remove_suffix(1);
    }
    return parse_tcp(rest, text);
  }
  return parse_tcp(text, text);
}

std::string to_string(const RedisEndpoint& endpoint)
{
  if (endpoint.is_unix()) {
    return "unix:" + endpoint.unix_path;
  }
  if (endpoint.host.find(':') != std::string::npos) {
    return "[" + endpoint.host + "]:" + std::to_string(endpoint.port);
  }
  return endpoint.host + ":" + std::to_string(endpoint.port);
}

} // namespace d4r::cache::redis
