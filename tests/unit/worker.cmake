# The isolated compile workers: the job-file format, and d4r-kernel-worker driven through the
# daemon's WorkerRunner (real compiles, a real LLVM abort, and the test-only faults crash, hang,
# sleep and memory, enabled by D4R_WORKER_TEST_FAULTS=1 in the test's environment).
d4r_test(test_worker
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_worker_job_file.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_worker_runner.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_worker_sandbox.cpp
  LIBS d4r_daemon_core
  TIMEOUT 300)
add_dependencies(test_worker d4r-kernel-worker)
target_compile_definitions(test_worker PRIVATE
  D4R_WORKER_BINARY="$<TARGET_FILE:d4r-kernel-worker>"
  D4R_KERNELS_SOURCE_DIR="${PROJECT_SOURCE_DIR}/kernels")
# Every test that runs the daemon core may spawn workers: build the worker with it.
add_dependencies(d4r_daemon_core d4r-kernel-worker)
