# `d4r-kernel status`'s build-server and storage-tier sections (cli/status_servers.cpp) and how the
# daemon fills the tiers into StatusReply (daemon/wire.cpp).
d4r_test(test_cli_status_servers
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_status_servers.cpp
  LIBS d4r_cli_lib)

d4r_test(test_daemon_status_wire
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_daemon_status_wire.cpp
  LIBS d4r_daemon_core)
