# Whole-program checks written as scripts (tests/e2e/): socket activation and the build server's
# unit with the real daemon and CLI, and the #include layering rules of STYLE.md.
add_test(NAME e2e_socket_activation
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/e2e/socket_activation.sh ${PROJECT_BINARY_DIR})
set_tests_properties(e2e_socket_activation PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77)

# The build server's unit: its ExecStart, expanded as systemd does, starts a serving daemon
# (the test copy of systemd.cmake, whose ExecStart is the daemon built here).
add_test(NAME e2e_remote_unit
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/e2e/remote_unit.sh ${PROJECT_BINARY_DIR}
    ${CMAKE_BINARY_DIR}/systemd/test/d4r-kerneld-remote.service)
set_tests_properties(e2e_remote_unit PROPERTIES TIMEOUT 60 SKIP_RETURN_CODE 77)

add_test(NAME e2e_layering COMMAND bash ${PROJECT_SOURCE_DIR}/tests/e2e/layering.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(e2e_layering PROPERTIES TIMEOUT 30)

add_test(NAME e2e_cli_build
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/e2e/cli_build.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(e2e_cli_build PROPERTIES TIMEOUT 120)

add_test(NAME e2e_translator_fingerprint
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/e2e/translator_fingerprint.sh ${PROJECT_SOURCE_DIR})
set_tests_properties(e2e_translator_fingerprint PROPERTIES TIMEOUT 30)

add_test(NAME e2e_daemon_links_no_llvm
  COMMAND bash ${PROJECT_SOURCE_DIR}/tests/e2e/daemon_links_no_llvm.sh ${PROJECT_BINARY_DIR} ${PROJECT_SOURCE_DIR})
set_tests_properties(e2e_daemon_links_no_llvm PROPERTIES TIMEOUT 30)
