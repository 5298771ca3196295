# daemon/result_signer: the daemon's key made on first use, kept across restarts; the trust flags.
d4r_test(test_daemon_result_signer
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_result_signer.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_trust_config.cpp
  LIBS d4r_daemon_core d4r_trust d4r_util)
