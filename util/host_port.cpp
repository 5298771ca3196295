#include "util/host_port.hpp"

#include <charconv>

namespace d4r {

Expected<std::pair<std::string, int>> split_host_port(std::string_view address, std::string_view flag)
{
  size_t colon = address.rfind(':');
  auto bad = [address, flag](std::string why) {
    return make_error(ErrorCode::invalid_argument,
                      std::string(flag) + " " + std::string(address.substr(0, 256)) + ": " + why);
  };
  if (colon == std::string_view::npos || colon == 0) {
    return bad("expected HOST:PORT (e.g. 0.0.0.0:7467, [::]:7467)");
  }
  std::string_view host = address.substr(0, colon);
  std::string_view port_text = address.substr(colon + 1);
  int port = -1;
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc() || end != port_text.data() + port_text.size() || port < 0 || port > 65535) {
    return bad("the port is not a number from 0 to 65535");
  }
  if (host.find(':') != std::string_view::npos && !(host.starts_with('[') && host.ends_with(']'))) {
    return bad("an IPv6 host is written in brackets ([::1]:7467)");
  }
  return std::pair<std::string, int>(std::string(host), port);
}

} // namespace d4r
