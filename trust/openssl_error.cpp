#include "trust/openssl_error.hpp"

#include <openssl/err.h>

namespace d4r::trust {

std::string take_openssl_errors()
{
  std::string text;
  while (unsigned long code = ERR_get_error()) {
    char line[256];
    ERR_error_string_n(code, line, sizeof(line));
    text += text.empty() ? "" : "; ";
    text += line;
  }
  return text.empty() ? "no detail from OpenSSL" : text;
}

} // namespace d4r::trust
