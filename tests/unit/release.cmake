d4r_test(test_release
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_release_manifest.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_release_directory_selection.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_release_authorization.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_release_gpu_detection.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_release_catalog.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_release_file_probe.cpp
  LIBS d4r_release)
