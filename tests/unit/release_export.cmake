# daemon/release_export: the cache written as a release directory, read back by the release
# reader (daemon/release/), interrupted by a kill and by a failing write; and the CLI's parsing of
# export, pin and purge --older-than.
d4r_test(test_daemon_release_export
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_daemon_release_export.cpp
  LIBS d4r_daemon_core)
add_dependencies(test_daemon_release_export d4r_release_fixture)

d4r_test(test_cli_release_options
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_release_options.cpp
  LIBS d4r_cli_lib)
