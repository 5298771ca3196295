d4r_test(test_cache
  SOURCES
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_store.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_processes.cpp
    ${CMAKE_CURRENT_LIST_DIR}/test_cache_facade.cpp
  LIBS d4r_cache)
