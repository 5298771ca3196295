# cli/key_command: `d4r-kernel key show`, parsed and run against real key files.
d4r_test(test_cli_key_command
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_key_command.cpp
  LIBS d4r_cli_lib)
