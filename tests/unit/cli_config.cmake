# `d4r-kernel config`: its parsing and effective values in-process (and the daemon's reading of
# the same flags, environment and file: test_cli_config_agreement), and the built binary as a user
# runs it (tests/e2e/config_command.sh: a temporary XDG_CONFIG_HOME, variables, flags, --json).
d4r_test(test_cli_config
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_config_command.cpp
          ${CMAKE_CURRENT_LIST_DIR}/test_cli_config_agreement.cpp
  LIBS d4r_cli_lib)

add_test(NAME cli_config_command
  COMMAND sh ${PROJECT_SOURCE_DIR}/tests/e2e/config_command.sh $<TARGET_FILE:d4r-kernel>)
set_tests_properties(cli_config_command PROPERTIES TIMEOUT 60)
