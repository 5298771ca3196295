d4r_test(test_daemon
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_build_jobs.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_build_service.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_change_watch.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_config.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_housekeeping.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_kernel_core.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_negative_cache.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_scheduling.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_shared_builds.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_daemon_warm_queries.cpp
  LIBS d4r_daemon_core d4r_compiler)
add_dependencies(test_daemon d4r_release_fixture d4r-kernel-worker)
target_compile_definitions(test_daemon PRIVATE D4R_WORKER_PATH="$<TARGET_FILE:d4r-kernel-worker>")
