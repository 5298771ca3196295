# The accept loop's connection gate (daemon/connection_gate.hpp) and the per-connection call
# counts it reads (daemon/connection_activity.hpp), on socket pairs, with no server.
d4r_test(test_daemon_connection_gate
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_daemon_connection_gate.cpp
  LIBS d4r_daemon_core)
# Connections refused past the limit, answered with a gRPC status (daemon/refusal_responder.hpp).
d4r_test(test_daemon_refusal
  SOURCES ${CMAKE_CURRENT_LIST_DIR}/test_daemon_refusal.cpp
  LIBS d4r_daemon_core)
