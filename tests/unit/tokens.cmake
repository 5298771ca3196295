# Bearer tokens of a build server's clients: the token file (util/tokens.hpp), the daemon's
# reading of it (daemon/token_store.hpp) and `d4r-kernel token add|list|revoke`.
d4r_test(test_util_tokens
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_util_tokens.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_token_store.cpp
  LIBS d4r_daemon_core d4r_util)

d4r_test(test_cli_token_command
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_token_command.cpp
  LIBS d4r_cli_lib)

# What one client of the build server may ask (daemon/client_limits.hpp, --client-* flags).
d4r_test(test_daemon_client_limits
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_daemon_client_limits.cpp
  LIBS d4r_daemon_core d4r_util)
