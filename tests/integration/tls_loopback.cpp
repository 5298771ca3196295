#include "tls_loopback.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>

namespace d4r::testing {

namespace {

int run_shell(const std::string& command)
{
  return std::system(command.c_str());
}

} // namespace

bool openssl_installed()
{
  return run_shell("command -v openssl >/dev/null 2>&1") == 0;
}

// A CA, a server certificate for 127.0.0.1 and localhost, and a client certificate, made by
// the openssl tool (P-256 keys: quick to make).
bool make_certificates(const std::filesystem::path& dir)
{
  std::string d = dir.string();
  std::string key = " -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes ";
  std::ofstream(dir / "server.ext") << "subjectAltName=DNS:localhost,IP:127.0.0.1\n"
                                       "basicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n";
  std::ofstream(dir / "client.ext") << "basicConstraints=CA:FALSE\nextendedKeyUsage=clientAuth\n";
  std::string quiet = " >/dev/null 2>&1";
  return run_shell("cd " + d + " && openssl req -x509" + key +
                   "-keyout ca.key -out ca.crt -days 2 -subj /CN=d4r-test-ca" + quiet) == 0 &&
         run_shell("cd " + d + " && openssl req" + key +
                   "-keyout server.key -out server.csr -subj /CN=localhost" + quiet) == 0 &&
         run_shell("cd " + d + " && openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key "
                   "-CAcreateserial -out server.crt -days 2 -extfile server.ext" + quiet) == 0 &&
         run_shell("cd " + d + " && openssl req" + key +
                   "-keyout client.key -out client.csr -subj /CN=deck" + quiet) == 0 &&
         run_shell("cd " + d + " && openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key "
                   "-CAcreateserial -out client.crt -days 2 -extfile client.ext" + quiet) == 0;
}

int free_port()
{
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof(address);
  if (bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    close(fd);
    return -1;
  }
  close(fd);
  return ntohs(address.sin_port);
}

bool wait_for_port(int port)
{
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (std::chrono::steady_clock::now() < until) {
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    bool connected = connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    close(fd);
    if (connected) {
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return false;
}

} // namespace d4r::testing
