# cli/daemon_client.cpp's rpc_error: a refusal's words reach the user with what to do.
d4r_test(test_cli_rpc_error
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_rpc_error.cpp
  LIBS d4r_cli_lib)
