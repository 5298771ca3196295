# Telemetry: miss reasons, the game table, build times, the Prometheus text (daemon/), the game
# name a client sends (client/game_name.cpp), and how `d4r-kernel status` shows them (cli/).
d4r_test(test_daemon_telemetry
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_telemetry.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_metrics_text.cpp
  LIBS d4r_daemon_core)

d4r_test(test_client_game_name
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_client_game_name.cpp
  LIBS d4r_kernel_client_static d4r_proto d4r_util)

d4r_test(test_cli_telemetry_output
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_cli_telemetry_output.cpp
  LIBS d4r_cli_lib)
